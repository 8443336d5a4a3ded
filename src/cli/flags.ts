/**
 * Flag builders shared by every command that talks to a broker, so `--broker`, credentials and `--timeout` parse,
 * validate and read their environment variables the same way everywhere. Parsers are exported on their own for
 * unit tests and for library callers.
 */
import { isIP, isIPv6 } from 'node:net';
import { Flags } from '@oclif/core';
import { UsageError } from '../errors.js';

/** Kafka's port: what a Kafka user types without thinking. `broker start` listens here unless told otherwise. */
export const DEFAULT_BROKER_PORT = 9092;
export const DEFAULT_BROKER_HOST = '127.0.0.1';

export interface HostPort {
  host: string;
  port: number;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

function parsePort(text: string, input: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new UsageError(`invalid port "${text}" in "${input}": expected 1..65535`);
  const port = Number(text);
  if (port < 1 || port > 65_535) throw new UsageError(`invalid port ${port} in "${input}": expected 1..65535`);
  return port;
}

/**
 * `host:port`, `host`, `[v6]:port` or `[v6]`; a missing port is `defaultPort`. A bare IPv6 address is refused
 * because "::1:9092" cannot be split unambiguously.
 */
export function parseHostPort(input: string, defaultPort: number = DEFAULT_BROKER_PORT): HostPort {
  const text = input.trim();
  if (text === '') throw new UsageError('empty address: expected host:port');
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) throw new UsageError(`invalid address "${input}": missing "]" after the IPv6 address`);
    const host = text.slice(1, close);
    if (!isIPv6(host)) throw new UsageError(`invalid address "${input}": "${host}" is not an IPv6 address`);
    const rest = text.slice(close + 1);
    if (rest === '') return { host, port: defaultPort };
    if (!rest.startsWith(':')) throw new UsageError(`invalid address "${input}": expected ":port" after "]"`);
    return { host, port: parsePort(rest.slice(1), input) };
  }
  const colons = text.split(':').length - 1;
  if (colons > 1) {
    throw new UsageError(`invalid address "${input}": put an IPv6 address in brackets, e.g. [::1]:${defaultPort}`);
  }
  const [host = '', portText] = text.split(':');
  if (host === '') throw new UsageError(`invalid address "${input}": missing host`);
  if (isIP(host) === 0 && !HOSTNAME.test(host)) throw new UsageError(`invalid address "${input}": "${host}" is not a host name`);
  return { host, port: portText === undefined ? defaultPort : parsePort(portText, input) };
}

export function formatHostPort(address: HostPort): string {
  return isIPv6(address.host) ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000 } as const;

/** A timeout in milliseconds: "500" and "500ms" are the same; "5s" and "2m" are accepted. Must be at least 1 ms. */
export function parseTimeoutMs(input: string): number {
  const match = DURATION.exec(input.trim());
  if (!match) throw new UsageError(`invalid timeout "${input}": expected milliseconds, or a number with ms, s or m`);
  const unit = (match[2] ?? 'ms') as keyof typeof UNIT_MS;
  const ms = Math.round(Number(match[1]) * UNIT_MS[unit]);
  if (!Number.isSafeInteger(ms) || ms < 1) throw new UsageError(`invalid timeout "${input}": must be at least 1 ms`);
  return ms;
}

export interface BrokerFlagOptions {
  description?: string;
  required?: boolean;
}

/** `--broker host:port` (env CRATER_BROKER, default 127.0.0.1:9092). */
export function brokerFlag(options: BrokerFlagOptions = {}) {
  return Flags.custom<HostPort>({
    char: 'b',
    description: options.description ?? 'Broker address as host:port; IPv6 in brackets, e.g. [::1]:9092.',
    env: 'CRATER_BROKER',
    helpValue: 'host:port',
    parse: async (input) => parseHostPort(input),
    default: { host: DEFAULT_BROKER_HOST, port: DEFAULT_BROKER_PORT },
    defaultHelp: async () => `${DEFAULT_BROKER_HOST}:${DEFAULT_BROKER_PORT}`,
    required: options.required ?? false,
  })();
}

/** `--username` (env CRATER_USERNAME). MoonMQ requires AUTH even in open mode, where any name is accepted. */
export function usernameFlag() {
  return Flags.string({
    description: 'User name for AUTH.',
    env: 'CRATER_USERNAME',
    helpValue: 'name',
  });
}

/** `--password` (env CRATER_PASSWORD, which keeps it out of `ps` and shell history). */
export function passwordFlag() {
  return Flags.string({
    description: 'Password for AUTH; prefer the CRATER_PASSWORD environment variable.',
    env: 'CRATER_PASSWORD',
    helpValue: 'secret',
  });
}

/** `--timeout` in milliseconds (a unit suffix ms, s or m is accepted). */
export function timeoutFlag(options: { defaultMs: number; description?: string }) {
  return Flags.custom<number>({
    description: options.description ?? 'Request timeout in milliseconds (or with a unit: 500ms, 5s, 2m).',
    helpValue: 'ms',
    parse: async (input) => parseTimeoutMs(input),
    default: options.defaultMs,
  })();
}

/** The connection flags every network command takes, spread into its `static flags`. */
export function connectionFlags(options: { timeoutMs?: number } = {}) {
  return {
    broker: brokerFlag(),
    username: usernameFlag(),
    password: passwordFlag(),
    timeout: timeoutFlag({ defaultMs: options.timeoutMs ?? 10_000 }),
  };
}

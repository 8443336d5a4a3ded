/**
 * Flag builders shared by every command that talks to a broker, so `--broker`, credentials and `--timeout` parse,
 * validate and read their environment variables the same way everywhere. Parsers are exported on their own for
 * unit tests and for library callers.
 */
import { isIPv6 } from 'node:net';
import { Flags } from '@oclif/core';
import { type BrokerAddress, DEFAULT_PORT, formatAddress, parseBrokerAddress } from '../client/address.js';
import { backendKindOf } from '../client/backend.js';
import { formatKafkaBootstrap, parseKafkaBootstrap } from '../client/kafka/address.js';
import { UsageError } from '../errors.js';

/** The client's default port (Kafka's 9092); `broker start` should listen there unless told otherwise. */
export const DEFAULT_BROKER_PORT = DEFAULT_PORT;
export const DEFAULT_BROKER_HOST = '127.0.0.1';

/** A broker address; `kafka` is set (the whole `kafka://h:p,...` list) when it names a Kafka cluster instead. */
export type HostPort = BrokerAddress & { kafka?: string };

/**
 * `host:port`, `host`, `[v6]:port`, `[v6]` or a `moonmq://` URL, parsed by the client's own parser so the flag and
 * the library agree. On the command line a bare IPv6 literal is refused: a user who types "::1:9092" most likely
 * meant a port, and the client would read it as the address ::1:9092.
 */
export function parseHostPort(input: string, defaultPort: number = DEFAULT_BROKER_PORT): HostPort {
  const text = input.trim();
  if (backendKindOf(text) === 'kafka') {
    const brokers = parseKafkaBootstrap(text);
    return { ...parseBrokerAddress(brokers[0]!, defaultPort), kafka: formatKafkaBootstrap(brokers) };
  }
  if (isIPv6(text))
    throw new UsageError(`broker address '${input}': write IPv6 hosts in brackets, e.g. [::1]:${defaultPort}`);
  return parseBrokerAddress(text, defaultPort);
}

export function formatHostPort(address: HostPort): string {
  return address.kafka ?? formatAddress(address);
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration with a unit (ms, s, m, h, d); a bare number is in `bareUnit`. Undefined when it does not parse. */
export function parseDuration(input: string, bareUnit: keyof typeof UNIT_MS = 'ms'): number | undefined {
  const match = DURATION.exec(input.trim());
  if (!match) return undefined;
  const unit = (match[2] ?? bareUnit) as keyof typeof UNIT_MS;
  const ms = Math.round(Number(match[1]) * UNIT_MS[unit]);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** A timeout in milliseconds: "500" and "500ms" are the same; "5s", "2m", "1h" are accepted. Must be at least 1 ms. */
export function parseTimeoutMs(input: string): number {
  const ms = parseDuration(input);
  if (ms === undefined)
    throw new UsageError(`invalid duration "${input}": expected milliseconds, or a number with ms, s, m, h or d`);
  if (ms < 1) throw new UsageError(`invalid duration "${input}": must be at least 1 ms`);
  return ms;
}

/** Topic config keys whose wire value is whole seconds; `topic alter --set retention=7d` converts. */
export const SECONDS_KEYS: readonly string[] = ['retention', 'cleaner_interval'];

/** A seconds-valued config entry as the wire wants it: a bare number is kept, a duration with a unit becomes seconds. */
export function configValue(key: string, value: string): string {
  if (!SECONDS_KEYS.includes(key) || /^\d+$/.test(value.trim())) return value;
  const ms = parseDuration(value, 's');
  if (ms === undefined || ms % 1000 !== 0 || ms < 1000) {
    throw new UsageError(`${key}=${value}: expected whole seconds, or a duration such as 90s, 12h, 7d`);
  }
  return String(ms / 1000);
}

export interface BrokerFlagOptions {
  description?: string;
  required?: boolean;
}

/** `--broker host:port` (env CRATER_BROKER, default 127.0.0.1:9092). */
export function brokerFlag(options: BrokerFlagOptions = {}) {
  return Flags.custom<HostPort>({
    char: 'b',
    description:
      options.description ??
      'Broker address as host:port (IPv6 in brackets, e.g. [::1]:9092), or kafka://host:port[,host:port...] for an Apache Kafka cluster.',
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

/** `--timeout` in milliseconds (a unit suffix ms, s or m is accepted; env CRATER_TIMEOUT, which a profile may fill). */
export function timeoutFlag(options: { defaultMs: number; description?: string }) {
  return Flags.custom<number>({
    description: options.description ?? 'Request timeout in milliseconds (or with a unit: 500ms, 5s, 2m).',
    env: 'CRATER_TIMEOUT',
    helpValue: 'duration',
    parse: async (input) => parseTimeoutMs(input),
    default: options.defaultMs,
  })();
}

/** `--profile NAME` (env CRATER_PROFILE): the client-config profile whose settings fill unset CRATER_* variables. */
export function profileFlag() {
  return Flags.string({
    description:
      'Client-config profile (CRATER_CLIENT_CONFIG or ~/.config/crater/config.json); flags and env win over it.',
    env: 'CRATER_PROFILE',
    helpValue: 'NAME',
  });
}

/** The connection flags every network command takes, spread into its `static flags`. */
export function connectionFlags(options: { timeoutMs?: number } = {}) {
  return {
    profile: profileFlag(),
    broker: brokerFlag(),
    username: usernameFlag(),
    password: passwordFlag(),
    timeout: timeoutFlag({ defaultMs: options.timeoutMs ?? 10_000 }),
  };
}

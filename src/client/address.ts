import { isIPv6 } from 'node:net';
import { UsageError } from '../errors.js';

/** Where a broker listens. `host` is bare (no brackets) even for IPv6. */
export interface BrokerAddress {
  host: string;
  port: number;
}

export const DEFAULT_PORT = 9092;

/**
 * Parses `host:port`, `[v6]:port`, a bare host (default port), a bare IPv6 literal, or a `moonmq://` / `crater://`
 * URL. A bare IPv6 literal has no port because its last group would otherwise be ambiguous.
 */
export function parseBrokerAddress(input: string, defaultPort = DEFAULT_PORT): BrokerAddress {
  let text = input.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text);
  if (scheme) {
    text = text.slice(scheme[0].length);
    const slash = text.indexOf('/');
    if (slash >= 0) text = text.slice(0, slash);
    const at = text.lastIndexOf('@');
    if (at >= 0) text = text.slice(at + 1);
  }
  if (text === '') throw new UsageError(`broker address '${input}' has no host`);

  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0) throw new UsageError(`broker address '${input}' has an unclosed '['`);
    const host = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (!isIPv6(host)) throw new UsageError(`broker address '${input}': '${host}' is not an IPv6 address`);
    if (rest === '') return { host, port: defaultPort };
    if (!rest.startsWith(':')) throw new UsageError(`broker address '${input}' has junk after ']'`);
    return { host, port: parsePort(rest.slice(1), input) };
  }
  if (isIPv6(text)) return { host: text, port: defaultPort };

  const colon = text.lastIndexOf(':');
  if (colon < 0) return { host: text, port: defaultPort };
  const host = text.slice(0, colon);
  if (host === '' || host.includes(':'))
    throw new UsageError(`broker address '${input}': write IPv6 hosts as [addr]:port`);
  return { host, port: parsePort(text.slice(colon + 1), input) };
}

function parsePort(text: string, input: string): number {
  if (!/^\d{1,5}$/.test(text)) throw new UsageError(`broker address '${input}': port '${text}' is not a number`);
  const port = Number(text);
  if (port < 1 || port > 65_535)
    throw new UsageError(`broker address '${input}': port ${port} is out of range 1..65535`);
  return port;
}

/** `host:port`, with IPv6 hosts bracketed, as error messages name the broker. */
export function formatAddress(address: BrokerAddress): string {
  return isIPv6(address.host) ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

export function toBrokerAddress(address: string | BrokerAddress): BrokerAddress {
  return typeof address === 'string' ? parseBrokerAddress(address) : address;
}

import { describe, expect, it } from 'vitest';
import { DEFAULT_BROKER_PORT, formatHostPort, parseHostPort, parseTimeoutMs } from '../../../src/cli/flags.js';
import { UsageError } from '../../../src/errors.js';

describe('parseHostPort', () => {
  it('splits host:port', () => {
    expect(parseHostPort('127.0.0.1:9092')).toEqual({ host: '127.0.0.1', port: 9092 });
    expect(parseHostPort('broker-1.example.com:1')).toEqual({ host: 'broker-1.example.com', port: 1 });
    expect(parseHostPort(' localhost:65535 ')).toEqual({ host: 'localhost', port: 65_535 });
  });

  it('reads bracketed IPv6', () => {
    expect(parseHostPort('[::1]:7000')).toEqual({ host: '::1', port: 7000 });
    expect(parseHostPort('[fe80::1]')).toEqual({ host: 'fe80::1', port: DEFAULT_BROKER_PORT });
  });

  it('uses the default port when none is given', () => {
    expect(parseHostPort('localhost')).toEqual({ host: 'localhost', port: DEFAULT_BROKER_PORT });
    expect(parseHostPort('localhost', 1234)).toEqual({ host: 'localhost', port: 1234 });
  });

  it('accepts a moonmq:// URL as the client does', () => {
    expect(parseHostPort('moonmq://user@broker:7001/')).toEqual({ host: 'broker', port: 7001 });
  });

  it.each([
    ['', /no host/],
    [':9092', /IPv6 hosts as \[addr\]:port/],
    ['::1:9092', /brackets/],
    ['::1', /brackets/],
    ['[::1', /unclosed/],
    ['[::1]9092', /junk after/],
    ['[localhost]:1', /not an IPv6/],
    ['host:0', /1\.\.65535/],
    ['host:65536', /1\.\.65535/],
    ['host:-1', /not a number/],
    ['host:12ab', /not a number/],
    ['host:', /not a number/],
  ])('refuses %j with a UsageError', (input, reason) => {
    expect(() => parseHostPort(input)).toThrow(UsageError);
    expect(() => parseHostPort(input)).toThrow(reason);
  });

  it('formats back, bracketing IPv6', () => {
    expect(formatHostPort({ host: '::1', port: 1 })).toBe('[::1]:1');
    expect(formatHostPort({ host: 'h', port: 2 })).toBe('h:2');
    expect(formatHostPort(parseHostPort('[2001:db8::2]:99'))).toBe('[2001:db8::2]:99');
  });
});

describe('parseTimeoutMs', () => {
  it('reads plain milliseconds and ms/s/m/h/d suffixes', () => {
    expect(parseTimeoutMs('500')).toBe(500);
    expect(parseTimeoutMs('500ms')).toBe(500);
    expect(parseTimeoutMs('1.5s')).toBe(1500);
    expect(parseTimeoutMs('2m')).toBe(120_000);
    expect(parseTimeoutMs('5h')).toBe(18_000_000);
    expect(parseTimeoutMs('7d')).toBe(604_800_000);
  });

  it.each(['', '0', '-5', 'abc', '5w', '0.0004s'])('refuses %j', (input) => {
    expect(() => parseTimeoutMs(input)).toThrow(UsageError);
  });
});

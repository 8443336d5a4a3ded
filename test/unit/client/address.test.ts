import { describe, expect, it } from 'vitest';
import { formatAddress, parseBrokerAddress } from '../../../src/client/address.js';
import { UsageError } from '../../../src/errors.js';

describe('parseBrokerAddress', () => {
  it.each([
    ['localhost:9093', { host: 'localhost', port: 9093 }],
    ['10.0.0.1:1', { host: '10.0.0.1', port: 1 }],
    ['broker.example', { host: 'broker.example', port: 9092 }],
    ['[::1]:7000', { host: '::1', port: 7000 }],
    ['[fe80::1]', { host: 'fe80::1', port: 9092 }],
    ['::1', { host: '::1', port: 9092 }],
    ['moonmq://user:pw@host.example:9100/ignored', { host: 'host.example', port: 9100 }],
    ['  127.0.0.1:65535 ', { host: '127.0.0.1', port: 65535 }],
  ])('parses %s', (input, expected) => {
    expect(parseBrokerAddress(input)).toEqual(expected);
  });

  it.each(['', 'host:', 'host:0', 'host:65536', 'host:abc', '[::1', '[nothost]:1', '[::1]x', 'a:b:c:1x'])(
    'refuses %j with a UsageError',
    (input) => {
      expect(() => parseBrokerAddress(input)).toThrow(UsageError);
    },
  );

  it('formats IPv6 hosts in brackets so error messages stay unambiguous', () => {
    expect(formatAddress({ host: '::1', port: 9092 })).toBe('[::1]:9092');
    expect(formatAddress({ host: 'localhost', port: 9092 })).toBe('localhost:9092');
  });
});

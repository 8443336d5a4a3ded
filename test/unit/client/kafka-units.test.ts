/** The Kafka backend's pure pieces: kafka:// addresses, per-record acks from per-partition base offsets, codecs, headers. */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { formatHostPort, parseHostPort } from '../../../src/cli/flags.js';
import { backendKindOf } from '../../../src/client/backend.js';
import { parseKafkaBootstrap } from '../../../src/client/kafka/address.js';
import { acksFor, kafkaCompression, kafkaHeaders } from '../../../src/client/kafka/kafka-produce.js';
import { UnsupportedError, UsageError } from '../../../src/errors.js';

describe('kafka:// addresses', () => {
  it('parse into a bootstrap list, port 9092 by default, IPv6 bracketed', () => {
    expect(parseKafkaBootstrap('kafka://127.0.0.1:1,127.0.0.1:2')).toEqual(['127.0.0.1:1', '127.0.0.1:2']);
    expect(parseKafkaBootstrap(' KAFKA://[::1]:9,localhost/ ')).toEqual(['[::1]:9', 'localhost:9092']);
  });

  it.each(['kafka://', 'kafka://a:1,,b:2', 'kafka://a:0', '127.0.0.1:1'])('refuse %j', (input) => {
    expect(() => parseKafkaBootstrap(input)).toThrow(UsageError);
  });

  it('select the Kafka backend; anything else stays MoonMQ', () => {
    expect(backendKindOf('kafka://h:1')).toBe('kafka');
    expect(backendKindOf('moonmq://h:1')).toBe('moonmq');
    expect(backendKindOf('h:1')).toBe('moonmq');
  });

  it('pass through --broker whole, while a plain host:port formats as before', () => {
    const kafka = parseHostPort('kafka://127.0.0.1:1,127.0.0.1:2');
    expect(kafka).toEqual({ host: '127.0.0.1', port: 1, kafka: 'kafka://127.0.0.1:1,127.0.0.1:2' });
    expect(formatHostPort(kafka)).toBe('kafka://127.0.0.1:1,127.0.0.1:2');
    expect(formatHostPort(parseHostPort('[::1]:7'))).toBe('[::1]:7');
  });
});

describe('acksFor', () => {
  const m = (partition: number) => ({ topic: 't', partition, value: Buffer.alloc(0) });

  it('numbers the records of each partition from that partition base offset, in send order', () => {
    const acks = acksFor(
      [m(1), m(0), m(1), m(1)],
      [
        { partition: 0, offset: 10n },
        { partition: 1, offset: 5n },
      ],
    );
    expect(acks).toEqual([
      { partition: 1, offset: 5n },
      { partition: 0, offset: 10n },
      { partition: 1, offset: 6n },
      { partition: 1, offset: 7n },
    ]);
  });

  it('refuses a reply without a base offset for a partition it sent to', () => {
    expect(() => acksFor([m(2)], [{ partition: 0, offset: 0n }])).toThrow(UsageError);
  });
});

describe('codecs and headers', () => {
  it('maps crater codec names and MoonMQ codec ids to Kafka compression', () => {
    expect(kafkaCompression(undefined)).toBe('none');
    expect(kafkaCompression('gzip')).toBe('gzip');
    expect(kafkaCompression(2)).toBe('snappy');
    expect(kafkaCompression('lz4')).toBe('lz4');
    expect(() => kafkaCompression('brotli' as 'gzip')).toThrow(UsageError);
  });

  it('zstd works where node:zlib has it and is refused naming the backend where not', () => {
    if (typeof (zlib as { zstdCompressSync?: unknown }).zstdCompressSync === 'function')
      expect(kafkaCompression('zstd')).toBe('zstd');
    else expect(() => kafkaCompression('zstd')).toThrow(UnsupportedError);
  });

  it('keeps header order and duplicate names', () => {
    const headers = kafkaHeaders([
      { name: 'h', value: Buffer.from('1') },
      { name: 'a', value: Buffer.from('x') },
      { name: 'h', value: Buffer.from('2') },
    ]);
    expect([...headers!].map(([k, v]) => `${k.toString()}=${v.toString()}`)).toEqual(['h=1', 'a=x', 'h=2']);
    expect(kafkaHeaders([])).toBeUndefined();
  });
});

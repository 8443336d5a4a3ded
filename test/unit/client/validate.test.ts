import { describe, expect, it } from 'vitest';
import { prepareBatch } from '../../../src/client/moonmq/produce-ops.js';
import {
  validateConfigEntries,
  validateHeaders,
  validatePartitionCount,
  validateString,
  validateTopicName,
} from '../../../src/client/validate.js';
import { UsageError } from '../../../src/errors.js';

describe('client-side cap checks', () => {
  it('accepts topic names by semantics.md §12 and refuses the rest', () => {
    for (const ok of ['orders', 'a', 'A.b_c-1', 'x'.repeat(249), '__consumer_offsets']) {
      expect(() => validateTopicName(ok)).not.toThrow();
    }
    for (const bad of ['', 'x'.repeat(250), 'a b', 'é', '-lead', '.', '..', 'a/b']) {
      expect(() => validateTopicName(bad)).toThrow(UsageError);
    }
    expect(() => validateTopicName('__mine', true)).toThrow(/reserved/);
  });

  it('checks string caps in bytes, not UTF-16 units', () => {
    expect(() => validateString('group', 'é'.repeat(128), 256)).not.toThrow();
    expect(() => validateString('group', 'é'.repeat(129), 256)).toThrow(/got 258/);
    expect(() => validateString('group', '', 256, 1)).toThrow(UsageError);
  });

  it('bounds partition counts to 1..1024', () => {
    expect(() => validatePartitionCount('partitions', 1024)).not.toThrow();
    for (const n of [0, 1025, 1.5, -1]) expect(() => validatePartitionCount('partitions', n)).toThrow(UsageError);
  });

  it('bounds header count, name and value sizes', () => {
    const h = (name: string, size = 1) => ({ name, value: Buffer.alloc(size) });
    expect(() =>
      validateHeaders(
        'h',
        Array.from({ length: 64 }, () => h('n')),
      ),
    ).not.toThrow();
    expect(() =>
      validateHeaders(
        'h',
        Array.from({ length: 65 }, () => h('n')),
      ),
    ).toThrow(/65 headers/);
    expect(() => validateHeaders('h', [h('n'.repeat(257))])).toThrow(UsageError);
    expect(() => validateHeaders('h', [h('n', 65_537)])).toThrow(UsageError);
  });

  it('bounds config entries (key 64, value 256, 64 entries)', () => {
    expect(() => validateConfigEntries([['retention.ms', '1']])).not.toThrow();
    expect(() => validateConfigEntries([['k'.repeat(65), '1']])).toThrow(UsageError);
    expect(() => validateConfigEntries([['k', 'v'.repeat(257)]])).toThrow(UsageError);
    expect(() => validateConfigEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, '1'] as const))).toThrow(
      /at most 64/,
    );
  });

  it('refuses empty, oversized and over-long batches before encoding, naming the record', () => {
    expect(() => prepareBatch([])).toThrow(/1..10000/);
    expect(() => prepareBatch(Array.from({ length: 10_001 }, () => ({ value: 'v' })))).toThrow(/got 10001/);
    expect(() => prepareBatch([{ value: 'ok' }, { value: Buffer.alloc(65_537) }])).toThrow(/records\[1\]\.value/);
    expect(() => prepareBatch([{ key: Buffer.alloc(65_537), value: '' }])).toThrow(/records\[0\]\.key/);
    expect(prepareBatch([{ value: Buffer.alloc(65_536) }]).withHeaders).toBe(false);
    expect(prepareBatch([{ value: 'v', headers: [{ name: 'a', value: Buffer.from('b') }] }]).withHeaders).toBe(true);
  });
});

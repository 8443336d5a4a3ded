/** `__share_group_state` layouts: worked bytes, round trips, and bad values as problems (never exceptions). */
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../../../src/errors.js';
import {
  RecordState,
  ShareStateKind,
  decodeGroupConfig,
  decodeShareStateKey,
  decodeSnapshot,
  encodeGroupConfig,
  encodeShareStateKey,
  encodeSnapshot,
  shareStatePartition,
  shareStatePartitionOfKey,
} from '../../../src/storage/share-state-codec.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('share state keys', () => {
  it('partition key bytes: kind 1 · u16 group · u16 topic · u32 partition', () => {
    const key = encodeShareStateKey({ kind: ShareStateKind.PARTITION, group: 'w', topic: 'jobs', partition: 2 });
    expect(key).toEqual(hex('01 0001 77 0004 6a6f6273 00000002'));
    expect(decodeShareStateKey(key)).toEqual({ ok: true, value: { kind: 1, group: 'w', topic: 'jobs', partition: 2 } });
    expect(encodeShareStateKey({ kind: ShareStateKind.CONFIG, group: 'w' })).toEqual(hex('00 0001 77'));
  });

  it("every key of a group lands in the group's partition", () => {
    const p = shareStatePartition('workers');
    expect(p).toBeGreaterThanOrEqual(1);
    expect(p).toBeLessThanOrEqual(16);
    expect(shareStatePartitionOfKey(encodeShareStateKey({ kind: 0, group: 'workers' }), 16)).toBe(p);
    expect(
      shareStatePartitionOfKey(encodeShareStateKey({ kind: 1, group: 'workers', topic: 't', partition: 9 }), 16),
    ).toBe(p);
    // Only keys the broker encoded reach it; one whose group is cut is a DecodeError, not a hash of what is there.
    const torn = () => shareStatePartitionOfKey(hex('00 0007 776f72'), 16);
    expect(torn).toThrow(DecodeError);
    expect(torn).toThrow(/group.*needs 7 bytes, 3 left/);
  });

  it('an unknown kind or trailing bytes are problems', () => {
    expect(decodeShareStateKey(hex('07 0001 77')).ok).toBe(false);
    expect(decodeShareStateKey(hex('00 0001 77 00')).ok).toBe(false);
  });
});

describe('share-partition snapshots', () => {
  const snapshot = {
    spso: 3n,
    speo: 10n,
    runs: [
      { first: 3n, last: 4n, records: 2, state: RecordState.ACQUIRED, deliveryCount: 2 },
      { first: 5n, last: 5n, records: 1, state: RecordState.ACKNOWLEDGED, deliveryCount: 1 },
      { first: 7n, last: 9n, records: 2, state: RecordState.ARCHIVED, deliveryCount: 5 },
    ],
  };

  it('worked bytes (version 2: one entry per run) and round trip', () => {
    const bytes = encodeSnapshot(snapshot);
    expect(bytes).toEqual(
      hex(
        `02 0000000000000003 000000000000000a 00000003
         0000000000000003 0000000000000004 00000002 01 0002
         0000000000000005 0000000000000005 00000001 02 0001
         0000000000000007 0000000000000009 00000002 04 0005`,
      ),
    );
    expect(decodeSnapshot(bytes)).toEqual({ ok: true, value: snapshot });
  });

  it('a version 1 snapshot (one entry per record) still decodes, as runs of one record', () => {
    const v1 = hex('01 0000000000000003 000000000000000a 00000002 0000000000000003 01 0002 0000000000000009 04 0005');
    expect(decodeSnapshot(v1)).toEqual({
      ok: true,
      value: {
        spso: 3n,
        speo: 10n,
        runs: [
          { first: 3n, last: 3n, records: 1, state: RecordState.ACQUIRED, deliveryCount: 2 },
          { first: 9n, last: 9n, records: 1, state: RecordState.ARCHIVED, deliveryCount: 5 },
        ],
      },
    });
  });

  it('runs out of order, overlapping, outside the window, miscounted, an unknown state or a short value are problems', () => {
    const [a, b] = snapshot.runs;
    const bad = [
      { ...snapshot, runs: [b!, a!] },
      { ...snapshot, runs: [a!, { ...b!, first: 4n }] },
      { ...snapshot, runs: [{ ...b!, first: 10n, last: 10n }] },
      { ...snapshot, runs: [{ ...a!, records: 0 }] },
      { ...snapshot, runs: [{ ...b!, records: 2 }] },
    ];
    for (const s of bad) expect(decodeSnapshot(encodeSnapshot(s)).ok).toBe(false);
    const bytes = encodeSnapshot(snapshot);
    const wrongState = Buffer.from(bytes);
    wrongState[21 + 20] = 3;
    expect(decodeSnapshot(wrongState)).toMatchObject({
      ok: false,
      detail: expect.stringContaining('unknown record state 3'),
    });
    expect(decodeSnapshot(bytes.subarray(0, bytes.length - 1)).ok).toBe(false);
    expect(decodeSnapshot(Buffer.from([3])).ok).toBe(false);
  });

  it('group configs round-trip', () => {
    const entries: Array<[string, string]> = [
      ['delivery.count.limit', '3'],
      ['dlq.enabled', 'true'],
    ];
    expect(decodeGroupConfig(encodeGroupConfig(entries))).toEqual({ ok: true, value: entries });
  });
});

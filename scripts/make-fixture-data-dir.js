#!/usr/bin/env node
// Regenerates fixtures/data-dir, the small MoonMQ-style data directory the inspector tests read. Run after the
// build: `npx tsc -p tsconfig.build.json && node scripts/make-fixture-data-dir.js`. The bytes are committed, so
// tests never depend on this script; the test file documents what each record is.
//
//   orders/                      segmented backend, one partition, two segments (max_segment_size=200)
//     segment 0: none, gzip and snappy values
//     segment 1: a transactional record (pid 7, epoch 3), its COMMIT marker, a record with two headers
//   __consumer_offsets/          commit-log backend, 16 partitions; commits for "billing" (partition 13) and a
//                                commit then tombstone for "old-group" (partition 9)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compressValue } from '../dist/protocol/compression.js';
import { CommitLog, INTERNAL_SEGMENT_BYTES } from '../dist/storage/commit-log.js';
import { encodeOffsetKey, encodeOffsetValue, offsetsPartition } from '../dist/storage/offsets-codec.js';
import { ControlMarker, RecordAttr, encodeControlValue, encodeRecord } from '../dist/storage/record.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'data-dir');
const T = 1_700_000_000_000n;
const name = (base, ext) => `${String(base).padStart(20, '0')}${ext}`;

fs.rmSync(root, { recursive: true, force: true });

function writeSegmentedPartition(dir, segments) {
  fs.mkdirSync(dir, { recursive: true });
  let base = 0n;
  for (const records of segments) {
    const bytes = records.map(encodeRecord);
    // The first record of a segment is always indexed; these segments are far below the 4096-byte interval.
    const entry = Buffer.alloc(12);
    entry.writeBigUInt64BE(records[0].timestamp, 0);
    entry.writeUInt32BE(0, 8);
    fs.writeFileSync(path.join(dir, name(base, '.log')), Buffer.concat(bytes));
    fs.writeFileSync(path.join(dir, name(base, '.timeindex')), entry);
    fs.writeFileSync(path.join(dir, name(base, '.meta')), '1700000000.5');
    base += BigInt(bytes.reduce((n, b) => n + b.length, 0));
  }
  fs.writeFileSync(path.join(dir, 'recovery-checkpoint'), String(base));
  fs.writeFileSync(path.join(dir, '.clean-shutdown'), '1');
}

const text = (s) => Buffer.from(s, 'utf8');
fs.mkdirSync(path.join(root, 'orders'), { recursive: true });
fs.writeFileSync(path.join(root, 'orders', 'topic.config'), 'max_segment_size=200\n');
writeSegmentedPartition(path.join(root, 'orders', 'partition-1'), [
  [
    { attrs: 0, timestamp: T, key: text('order-1'), value: text('plain value') },
    { attrs: 1, timestamp: T + 1n, key: text('order-2'), value: compressValue(1, text('gzip value, gzip value')) },
    { attrs: 2, timestamp: T + 2n, key: text('order-3'), value: compressValue(2, text('snappy value snappy value')) },
  ],
  [
    {
      attrs: RecordAttr.TRANSACTIONAL,
      timestamp: T + 3n,
      key: text('order-4'),
      value: text('in a transaction'),
      producerId: 7n,
      epoch: 3,
    },
    {
      attrs: RecordAttr.CONTROL,
      timestamp: T + 4n,
      key: Buffer.alloc(0),
      value: encodeControlValue(ControlMarker.COMMIT, 7n, 3),
    },
    {
      attrs: 0,
      timestamp: T + 5n,
      key: text('order-5'),
      value: text('with headers'),
      headers: [
        { name: 'trace-id', value: text('abc123') },
        { name: 'source', value: text('fixture') },
      ],
    },
  ],
]);

const offsets = path.join(root, '__consumer_offsets');
fs.mkdirSync(offsets, { recursive: true });
fs.writeFileSync(
  path.join(offsets, 'topic.config'),
  'max_segment_size=8388608\nbackend=commitlog\ncleanup_policy=compact\n',
);
const commits = [
  ['billing', 31n],
  ['billing', 62n],
  ['old-group', 5n],
  ['old-group', undefined],
];
const logs = [];
for (let p = 1; p <= 16; p++) {
  logs.push(
    CommitLog.open(path.join(offsets, `partition-${p}`), {
      segmentBytes: INTERNAL_SEGMENT_BYTES,
      cleanupPolicy: 'compact',
    }),
  );
}
commits.forEach(([group, offset], i) => {
  const key = encodeOffsetKey({ group, topic: 'orders', partition: 1 });
  const value = offset === undefined ? Buffer.alloc(0) : encodeOffsetValue(offset);
  const { error } = logs[offsetsPartition(group) - 1].append([
    { attrs: 0, timestamp: T + 10n + BigInt(i), key, value },
  ]);
  if (error) throw error;
});
for (const log of logs) await log.close();
console.log(`wrote ${root}`);

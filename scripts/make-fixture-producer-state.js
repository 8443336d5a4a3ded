#!/usr/bin/env node
// Regenerates fixtures/producer-state, a small data dir for `crater state dump` tests. Run after the build:
// `npx tsc -p tsconfig.build.json && node scripts/make-fixture-producer-state.js`. The bytes are committed, so
// tests never depend on this script; test/cli/state-dump.test.ts documents what the tests expect of them.
//
//   __producer_state/   commit-log backend, 16 partitions, compact, 8 MiB (semantics.md §6), in log order:
//     identity "app" → pid 1 epoch 0, later epoch 1
//     identity "legacy" → pid 3 epoch 0, with a v1 memo (16 bytes) for "orders"
//     memo pid 1 "orders": v2 (seq 0), later v3 (base 1, 2 acks, epoch 1)
//     memo pid 1 "payments": v3 whose ack points at a topic this dir does not hold (a dangling ack for --against)
//     identity "gone" → pid 2 with a v2 memo, then expiry: allocator next_pid 4, identity and memo tombstones
//     identity "solo" → pid 4 epoch 0, with a v2 memo for "orders"
//   orders/             segmented backend, one partition, three records the "orders" memos point at
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CommitLog, INTERNAL_SEGMENT_BYTES } from '../dist/storage/commit-log.js';
import {
  ALLOCATOR_KEY,
  encodeAllocatorValue,
  encodeIdentityKey,
  encodeIdentityValue,
  encodeMemoKey,
  encodeMemoValue,
  producerStatePartition,
} from '../dist/storage/producer-state-codec.js';
import { encodeRecord } from '../dist/storage/record.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'producer-state');
const T = 1_700_000_000_000n;
fs.rmSync(root, { recursive: true, force: true });

// orders/partition-1: three records; on the segmented backend an offset is the record's byte position.
const ordersDir = path.join(root, 'orders', 'partition-1');
fs.mkdirSync(ordersDir, { recursive: true });
const orders = ['first', 'second', 'third'].map((v, i) =>
  encodeRecord({ attrs: 0, timestamp: T + BigInt(i), key: Buffer.from(`k${i}`), value: Buffer.from(v) }),
);
const offsets = [0n, BigInt(orders[0].length), BigInt(orders[0].length + orders[1].length)];
fs.writeFileSync(path.join(ordersDir, '00000000000000000000.log'), Buffer.concat(orders));
const entry = Buffer.alloc(12);
entry.writeBigUInt64BE(T, 0);
fs.writeFileSync(path.join(ordersDir, '00000000000000000000.timeindex'), entry);
fs.writeFileSync(path.join(root, 'orders', 'topic.config'), 'max_segment_size=1073741824\n');

const stateDir = path.join(root, '__producer_state');
fs.mkdirSync(stateDir, { recursive: true });
fs.writeFileSync(
  path.join(stateDir, 'topic.config'),
  'max_segment_size=8388608\nbackend=commitlog\ncleanup_policy=compact\n',
);
const logs = [];
for (let p = 1; p <= 16; p++) {
  logs.push(
    CommitLog.open(path.join(stateDir, `partition-${p}`), {
      segmentBytes: INTERNAL_SEGMENT_BYTES,
      cleanupPolicy: 'compact',
    }),
  );
}
let clock = T;
function put(key, value) {
  const log = logs[producerStatePartition(key) - 1];
  const result = log.append([{ attrs: 0, timestamp: clock++, key, value }]);
  if (result.error) throw result.error;
}
const TOMBSTONE = Buffer.alloc(0);

put(encodeIdentityKey('app'), encodeIdentityValue({ producerId: 1n, epoch: 0 }));
put(encodeIdentityKey('gone'), encodeIdentityValue({ producerId: 2n, epoch: 0 }));
put(encodeIdentityKey('legacy'), encodeIdentityValue({ producerId: 3n, epoch: 0 }));
const v1 = Buffer.alloc(16);
v1.writeUInt32BE(7, 0);
v1.writeBigUInt64BE(offsets[2], 4);
v1.writeUInt32BE(1, 12);
put(encodeMemoKey(3n, 'orders'), v1);
put(encodeMemoKey(1n, 'orders'), encodeMemoValue({ lastSeq: 0, lastOffset: offsets[0], lastPartition: 1, epoch: 0 }));
put(encodeMemoKey(2n, 'orders'), encodeMemoValue({ lastSeq: 4, lastOffset: offsets[0], lastPartition: 1, epoch: 0 }));
put(encodeIdentityKey('app'), encodeIdentityValue({ producerId: 1n, epoch: 1 }));
put(
  encodeMemoKey(1n, 'orders'),
  encodeMemoValue({
    lastSeq: 2,
    lastOffset: offsets[2],
    lastPartition: 1,
    epoch: 1,
    batch: {
      baseSeq: 1,
      acks: [
        { partition: 1, offset: offsets[1] },
        { partition: 1, offset: offsets[2] },
      ],
    },
  }),
);
put(
  encodeMemoKey(1n, 'payments'),
  encodeMemoValue({
    lastSeq: 0,
    lastOffset: 42n,
    lastPartition: 2,
    epoch: 1,
    batch: { baseSeq: 0, acks: [{ partition: 2, offset: 42n }] },
  }),
);
// Expiry of "gone": the watermark first, then the identity tombstone, then its memo tombstones.
put(Buffer.from(ALLOCATOR_KEY), encodeAllocatorValue(4n));
put(encodeIdentityKey('gone'), TOMBSTONE);
put(encodeMemoKey(2n, 'orders'), TOMBSTONE);
// A producer created after the expiry: it got the watermark's pid, and produced one single record.
put(encodeIdentityKey('solo'), encodeIdentityValue({ producerId: 4n, epoch: 0 }));
put(encodeMemoKey(4n, 'orders'), encodeMemoValue({ lastSeq: 0, lastOffset: offsets[1], lastPartition: 1, epoch: 0 }));

await Promise.all(logs.map((l) => l.close()));
console.log(`wrote ${root}`);

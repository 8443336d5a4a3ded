#!/usr/bin/env node
// Times one batched FETCH's CPU work in-process, stage by stage, as `crater bench throughput` shapes it: 4 segmented
// partitions of 25,000 records (8-byte keys, 100-byte values), fetches of 1,000 records (250 per partition) from
// start to end. Stages: the poll (log reads + record checks), the reply encoding, and the client's decode of the
// reply. Needs a build (`npx tsc -p tsconfig.build.json`); reads no network. Usage: node scripts/bench-fetch-path.js [rounds]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SegmentedLog } from '../dist/storage/segmented-log.js';
import { poll, perPartitionAllowance } from '../dist/broker/consumer/fetch-poller.js';
import { encodeRecordFrames } from '../dist/broker/consumer/record-frames.js';
import { FrameDecoder } from '../dist/protocol/frame-decoder.js';
import { decodeFetchReply } from '../dist/client/moonmq/fetch-ops.js';

const rounds = Number(process.argv[2] ?? 5);
const PARTITIONS = 4;
const PER_PARTITION = 25_000;
const FETCH = 1000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-fetch-bench-'));
const logs = [];
try {
  const value = randomBytes(100);
  for (let p = 1; p <= PARTITIONS; p++) {
    const log = SegmentedLog.openSync(path.join(dir, `partition-${p}`), { create: true });
    for (let b = 0; b < PER_PARTITION; b += 1000) {
      const batch = [];
      for (let i = b; i < b + 1000; i++)
        batch.push({
          attrs: 0,
          timestamp: BigInt(Date.now()),
          key: Buffer.from(`k${i.toString(36).padStart(7, '0')}`),
          value,
        });
      log.append(batch);
    }
    logs.push(log);
  }
  const correl = Buffer.alloc(16);
  const topicBytes = Buffer.from('bench-topic');
  const best = { poll: Infinity, encode: Infinity, decode: Infinity };
  for (let round = 0; round < rounds; round++) {
    const cursors = logs.map(() => 0n);
    let tPoll = 0,
      tEncode = 0,
      tDecode = 0,
      fetches = 0,
      records = 0;
    for (;;) {
      const targets = logs.map((log, i) => ({
        topic: 'bench-topic',
        topicBytes,
        partition: i + 1,
        log,
        cursor: cursors[i],
        ceiling: log.logEndOffset,
      }));
      const t0 = process.hrtime.bigint();
      const result = poll(targets, {
        maxRecords: FETCH,
        allowance: perPartitionAllowance(FETCH, targets.length),
        maxBytes: 8 * 1_048_576,
      });
      const t1 = process.hrtime.bigint();
      const frames = encodeRecordFrames(correl, result.partitions, { batched: true, headers: false, withOk: true });
      const t2 = process.hrtime.bigint();
      const bytes = Buffer.concat(Array.isArray(frames) ? frames : [frames]);
      const t3 = process.hrtime.bigint();
      const decoded = decodeFetchReply(new FrameDecoder().push(bytes), false).records;
      const t4 = process.hrtime.bigint();
      tPoll += Number(t1 - t0);
      tEncode += Number(t2 - t1);
      tDecode += Number(t4 - t3);
      if (decoded.length === 0) break;
      for (const p of result.partitions) cursors[p.target.partition - 1] = p.nextCursor;
      fetches++;
      records += decoded.length;
    }
    const us = (ns) => (ns / fetches / 1000).toFixed(1);
    best.poll = Math.min(best.poll, tPoll / fetches / 1000);
    best.encode = Math.min(best.encode, tEncode / fetches / 1000);
    best.decode = Math.min(best.decode, tDecode / fetches / 1000);
    console.log(
      `round ${round}: ${fetches} fetches, ${records} records; per fetch µs: poll ${us(tPoll)} encode ${us(tEncode)} decode ${us(tDecode)} total ${us(tPoll + tEncode + tDecode)}`,
    );
  }
  // The machine is shared and noisy: the fastest round of each stage is the steadiest figure.
  console.log(
    `best per fetch µs: poll ${best.poll.toFixed(1)} encode ${best.encode.toFixed(1)} decode ${best.decode.toFixed(1)}`,
  );
} finally {
  for (const log of logs) await log.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

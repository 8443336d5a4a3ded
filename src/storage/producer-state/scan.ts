/**
 * Finds the `__producer_state` logs under the given paths and reads their records, read-only. A path may be a data
 * dir (its `__producer_state` topic is used), the topic dir, a partition dir or segment files. Records come out in
 * replay order: partitions 1..16, then offset. Damaged records become findings and the scan carries on where the
 * length prefix still frames the next record.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type PartitionTarget, discover } from '../inspect/discover.js';
import type { Finding } from '../inspect/types.js';
import { PRODUCER_STATE_TOPIC } from '../producer-state-codec.js';
import { scanRecords, withReadOnlyFile } from '../record-scanner.js';
import type { StateFinding } from './types.js';

export interface RawStateRecord {
  file: string;
  partition: number | undefined;
  offset: bigint;
  position: number;
  timestamp: bigint;
  key: Buffer;
  value: Buffer;
  /** File byte where the stored value starts (it ends 4 bytes before the record, before the payload CRC). */
  valuePosition?: number | undefined;
}

function targetsFor(input: string, findings: StateFinding[]): PartitionTarget[] {
  const inner = path.join(input, PRODUCER_STATE_TOPIC);
  const where = fs.existsSync(inner) && fs.statSync(inner).isDirectory() ? inner : input;
  const found: Finding[] = [];
  const targets = discover(where, found);
  for (const f of found) findings.push({ kind: 'not-producer-state', file: f.file, position: 0, message: f.message });
  // A partition dir or segment file named on its own is decoded by content, whatever its parent is called (a copy in
  // /tmp/x/partition-3 is still producer state); the decoder reports records that fit no layout. Under a data or
  // topic dir only the __producer_state topic is read.
  const named =
    targets.length === 1 &&
    (targets[0]!.dir === path.resolve(where) || targets[0]!.dir === where || targets[0]!.dir === path.dirname(where));
  const own = named ? targets : targets.filter((t) => t.topic === undefined || t.topic === PRODUCER_STATE_TOPIC);
  if (targets.length > 0 && own.length === 0) {
    findings.push({
      kind: 'not-producer-state',
      file: input,
      position: 0,
      message: `no ${PRODUCER_STATE_TOPIC} partitions here`,
    });
  }
  return own;
}

export function scanProducerState(
  paths: readonly string[],
  findings: StateFinding[],
): { records: RawStateRecord[]; count: number } {
  const targets = paths.flatMap((p) => targetsFor(p, findings));
  targets.sort((a, b) => (a.partition ?? 0) - (b.partition ?? 0));
  const records: RawStateRecord[] = [];
  for (const target of targets) {
    for (const seg of target.segments) {
      if (!seg.log) continue;
      const file = seg.log;
      withReadOnlyFile(file, (fd, size) => {
        let offset = seg.base;
        for (const item of scanRecords(fd, size)) {
          if (item.ok) {
            const r = item.record;
            records.push({
              file,
              partition: target.partition,
              offset,
              position: item.position,
              timestamp: r.timestamp,
              key: r.key,
              value: r.value,
              valuePosition: item.position + r.size - 4 - r.value.length,
            });
          } else {
            const torn = item.problem === 'short-length-prefix' || item.problem === 'short-body';
            findings.push({
              kind: torn ? 'truncated-log' : 'corrupt-record',
              file,
              offset,
              position: item.position,
              message: item.detail,
            });
          }
          offset++;
        }
      });
    }
  }
  return { records, count: records.length };
}

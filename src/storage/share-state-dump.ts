/**
 * `dumpShareState`: the read-only decoder behind `crater share state`. Finds the `__share_group_state` logs under a
 * data dir (or the topic dir, a partition dir, segment files), decodes every record (share-partition snapshots,
 * group configs, tombstones) and shows the compacted last-wins view a broker replays, or with `history` every
 * record in log order. Damaged records and keys or values that fit no layout are findings. Nothing is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type PartitionTarget, discover } from './inspect/discover.js';
import type { Finding } from './inspect/types.js';
import { scanRecords, withReadOnlyFile } from './record-scanner.js';
import {
  RecordState,
  SHARE_STATE_TOPIC,
  type StoredRun,
  ShareStateKind,
  decodeGroupConfig,
  decodeShareStateKey,
  decodeSnapshot,
} from './share-state-codec.js';

export interface ShareStateDumpEntry {
  internalPartition: number | undefined;
  offset: bigint;
  kind: 'partition' | 'config' | 'tombstone' | 'undecodable';
  group: string;
  topic?: string | undefined;
  partition?: number | undefined;
  spso?: bigint | undefined;
  speo?: bigint | undefined;
  /** Partition snapshots: the in-flight runs (first and last record start, record count), state name and delivery count. */
  runs?: Array<{ first: bigint; last: bigint; records: number; state: string; deliveryCount: number }> | undefined;
  config?: Record<string, string> | undefined;
  /** One line for humans. */
  detail: string;
}

export interface ShareStateFinding {
  kind: 'corrupt-record' | 'truncated-log' | 'undecodable' | 'not-share-state';
  file: string;
  offset?: bigint | undefined;
  message: string;
}

export interface ShareStateDumpReport {
  view: 'compacted' | 'history';
  entries: ShareStateDumpEntry[];
  findings: ShareStateFinding[];
  summary: { records: number; groups: number; sharePartitions: number; findings: number };
}

const stateNames: Record<number, string> = Object.fromEntries(
  Object.entries(RecordState).map(([k, v]) => [v, k.toLowerCase()]),
);

function targetsFor(input: string, findings: ShareStateFinding[]): PartitionTarget[] {
  const inner = path.join(input, SHARE_STATE_TOPIC);
  const where = fs.existsSync(inner) && fs.statSync(inner).isDirectory() ? inner : input;
  const found: Finding[] = [];
  const targets = discover(where, found);
  for (const f of found) findings.push({ kind: 'not-share-state', file: f.file, message: f.message });
  const own = targets.filter((t) => t.topic === undefined || t.topic === SHARE_STATE_TOPIC);
  if (own.length === 0)
    findings.push({ kind: 'not-share-state', file: input, message: `no ${SHARE_STATE_TOPIC} partitions here` });
  return own.sort((a, b) => (a.partition ?? 0) - (b.partition ?? 0));
}

function decodeEntry(
  internalPartition: number | undefined,
  offset: bigint,
  key: Buffer,
  value: Buffer,
  file: string,
  findings: ShareStateFinding[],
): ShareStateDumpEntry {
  const k = decodeShareStateKey(key);
  if (!k.ok) {
    findings.push({ kind: 'undecodable', file, offset, message: `key: ${k.detail}` });
    return { internalPartition, offset, kind: 'undecodable', group: '', detail: `key ${key.toString('hex')}` };
  }
  const base = { internalPartition, offset, group: k.value.group };
  const target =
    k.value.kind === ShareStateKind.PARTITION ? { topic: k.value.topic, partition: k.value.partition } : {};
  if (value.length === 0) return { ...base, ...target, kind: 'tombstone', detail: 'tombstone' };
  if (k.value.kind === ShareStateKind.CONFIG) {
    const c = decodeGroupConfig(value);
    if (!c.ok) {
      findings.push({ kind: 'undecodable', file, offset, message: `config of '${k.value.group}': ${c.detail}` });
      return { ...base, kind: 'undecodable', detail: c.detail };
    }
    return {
      ...base,
      kind: 'config',
      config: Object.fromEntries(c.value),
      detail: c.value.map(([a, b]) => `${a}=${b}`).join(' '),
    };
  }
  const s = decodeSnapshot(value);
  if (!s.ok) {
    findings.push({
      kind: 'undecodable',
      file,
      offset,
      message: `snapshot of '${k.value.group}' ${k.value.topic}/${k.value.partition}: ${s.detail}`,
    });
    return { ...base, ...target, kind: 'undecodable', detail: s.detail };
  }
  const runs = s.value.runs.map((r: StoredRun) => ({
    first: r.first,
    last: r.last,
    records: r.records,
    state: stateNames[r.state] ?? String(r.state),
    deliveryCount: r.deliveryCount,
  }));
  const counts = new Map<string, number>();
  let inFlight = 0;
  for (const r of runs) {
    counts.set(r.state, (counts.get(r.state) ?? 0) + r.records);
    inFlight += r.records;
  }
  const detail = `spso ${s.value.spso} speo ${s.value.speo} in-flight ${inFlight}${[...counts].map(([n, c]) => ` ${n} ${c}`).join('')}`;
  return { ...base, ...target, kind: 'partition', spso: s.value.spso, speo: s.value.speo, runs, detail };
}

export function dumpShareState(
  paths: readonly string[],
  options: { history?: boolean; group?: string } = {},
): ShareStateDumpReport {
  const findings: ShareStateFinding[] = [];
  const all: Array<{ key: string; entry: ShareStateDumpEntry }> = [];
  for (const target of paths.flatMap((p) => targetsFor(p, findings))) {
    for (const seg of target.segments) {
      if (!seg.log) continue;
      const file = seg.log;
      withReadOnlyFile(file, (fd, size) => {
        let offset = seg.base;
        for (const item of scanRecords(fd, size)) {
          if (item.ok)
            all.push({
              key: item.record.key.toString('hex'),
              entry: decodeEntry(target.partition, offset, item.record.key, item.record.value, file, findings),
            });
          else {
            const torn = item.problem === 'short-length-prefix' || item.problem === 'short-body';
            findings.push({ kind: torn ? 'truncated-log' : 'corrupt-record', file, offset, message: item.detail });
          }
          offset++;
        }
      });
    }
  }
  let entries: ShareStateDumpEntry[];
  if (options.history) entries = all.map((x) => x.entry);
  else {
    const last = new Map<string, ShareStateDumpEntry>();
    for (const { key, entry } of all) {
      last.delete(key);
      if (entry.kind !== 'tombstone') last.set(key, entry);
    }
    entries = [...last.values()];
  }
  if (options.group !== undefined) entries = entries.filter((e) => e.group === options.group);
  const groups = new Set(entries.map((e) => e.group));
  return {
    view: options.history ? 'history' : 'compacted',
    entries,
    findings,
    summary: {
      records: all.length,
      groups: groups.size,
      sharePartitions: entries.filter((e) => e.kind === 'partition').length,
      findings: findings.length,
    },
  };
}

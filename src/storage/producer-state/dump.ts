/**
 * `dumpProducerState`: the read-only library behind `crater state dump`. It decodes every `__producer_state`
 * record, builds the compacted last-wins view replay would see (or, with `history`, every record in log order),
 * filters by producer and topic, and collects findings: damaged records, undecodable keys and values, v3 tails
 * that are not whole, inconsistent batch memos, memos from an epoch ahead of their identity and, with `against`,
 * acks that point at no record of the topic they name ("no ack" memos name none). Nothing is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { inspectPaths } from '../inspect/inspect.js';
import type { MemoAck } from '../producer-state-codec.js';
import { decodeStateRecord } from './decode.js';
import { scanProducerState } from './scan.js';
import type { StateDumpOptions, StateDumpReport, StateDumpSummary, StateEntry, StateFinding } from './types.js';

export * from './types.js';

/** The last record per key; a tombstone removes the key (as replay does). */
function compact(entries: readonly StateEntry[]): StateEntry[] {
  const last = new Map<string, StateEntry>();
  for (const e of entries) {
    last.delete(e.key);
    if (!e.tombstone) last.set(e.key, e);
  }
  return [...last.values()].sort(
    (a, b) => (a.partition ?? 0) - (b.partition ?? 0) || (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0),
  );
}

function checkEpochs(current: readonly StateEntry[], findings: StateFinding[]): void {
  const epochByPid = new Map<bigint, number>();
  for (const e of current)
    if (e.kind === 'identity' && e.producerId !== undefined && e.epoch !== undefined)
      epochByPid.set(e.producerId, e.epoch);
  for (const e of current) {
    if (e.kind !== 'memo' || e.epoch === undefined || e.producerId === undefined) continue;
    const identityEpoch = epochByPid.get(e.producerId);
    if (identityEpoch !== undefined && e.epoch > identityEpoch) {
      findings.push({
        kind: 'epoch-ahead',
        file: e.file,
        offset: e.offset,
        position: e.position,
        message: `memo of pid ${e.producerId} for '${e.topic}' has epoch ${e.epoch}, its identity is at epoch ${identityEpoch}`,
      });
    }
  }
}

function matcher(options: StateDumpOptions, all: readonly StateEntry[]): (e: StateEntry) => boolean {
  const { producer, topic } = options;
  let pids: Set<bigint> | undefined;
  let name: string | undefined;
  if (producer !== undefined) {
    if (/^\d+$/.test(producer)) pids = new Set([BigInt(producer)]);
    else {
      name = producer;
      pids = new Set(
        all
          .filter((e) => e.kind === 'identity' && e.producerName === producer && e.producerId !== undefined)
          .map((e) => e.producerId!),
      );
    }
  }
  return (e) => {
    if (topic !== undefined && !(e.kind === 'memo' && e.topic === topic)) return false;
    if (pids === undefined) return true;
    if (e.kind === 'identity')
      return (name !== undefined && e.producerName === name) || (e.producerId !== undefined && pids.has(e.producerId));
    return e.kind === 'memo' && e.producerId !== undefined && pids.has(e.producerId);
  };
}

/** Offsets of the intact records of one partition of a data dir's topic (undefined when the partition is absent). */
function recordOffsets(
  dataDir: string,
  topic: string,
  partition: number,
  cache: Map<string, Set<bigint> | undefined>,
): Set<bigint> | undefined {
  const dir = path.join(dataDir, topic, `partition-${partition}`);
  if (!cache.has(dir)) {
    if (!fs.existsSync(dir)) cache.set(dir, undefined);
    else {
      const report = inspectPaths([dir], { level: 'record' });
      const offsets = new Set<bigint>();
      for (const p of report.partitions)
        for (const s of p.segments) for (const r of s.records ?? []) if (r.crcValid) offsets.add(r.offset);
      cache.set(dir, offsets);
    }
  }
  return cache.get(dir);
}

function checkAgainst(dataDir: string, shown: readonly StateEntry[], findings: StateFinding[]): number {
  const cache = new Map<string, Set<bigint> | undefined>();
  let checked = 0;
  for (const e of shown) {
    if (e.kind !== 'memo' || !e.memo || e.topic === undefined || e.memo.noAck) continue;
    const acks: MemoAck[] = e.memo.acks ?? [{ partition: e.memo.lastPartition, offset: e.memo.lastOffset }];
    for (const [i, ack] of acks.entries()) {
      checked++;
      const offsets = recordOffsets(dataDir, e.topic, ack.partition, cache);
      if (offsets?.has(ack.offset)) continue;
      const which = e.memo.acks ? `ack ${i} (seq ${(e.memo.baseSeq ?? 0) + i})` : `last ack (seq ${e.memo.lastSeq})`;
      findings.push({
        kind: 'dangling-ack',
        file: e.file,
        offset: e.offset,
        position: e.position,
        message: `pid ${e.producerId} '${e.topic}' ${which} points at ${ack.partition}@${ack.offset}: ${
          offsets ? 'no record starts there' : `no ${e.topic}/partition-${ack.partition} in ${dataDir}`
        }`,
      });
    }
  }
  return checked;
}

function summarize(
  records: number,
  current: readonly StateEntry[],
  all: readonly StateEntry[],
  shown: readonly StateEntry[],
  findings: readonly StateFinding[],
  acksChecked: number,
): StateDumpSummary {
  const summary: StateDumpSummary = {
    records,
    shown: shown.length,
    identities: current.filter((e) => e.kind === 'identity').length,
    memos: current.filter((e) => e.kind === 'memo').length,
    tombstones: all.filter((e) => e.tombstone).length,
    memoVersions: {},
    nextPid: current.find((e) => e.kind === 'allocator')?.nextPid,
    acksChecked,
    findings: findings.length,
    findingsByKind: {},
  };
  for (const e of current)
    if (e.memo) summary.memoVersions[`v${e.memo.version}`] = (summary.memoVersions[`v${e.memo.version}`] ?? 0) + 1;
  for (const f of findings) summary.findingsByKind[f.kind] = (summary.findingsByKind[f.kind] ?? 0) + 1;
  return summary;
}

export function dumpProducerState(paths: readonly string[], options: StateDumpOptions = {}): StateDumpReport {
  const findings: StateFinding[] = [];
  const { records, count } = scanProducerState(paths, findings);
  const all = records.map((r) => decodeStateRecord(r, findings));
  const current = compact(all);
  checkEpochs(current, findings);
  const view = options.history ? all : current;
  const shown = view.filter(matcher(options, all));
  const acksChecked = options.against !== undefined ? checkAgainst(options.against, shown, findings) : 0;
  return {
    paths: [...paths],
    view: options.history ? 'history' : 'compacted',
    entries: shown,
    findings,
    summary: summarize(count, current, all, shown, findings, acksChecked),
  };
}

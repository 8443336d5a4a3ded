/**
 * The figures of one throughput phase, from its timing and the embedded broker's stats at its start and end: rates,
 * latency, peak RSS, fsyncs and what they cost, CPU per record on each side.
 */
import type { FsyncWindow } from './fsync-timer.js';
import type { LatencyRecorder } from './latency.js';
import { MB, type Percentiles, perSecond } from './stats.js';
import type { BenchTarget } from './target.js';

export interface PhaseFigures {
  records: number;
  bytes: number;
  /** Request frames (PRODUCE_BATCH or FETCH). */
  requests: number;
  wallMs: number;
  recordsPerSec: number;
  mbPerSec: number;
  /** Per request, from its intended send time, milliseconds. */
  latencyMs: Percentiles;
  /** The broker child's highest sampled RSS during the phase; null for an external broker. */
  brokerPeakRssBytes: number | null;
  /** fsyncs of user topics in the phase (offsets and other `__*` writes left out); null for an external broker. */
  fsyncs: number | null;
  /** records ÷ fsyncs: how many records one fsync covered (group commit at work when above 1); null without fsyncs. */
  recordsPerFsync: number | null;
  /**
   * How long the broker's fsyncs of the phase took, call to callback (threadpool queue included): the disk's share
   * of the latency. `busyShare` is their summed time ÷ (wall time × partitions), near 1 when every partition had an
   * fsync running throughout (fsync-bound). Null for an external broker or a phase without fsyncs.
   */
  brokerFsync: { count: number; meanMs: number; p50Ms: number; p99Ms: number; busyShare: number } | null;
  /** CPU time (user + system) the broker process spent in the phase, per record, in ns; null for an external broker. */
  brokerCpuNsPerRecord: number | null;
  /** CPU time the bench process (the client side) spent in the phase, per record, in ns. */
  clientCpuNsPerRecord: number;
}

export interface PhaseTiming {
  ms: number;
  latency: LatencyRecorder;
  peak: number | null;
  fsyncs: number | null;
  fsyncWindow: FsyncWindow | null;
  brokerCpuMs: number | null;
  clientCpuMs: number;
}

export function phaseFigures(
  bytesPerRecord: number,
  n: number,
  requests: number,
  t: PhaseTiming,
  partitions: number,
): PhaseFigures {
  return {
    records: n,
    bytes: Math.round(n * bytesPerRecord),
    requests,
    wallMs: t.ms,
    recordsPerSec: perSecond(n, t.ms),
    mbPerSec: perSecond(n * bytesPerRecord, t.ms) / MB,
    latencyMs: t.latency.percentiles(),
    brokerPeakRssBytes: t.peak,
    fsyncs: t.fsyncs,
    recordsPerFsync: t.fsyncs ? n / t.fsyncs : null,
    brokerFsync: fsyncFigures(t.fsyncWindow, t.ms, partitions),
    brokerCpuNsPerRecord: t.brokerCpuMs === null ? null : Math.round((t.brokerCpuMs * 1e6) / n),
    clientCpuNsPerRecord: Math.round((t.clientCpuMs * 1e6) / n),
  };
}

function fsyncFigures(w: FsyncWindow | null, wallMs: number, partitions: number): PhaseFigures['brokerFsync'] {
  if (!w || w.count === 0) return null;
  return {
    count: w.count,
    meanMs: w.totalMs / w.count,
    p50Ms: w.ms.p50,
    p99Ms: w.ms.p99,
    busyShare: wallMs > 0 ? w.totalMs / (wallMs * partitions) : 0,
  };
}

export function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

export function diff(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a - b;
}

export interface Meter {
  fsyncs: number | null;
  fsyncWindow: FsyncWindow | null;
  peak: number | null;
  cpuMs: number | null;
}

/** Broker stats when embedded; `reset` opens a new peak-RSS and fsync-timing window. */
export async function meter(target: BenchTarget, reset: boolean): Promise<Meter> {
  if (!target.embedded) return { fsyncs: null, fsyncWindow: null, peak: null, cpuMs: null };
  const s = reset ? await target.embedded.resetPeak() : await target.embedded.stats();
  return { fsyncs: s.userFsyncCount, fsyncWindow: s.fsyncs, peak: s.peakRssBytes, cpuMs: s.cpuMs };
}

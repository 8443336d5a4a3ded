/**
 * `bench throughput`'s options, their defaults, and the checked params a report carries (every bound a UsageError).
 */
import { UsageError } from '../errors.js';
import { Caps, Limits } from '../protocol/limits.js';
import { type BenchCodec, KEY_BYTES, type TargetOptions } from './target.js';

export interface ThroughputOptions extends TargetOptions {
  /** Records to produce (ignored when durationMs is given). */
  records?: number;
  durationMs?: number;
  batchSize?: number;
  inFlight?: number;
  connections?: number;
  fetchSize?: number;
  /** FETCHes pipelined on the fetching connection. */
  fetchInFlight?: number;
  /** Restart the embedded broker between the phases, so the fetch reads a log this process did not write. */
  restartBeforeFetch?: boolean;
  /**
   * How the client decodes a FETCH reply: 'records' (default) as a FetchedRecord per record (the library's default
   * `fetch` result), or 'table' as a FetchTable, the positions of every record in the reply (what `crater consume`
   * reads, with all the checks of the decoder). A backend with no table (Kafka) gives records either way.
   */
  fetchDecode?: FetchDecode;
  valueSize?: number;
  partitions?: number;
  codec?: BenchCodec;
  /** Open-loop schedule in records/s over all connections; absent: as fast as the in-flight window allows. */
  ratePerSec?: number;
  /**
   * Also produce into a topic with this many partitions, in rounds interleaved with the main phase's, and report the
   * main phase's records/s as a ratio of it: issue 18's "64 partitions at least half of 4".
   */
  vsPartitions?: number;
  /** Sample the disk's floor beside the produce phase (throughput-floor.ts; default true, embedded broker only). */
  diskFloor?: boolean;
  /** Records produced and fetched untimed before the phases (default 20,000; 0: none). */
  warmupRecords?: number;
  onProgress?: (step: string) => void;
}

/** The options checked and defaulted (throughputParams). */
export interface ThroughputParams {
  records: number | null;
  durationMs: number | null;
  batchSize: number;
  inFlight: number;
  connections: number;
  fetchSize: number;
  fetchInFlight: number;
  restartBeforeFetch: boolean;
  fetchDecode: FetchDecode;
  valueSize: number;
  keySize: number;
  partitions: number;
  codec: BenchCodec;
  ratePerSec: number | null;
  vsPartitions: number | null;
}

export type FetchDecode = 'table' | 'records';

export const ThroughputDefaults = {
  records: 100_000,
  batchSize: 1000,
  inFlight: 1,
  connections: 1,
  fetchSize: 1000,
  fetchInFlight: 1,
  fetchDecode: 'records',
  valueSize: 100,
  partitions: 4,
  codec: 'none',
} as const;

function positiveInt(name: string, v: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(v) || v < 1 || v > max) throw new UsageError(`${name} must be an integer 1..${max}, got ${v}`);
  return v;
}

/** The options checked and defaulted into the report's params (every bound is a UsageError). */
export function throughputParams(options: ThroughputOptions): ThroughputParams {
  const durationMs = options.durationMs === undefined ? undefined : positiveInt('duration (ms)', options.durationMs);
  const records =
    durationMs === undefined ? positiveInt('records', options.records ?? ThroughputDefaults.records) : undefined;
  const ratePerSec = options.ratePerSec;
  if (ratePerSec !== undefined && !(ratePerSec > 0)) throw new UsageError(`rate must be positive, got ${ratePerSec}`);
  return {
    records: records ?? null,
    durationMs: durationMs ?? null,
    batchSize: positiveInt('batch size', options.batchSize ?? ThroughputDefaults.batchSize, Limits.batchRecords),
    inFlight: positiveInt('in-flight', options.inFlight ?? ThroughputDefaults.inFlight, 1024),
    connections: positiveInt('connections', options.connections ?? ThroughputDefaults.connections, 256),
    fetchSize: positiveInt('fetch size', options.fetchSize ?? ThroughputDefaults.fetchSize, 0xffff_ffff),
    fetchInFlight: positiveInt('fetch in-flight', options.fetchInFlight ?? ThroughputDefaults.fetchInFlight, 64),
    restartBeforeFetch: options.restartBeforeFetch ?? false,
    fetchDecode: options.fetchDecode ?? ThroughputDefaults.fetchDecode,
    // A value is a wire string, capped at 64 KiB (wire.md §2.2); larger batches are split into frames under 1 MiB.
    valueSize: positiveInt('value size', options.valueSize ?? ThroughputDefaults.valueSize, Caps.default),
    keySize: KEY_BYTES,
    partitions: positiveInt('partitions', options.partitions ?? ThroughputDefaults.partitions, 1024),
    codec: options.codec ?? ThroughputDefaults.codec,
    ratePerSec: ratePerSec ?? null,
    vsPartitions: options.vsPartitions === undefined ? null : positiveInt('vs-partitions', options.vsPartitions, 1024),
  };
}

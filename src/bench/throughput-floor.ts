/**
 * The disk's ceiling for `bench throughput`'s produce phase, measured beside it: what one batch costs at the least
 * on this machine with no broker in the way. A batch over P partitions is acknowledged only after P fsyncs (one per
 * touched partition, semantics.md), each of a file that was just appended its share of the batch; so one batch in
 * flight cannot go faster than one loopback round trip plus those P fsyncs run at once (floors.ts's batch floor,
 * with the batch's own on-disk bytes per partition).
 *
 * The floor is sampled in two rounds, before the produce phase and after the fetch phase, in the directory the
 * broker stores into, so it sees the same disk in the same stretch of time. `ceilingRecordsPerSec` is given for one
 * batch in flight on one connection only: with more, group commit may share an fsync between batches, and a single
 * batch's floor bounds nothing.
 */
import path from 'node:path';
import type { ProducerRecord } from '../client/moonmq/produce-ops.js';
import { recordSize } from '../storage/record.js';
import { FloorSampler } from './floors.js';
import type { Percentiles } from './stats.js';
import type { BenchTarget } from './target.js';

export interface ProduceFloor {
  /** Partitions the batch touches: the fsyncs run at once. */
  files: number;
  /** On-disk bytes (record framing included) each partition is appended per batch. */
  bytesPerFile: number;
  /** The probe's fsyncs of those `files` at once, ms. */
  fsyncMs: Percentiles;
  /** Loopback round trip p50, ms. */
  rttMsP50: number;
  /** rttMsP50 + fsyncMs.p50: one batch at the least. */
  batchMs: number;
  /** batchSize ÷ batchMs, records/s; null with more than one batch in flight in all, or a rate. */
  ceilingRecordsPerSec: number | null;
  /** The phase's records/s ÷ the ceiling; null without a ceiling. */
  ofCeiling: number | null;
}

/** How the produce phase lays a batch on disk and how many batches it keeps in flight. */
export interface PhaseShape {
  batchSize: number;
  partitions: number;
  inFlight: number;
  connections: number;
  ratePerSec: number | null;
}

const SAMPLES = 80;
const ROUNDS = 2;

/** A sampler over the embedded broker's disk; undefined for an external broker (its disk is not here). */
export async function openProduceFloor(
  target: BenchTarget,
  batch: readonly ProducerRecord[],
  shape: PhaseShape,
): Promise<ProduceFloorSampler | undefined> {
  if (!target.embedded) return undefined;
  const bytesPerFile = Math.ceil(onDiskBytes(batch) / shape.partitions);
  const layout = { files: shape.partitions, bytesPerFile };
  const sampler = await FloorSampler.open(path.dirname(target.embedded.dataDir), {
    samples: SAMPLES,
    recordBytes: 1,
    batch: layout,
  });
  return new ProduceFloorSampler(sampler, shape);
}

export class ProduceFloorSampler {
  private round = 0;

  constructor(
    private readonly sampler: FloorSampler,
    private readonly shape: PhaseShape,
  ) {}

  /** The next of the two rounds. */
  async sample(): Promise<void> {
    if (this.round < ROUNDS) await this.sampler.sampleRound(this.round++, ROUNDS);
  }

  result(measuredRecordsPerSec: number): ProduceFloor {
    const floors = this.sampler.result();
    const b = floors.batch!;
    const { batchSize, inFlight, connections, ratePerSec } = this.shape;
    const bounded = inFlight * connections === 1 && ratePerSec === null && b.ms > 0;
    const ceiling = bounded ? (batchSize * 1000) / b.ms : null;
    return {
      files: b.files,
      bytesPerFile: b.bytesPerFile,
      fsyncMs: b.fsyncMs,
      rttMsP50: floors.rttMs.p50,
      batchMs: b.ms,
      ceilingRecordsPerSec: ceiling,
      ofCeiling: ceiling === null ? null : measuredRecordsPerSec / ceiling,
    };
  }

  close(): Promise<void> {
    return this.sampler.close();
  }
}

/** The batch's bytes as the segment files hold them (storage.md's record framing around key and value). */
function onDiskBytes(batch: readonly ProducerRecord[]): number {
  let n = 0;
  for (const r of batch) {
    n += recordSize({ attrs: 0, timestamp: 0n, key: bytes(r.key), value: bytes(r.value), headers: r.headers });
  }
  return n;
}

function bytes(v: Buffer | string | undefined): Uint8Array {
  return v === undefined ? new Uint8Array(0) : typeof v === 'string' ? Buffer.from(v) : v;
}

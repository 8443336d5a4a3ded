/**
 * One poll over the partitions a consumer reads (semantics.md §11): for each partition, read from its cursor while
 * fewer than `allowance` data records were taken and the offset is below the read ceiling, stopping the whole poll
 * at `maxRecords` or at the byte budget (with `framed`, counted as reply bytes, so a reply stays under the send cap
 * and the client's 16 MiB frame limit). Control records, and under read_committed the records of aborted
 * transactions, are stepped over and never counted. Values are decompressed here, so every value that leaves the
 * poll is plaintext. The poll reads only; the caller moves the cursors once the records were handed to the send layer.
 */
import { CodecError, decompressValue } from '../../protocol/compression.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { headersSize } from '../../protocol/headers.js';
import { u32At } from '../../protocol/raw-ints.js';
import type { LogRecord, PartitionLog, ReadScratch } from '../../storage/partition-log.js';
import { PLAIN_RECORD_OVERHEAD, type RawRun } from '../../storage/raw-reader.js';
import { LENGTH_PREFIX_BYTES, RecordAttr } from '../../storage/record.js';
import { HandlerError } from '../handler.js';

export interface PollTarget {
  topic: string;
  /** UTF-8 bytes of the topic name, encoded once per poll. */
  topicBytes: Buffer;
  partition: number;
  log: PartitionLog;
  /** Where this consumer's group stands (in-memory cursor, else committed offset, else 0). */
  cursor: bigint;
  /** The read ceiling: the LEO, or min(LEO, LSO) under read_committed. */
  ceiling: bigint;
  /** read_committed only, and only when the partition has aborted ranges: true for a record to skip. */
  isAborted?: ((offset: bigint, producerId: bigint, epoch: number) => boolean) | undefined;
}

export interface PolledPartition {
  target: PollTarget;
  /** With `PollOptions.raw`: the plain records read as on-disk bytes, in order, before every one in `records`. */
  runs?: RawRun[] | undefined;
  records: LogRecord[];
  /** Plaintext values, parallel to `records`. */
  values: Buffer[];
  /** The first record not handed out: what the cursor moves to and what gets committed. */
  nextCursor: bigint;
}

export interface PollOptions {
  maxRecords: number;
  allowance: number;
  /**
   * The poll stops once its records passed this many bytes: keys and values, plus with `framed` what each record
   * adds to the reply frame (its entry's fixed fields, the topic, a header block), so the reply itself stays near it.
   */
  maxBytes: number;
  framed?: boolean;
  /**
   * Take plain records as runs of on-disk bytes (`PolledPartition.runs`) where the log offers them: the same records
   * as without, for an encoder that copies them straight into the reply.
   */
  raw?: boolean;
  /**
   * With `raw`: the buffer raw reads fill instead of allocating one each. The poll starts it over (so the runs of the
   * previous poll that used it are gone: encode them before polling again) and sizes it to what the last poll read.
   */
  scratch?: ReadScratch | undefined;
}

export interface PollResult {
  /** Partitions that yielded records or whose cursor moved (past control records, up to the log start, to the LEO). */
  partitions: PolledPartition[];
  total: number;
  bytes: number;
}

export const DEFAULT_POLL_BYTES = 8 * 1_048_576;

/**
 * Reply bytes a record costs beyond its key, value and topic, as an upper bound over both reply shapes: a RECORD
 * frame's length, op and correl (21) plus the entry's topic length, partition, offset, timestamp, key and value
 * lengths (32).
 */
export const FRAMED_RECORD_OVERHEAD = 21 + 32;

/** max(1, ceil(maxRecords / P)) over the P partitions the consumer reads. */
export function perPartitionAllowance(maxRecords: number, partitionCount: number): number {
  if (partitionCount <= 0) return 1;
  return Math.max(1, Math.ceil(maxRecords / partitionCount));
}

/** The largest scratch a poll keeps: its byte budget's default and a record over it. */
const MAX_SCRATCH_BYTES = 2 * DEFAULT_POLL_BYTES;

export function poll(targets: readonly PollTarget[], opts: PollOptions): PollResult {
  const result: PollResult = { partitions: [], total: 0, bytes: 0 };
  if (opts.scratch) resetScratch(opts.scratch);
  for (const target of targets) {
    if (result.total >= opts.maxRecords || result.bytes >= opts.maxBytes) break;
    const stop = pollPartition(target, opts, result);
    if (stop) break;
  }
  return result;
}

/** Empties the scratch, first growing it to what the previous poll wanted of it (within MAX_SCRATCH_BYTES). */
function resetScratch(s: ReadScratch): void {
  if (s.demand > s.buf.length && s.buf.length < MAX_SCRATCH_BYTES) {
    s.buf = Buffer.allocUnsafeSlow(Math.min(MAX_SCRATCH_BYTES, s.demand + (s.demand >>> 3)));
  }
  s.used = 0;
  s.demand = 0;
}

/** One partition's progress within a poll. */
interface PartitionPoll {
  target: PollTarget;
  ceiling: bigint;
  cursor: bigint;
  runs: RawRun[];
  /** Records in `runs`. */
  rawCount: number;
  records: LogRecord[];
  values: Buffer[];
  /** Bytes one record costs in the reply beyond its key and value (`PollOptions.framed`), topic included. */
  overhead: number;
}

/** What one record did to the partition's poll. */
const enum Step {
  /** Taken or stepped over: go on. */
  Next,
  /** The partition (or the whole poll's count or byte budget) is done. */
  Stop,
  /** A value failed to decompress after records were collected: the whole poll stops. */
  Halt,
}

/** Returns true when the whole poll must stop (a value failed to decompress after records were collected). */
function pollPartition(target: PollTarget, opts: PollOptions, result: PollResult): boolean {
  const { log } = target;
  let cursor = target.cursor;
  if (cursor < log.logStartOffset) cursor = log.logStartOffset;
  else if (cursor > log.logEndOffset) cursor = log.logEndOffset;
  const pp: PartitionPoll = {
    target,
    ceiling: target.ceiling < log.logEndOffset ? target.ceiling : log.logEndOffset,
    cursor,
    runs: [],
    rawCount: 0,
    records: [],
    values: [],
    overhead: opts.framed ? FRAMED_RECORD_OVERHEAD + target.topicBytes.length : 0,
  };
  const halted = readPartition(pp, opts, result);
  const { records } = pp;
  const taken = pp.rawCount + records.length;
  result.total += taken;
  if (taken > 0 || pp.cursor !== target.cursor) {
    const polled: PolledPartition = { target, records, values: pp.values, nextCursor: pp.cursor };
    if (pp.runs.length > 0) polled.runs = pp.runs;
    result.partitions.push(polled);
  }
  return halted;
}

/** Reads from the cursor until the allowance, the ceiling or a budget is reached; true when the poll must halt. */
function readPartition(pp: PartitionPoll, opts: PollOptions, result: PollResult): boolean {
  const { log } = pp.target;
  if (opts.raw && log.readRaw && readRawRuns(pp, log, opts, result)) return false;
  while (pp.rawCount + pp.records.length < opts.allowance && pp.cursor < pp.ceiling) {
    const taken = pp.rawCount + pp.records.length;
    const batch = readOrThrow(
      log,
      pp.cursor,
      opts.allowance - taken,
      Math.max(1, opts.maxBytes - result.bytes),
      result.total + taken,
    );
    if (batch === undefined) return true;
    if (batch.length === 0) {
      // An EOF or torn tail below the LEO: nothing more is readable here, so the cursor skips to the end.
      pp.cursor = log.logEndOffset;
      return false;
    }
    for (const rec of batch) {
      const step = takeRecord(pp, rec, opts, result);
      if (step === Step.Halt) return true;
      if (step === Step.Stop) return false;
    }
  }
  return false;
}

/** Takes `rec` into the partition's poll, steps over it (control, aborted) or says the partition is done. */
function takeRecord(pp: PartitionPoll, rec: LogRecord, opts: PollOptions, result: PollResult): Step {
  const { target } = pp;
  if (rec.offset >= pp.ceiling) return Step.Stop;
  if (
    rec.attrs & RecordAttr.CONTROL ||
    (target.isAborted &&
      rec.attrs & RecordAttr.TRANSACTIONAL &&
      target.isAborted(rec.offset, rec.producerId!, rec.epoch!))
  ) {
    pp.cursor = rec.nextOffset;
    return Step.Next;
  }
  const value = plaintextValue(target, rec, result.total + pp.rawCount + pp.records.length);
  if (value === undefined) return Step.Halt;
  pp.records.push(rec);
  pp.values.push(value);
  pp.cursor = rec.nextOffset;
  result.bytes += rec.key.length + value.length;
  if (pp.overhead > 0) result.bytes += pp.overhead + (rec.headers ? headersSize(rec.headers) : 0);
  const taken = pp.rawCount + pp.records.length;
  if (result.total + taken >= opts.maxRecords || taken >= opts.allowance || result.bytes >= opts.maxBytes) {
    return Step.Stop;
  }
  return Step.Next;
}

/**
 * The raw phase of a partition's poll: runs of plain records while the log hands them out, with the same stops as
 * takeRecord. True when the partition is done; false leaves the rest (from `pp.cursor`) to the record path, which
 * also reports whatever the raw reader declined (a corrupt record, the end of the readable log).
 */
function readRawRuns(pp: PartitionPoll, log: PartitionLog, opts: PollOptions, result: PollResult): boolean {
  if (pp.ceiling > MAX_SAFE) return false;
  const ceiling = Number(pp.ceiling);
  let cursor = Number(pp.cursor);
  let stop = false;
  while (!stop && pp.rawCount < opts.allowance && cursor < ceiling) {
    let run: RawRun | undefined;
    try {
      run = log.readRaw!(cursor, {
        maxRecords: opts.allowance - pp.rawCount,
        maxBytes: Math.max(1, opts.maxBytes - result.bytes),
        scratch: opts.scratch,
      });
    } catch {
      run = undefined; // the record path reads here again and reports the failure as a read does
    }
    if (run === undefined) break;
    const taken = takeRun(pp, run, ceiling, opts, result);
    stop = taken.stop;
    cursor = run.offset + (taken.end - run.start);
  }
  if (cursor !== Number(pp.cursor)) pp.cursor = BigInt(cursor);
  return stop;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Takes the records of `run` as takeRecord would take them one by one, onto `pp.runs`: where the taken part ends in
 * `run.buf`, and whether the partition is done.
 */
function takeRun(
  pp: PartitionPoll,
  run: RawRun,
  ceiling: number,
  opts: PollOptions,
  result: PollResult,
): { end: number; stop: boolean } {
  const b = run.buf;
  const extra = pp.overhead - PLAIN_RECORD_OVERHEAD;
  let p = run.start;
  let n = 0;
  let stop = false;
  while (p < run.end) {
    if (run.offset + (p - run.start) >= ceiling) {
      stop = true;
      break;
    }
    const size = LENGTH_PREFIX_BYTES + u32At(b, p + 4);
    p += size;
    n++;
    result.bytes += size + extra;
    const taken = pp.rawCount + n;
    if (result.total + taken >= opts.maxRecords || taken >= opts.allowance || result.bytes >= opts.maxBytes) {
      stop = true;
      break;
    }
  }
  if (n > 0) pp.runs.push({ buf: b, start: run.start, end: p, count: n, offset: run.offset });
  pp.rawCount += n;
  return { end: p, stop };
}

/**
 * The value as plaintext. A value that fails to decompress fails the FETCH when nothing was collected yet
 * (`collected` 0); after that it is undefined, and the poll returns what it has.
 */
function plaintextValue(target: PollTarget, rec: LogRecord, collected: number): Buffer | undefined {
  const codec = rec.attrs & RecordAttr.CODEC_MASK;
  if (codec === 0) return rec.value;
  try {
    return decompressValue(codec, rec.value);
  } catch (err) {
    if (collected > 0) return undefined;
    const why = err instanceof CodecError ? err.message : String(err);
    throw new HandlerError(
      ErrorCode.INTERNAL,
      `decompress ${target.topic}/partition-${target.partition} offset ${rec.offset}: ${why}`,
    );
  }
}

/** Reads; a failure before anything was collected fails the FETCH, after it the poll returns what it has. */
function readOrThrow(
  log: PartitionLog,
  offset: bigint,
  maxRecords: number,
  maxBytes: number,
  collected: number,
): LogRecord[] | undefined {
  try {
    return log.read(offset, { maxRecords, maxBytes });
  } catch (err) {
    if (collected > 0) return undefined;
    throw err;
  }
}

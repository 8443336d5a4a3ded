/**
 * The engine behind `crater produce`: input lines become records (plain lines with -K/-k/-H, or JSONL envelopes),
 * and records go out one PRODUCE each (awaited in order) or, with a batch size, as PRODUCE_BATCH frames split so
 * that none passes the frame limit. Every record gets exactly one Delivery, in input order: an ack (partition,
 * offset) or the error that kept it out of the log. Per-record failures (a malformed line, a record too large, a
 * broker error, a partial batch) are reported and production goes on; a lost connection or a timeout ends it.
 */
import { BrokerError, CraterError, UsageError } from '../errors.js';
import type { Client, ProducerRecord } from '../client/index.js';
import type { RecordHeader } from '../protocol/headers.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { Caps } from '../protocol/limits.js';
import { parseEnvelope } from './render/envelope.js';
import { type InputLine, splitKey } from './line-input.js';

export interface PendingRecord {
  /** 0-based position among the records read. */
  index: number;
  source: string;
  lineNo: number;
  record?: ProducerRecord;
  /** Set when the input line could not become a record; nothing is sent for it. */
  error?: CraterError;
}

export interface Delivery {
  index: number;
  source: string;
  line: number;
  topic: string;
  partition?: number;
  offset?: bigint;
  error?: { code: string; message: string };
}

export interface LineOptions {
  input: 'lines' | 'jsonl';
  keyDelimiter?: Buffer | undefined;
  key?: Buffer | undefined;
  headers?: RecordHeader[] | undefined;
  /** -Z: an empty line is sent as a record with an empty value (a tombstone on a compacted topic) instead of skipped. */
  keepEmpty?: boolean | undefined;
}

/** Empty lines are skipped in both modes unless keepEmpty (an empty value is sent with --input jsonl and {"utf8":""}). */
export async function* recordsFromLines(lines: AsyncIterable<InputLine>, options: LineOptions): AsyncGenerator<PendingRecord> {
  let index = 0;
  for await (const line of lines) {
    if (options.input === 'jsonl' ? line.bytes.toString('utf8').trim() === '' : line.bytes.length === 0 && !options.keepEmpty) continue;
    const base = { index: index++, source: line.source, lineNo: line.lineNo };
    if (options.input === 'jsonl') {
      try {
        const env = parseEnvelope(line.bytes.toString('utf8'), `${line.source}:${line.lineNo}`);
        yield { ...base, record: { key: env.key, value: env.value, headers: env.headers } };
      } catch (error) {
        yield { ...base, error: error as CraterError };
      }
      continue;
    }
    const { key, value } = options.keyDelimiter ? splitKey(line.bytes, options.keyDelimiter) : { key: options.key, value: line.bytes };
    yield { ...base, record: { key: key !== undefined && key.length > 0 ? key : undefined, value, headers: options.headers } };
  }
}

export interface SendOptions {
  topic: string;
  /** Records per PRODUCE_BATCH; undefined sends one PRODUCE per record. */
  batch?: number | undefined;
  maxFrameBytes: number;
  codec: 'none' | 'gzip' | 'snappy';
  timeoutMs: number;
  /** The sender is an idempotent producer: its batch frames carry the producer fields too. */
  idempotent?: boolean | undefined;
  /** -p: every record goes to this 1-based partition (BATCH_FLAG_PARTITION, crater brokers only). */
  partition?: number | undefined;
}

export interface SendStats {
  records: number;
  delivered: number;
  failed: Delivery[];
  requests: number;
}

/**
 * Errors that concern one record or one batch; anything else (connection, timeout, a missing topic, which every
 * later record would hit too) ends the run.
 */
function isRecordError(error: unknown): error is CraterError {
  if (error instanceof BrokerError) return error.errorCode !== ErrorCode.TOPIC_MISSING;
  return error instanceof CraterError && (error.code === 'ERR_USAGE' || error.code === 'ERR_FRAME_TOO_LARGE');
}

/** The wire caps a key or value at 64 KiB; checked per record so one oversized record fails alone. */
function fieldTooLarge(r: ProducerRecord): string | undefined {
  for (const [name, v] of [['key', r.key], ['value', r.value]] as const) {
    const n = v === undefined ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v.length;
    if (n > Caps.default) return `${name} is ${n} bytes, over the cap of ${Caps.default}`;
  }
  return undefined;
}

function errorJson(error: CraterError): { code: string; message: string } {
  return { code: error.code, message: error.message };
}

/** Where the runner sends: a Client (plain PRODUCE / PRODUCE_BATCH) or an idempotent producer (transactional-produce.ts). */
export type RecordSender = Pick<Client, 'produce' | 'produceBatch'>;

export class ProduceRunner {
  readonly stats: SendStats = { records: 0, delivered: 0, failed: [], requests: 0 };
  #buffer: PendingRecord[] = [];

  constructor(
    private readonly client: RecordSender,
    private readonly options: SendOptions,
    private readonly report: (d: Delivery) => Promise<void>,
  ) {}

  async add(p: PendingRecord): Promise<void> {
    this.stats.records += 1;
    if (this.options.batch === undefined) {
      await this.#emit(p, await this.#sendOne(p));
      return;
    }
    this.#buffer.push(p);
    if (this.#buffer.length >= this.options.batch) await this.flush();
  }

  async flush(): Promise<void> {
    const pending = this.#buffer;
    this.#buffer = [];
    if (pending.length === 0) return;
    const { splitBatch, batchEntrySize, batchOverhead } = await import('../client/index.js');
    const outcome = new Map<number, { partition: number; offset: bigint } | CraterError>();
    const overhead = batchOverhead(Buffer.byteLength(this.options.topic), this.options.idempotent, this.options.partition !== undefined);
    const sendable = pending.filter((p) => p.record !== undefined && p.error === undefined);
    const withHeaders = sendable.some((p) => (p.record!.headers?.length ?? 0) > 0);
    const fits = sendable.filter((p) => {
      const tooBig = fieldTooLarge(p.record!);
      if (tooBig) {
        outcome.set(p.index, new UsageError(`${tooBig}; not sent`));
        return false;
      }
      const frame = overhead + batchEntrySize(p.record!, withHeaders);
      if (frame <= this.options.maxFrameBytes) return true;
      outcome.set(p.index, new UsageError(`record needs a ${frame}-byte frame, over the ${this.options.maxFrameBytes}-byte limit; not sent`));
      return false;
    });
    const tagged = fits.map((p) => ({ ...p.record!, pending: p }));
    const chunks = splitBatch(tagged, {
      maxFrameBytes: this.options.maxFrameBytes,
      maxRecords: this.options.batch,
      topic: this.options.topic,
      idempotent: this.options.idempotent,
      fixedPartition: this.options.partition !== undefined,
    });
    for (const chunk of chunks) {
      try {
        const result = await this.client.produceBatch(this.options.topic, chunk.map((t) => t.pending.record!), {
          codec: this.options.codec,
          timeoutMs: this.options.timeoutMs,
          partition: this.options.partition,
        });
        this.stats.requests += 1;
        chunk.forEach((t, i) => {
          const ack = result.acks[i];
          outcome.set(t.pending.index, ack ?? result.error ?? new UsageError('the broker acknowledged fewer records than were sent'));
        });
      } catch (error) {
        if (!isRecordError(error)) throw error;
        if (error instanceof BrokerError) this.stats.requests += 1;
        for (const t of chunk) outcome.set(t.pending.index, error);
      }
    }
    for (const p of pending) await this.#emit(p, p.error ?? outcome.get(p.index)!);
  }

  async #sendOne(p: PendingRecord): Promise<{ partition: number; offset: bigint } | CraterError> {
    if (p.error || !p.record) return p.error ?? new UsageError('no record');
    const tooBig = fieldTooLarge(p.record);
    if (tooBig) return new UsageError(`${tooBig}; not sent`);
    this.stats.requests += 1;
    const opts = { codec: this.options.codec, timeoutMs: this.options.timeoutMs };
    try {
      // PRODUCE has no header block nor partition; such a record goes as a batch of one (still one request, in order).
      if ((p.record.headers?.length ?? 0) > 0 || this.options.partition !== undefined) {
        const result = await this.client.produceBatch(this.options.topic, [p.record], { ...opts, partition: this.options.partition });
        return result.acks[0] ?? result.error ?? new UsageError('the broker acknowledged no record');
      }
      return await this.client.produce(this.options.topic, { ...p.record, ...opts });
    } catch (error) {
      if (!isRecordError(error)) throw error;
      return error;
    }
  }

  async #emit(p: PendingRecord, outcome: { partition: number; offset: bigint } | CraterError): Promise<void> {
    const base = { index: p.index, source: p.source, line: p.lineNo, topic: this.options.topic };
    if (outcome instanceof Error) {
      const d = { ...base, error: errorJson(outcome) };
      this.stats.failed.push(d);
      await this.report(d);
    } else {
      this.stats.delivered += 1;
      await this.report({ ...base, partition: outcome.partition, offset: outcome.offset });
    }
  }
}

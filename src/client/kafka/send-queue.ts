/**
 * One send in flight per idempotent (or transactional) Kafka producer, with the records that arrive meanwhile
 * coalesced into the next send.
 *
 * Why: @platformatic/kafka numbers an idempotent producer's records per partition but advances a partition's
 * sequence only when a send's reply arrives. Two sends to one partition in flight together therefore carry the same
 * base sequence, and the partition leader takes the second for a resend of the first: it answers with the first
 * one's offsets and drops the records (inside a transaction the sequence gap ends in TRANSACTION_ABORTABLE). The
 * CLI's ProduceRunner calls send() per record without awaiting it, so this is the common case, not a race.
 *
 * Sends stay in call order: a send's records are appended to the queue, the queue's head batch (one topic, at most
 * `maxRecords` records and about `maxBytes` bytes) goes out when nothing is in flight, and each caller gets the
 * acks of its own records (or the error of the send that carried them).
 */
import type { BatchResult, ProducerRecord } from '../backend.js';

/** Sends `records` to `topic` as one request per partition leader; acks align with the records. */
export type BatchSend = (topic: string, records: readonly ProducerRecord[]) => Promise<BatchResult>;

interface Waiting {
  topic: string;
  records: readonly ProducerRecord[];
  bytes: number;
  resolve(result: BatchResult): void;
  reject(error: unknown): void;
}

export interface SendQueueLimits {
  /** Records per coalesced send at most (a single larger sendBatch still goes as one). */
  maxRecords: number;
  /** Bytes of keys and values per coalesced send, about (Kafka refuses a batch over message.max.bytes, 1 MiB). */
  maxBytes: number;
}

export const SEND_QUEUE_DEFAULTS: SendQueueLimits = { maxRecords: 10_000, maxBytes: 768 * 1024 };

function size(v: Buffer | string | undefined): number {
  if (v === undefined) return 0;
  return typeof v === 'string' ? Buffer.byteLength(v) : v.length;
}

function recordBytes(records: readonly ProducerRecord[]): number {
  let n = 0;
  for (const r of records) {
    n += 16 + size(r.key) + size(r.value);
    for (const h of r.headers ?? []) n += 8 + Buffer.byteLength(h.name) + h.value.length;
  }
  return n;
}

export class SendQueue {
  readonly #waiting: Waiting[] = [];
  #inFlight: Promise<void> | undefined;
  #scheduled = false;

  constructor(
    private readonly send: BatchSend,
    private readonly limits: SendQueueLimits = SEND_QUEUE_DEFAULTS,
  ) {}

  /** Records queued or in flight. */
  get pending(): number {
    return this.#waiting.length;
  }

  enqueue(topic: string, records: readonly ProducerRecord[]): Promise<BatchResult> {
    if (records.length === 0) return Promise.resolve({ acks: [] });
    return new Promise<BatchResult>((resolve, reject) => {
      this.#waiting.push({ topic, records, bytes: recordBytes(records), resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once everything queued so far has been answered (failures are reported to their callers). */
  async drain(): Promise<void> {
    while (this.#inFlight || this.#waiting.length > 0 || this.#scheduled) {
      if (this.#inFlight) await this.#inFlight;
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Rejects everything still queued (not what is in flight: its outcome comes from the cluster). */
  failQueued(error: Error): void {
    for (const w of this.#waiting.splice(0)) w.reject(error);
  }

  // The first send waits one turn of the event loop, so records sent back to back share a request.
  #schedule(): void {
    if (this.#inFlight || this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#next();
    });
  }

  #next(): void {
    if (this.#inFlight || this.#waiting.length === 0) return;
    const batch = this.#take();
    const records = batch.length === 1 ? batch[0]!.records : batch.flatMap((w) => w.records);
    this.#inFlight = this.send(batch[0]!.topic, records).then(
      (result) => {
        let at = 0;
        for (const w of batch) {
          w.resolve({ acks: result.acks.slice(at, at + w.records.length) });
          at += w.records.length;
        }
      },
      (error: unknown) => {
        for (const w of batch) w.reject(error);
      },
    );
    void this.#inFlight.finally(() => {
      this.#inFlight = undefined;
      this.#next();
    });
  }

  /** The head of the queue: consecutive sends to one topic within the limits (always at least one send). */
  #take(): Waiting[] {
    const first = this.#waiting[0]!;
    let records = first.records.length;
    let bytes = first.bytes;
    let n = 1;
    for (; n < this.#waiting.length; n++) {
      const w = this.#waiting[n]!;
      if (w.topic !== first.topic) break;
      if (records + w.records.length > this.limits.maxRecords || bytes + w.bytes > this.limits.maxBytes) break;
      records += w.records.length;
      bytes += w.bytes;
    }
    return this.#waiting.splice(0, n);
  }
}

/**
 * Where a batch's results go. PlainOutput writes dead letters (acked before their items count as finished) and
 * finishes items, whose offsets the periodic commit picks up. TransactionalOutput runs each invocation in a
 * transaction of the worker's own durable producer: what the handler produced, the dead letters and the
 * watermarks the finished items allow are committed together (TXN_OFFSET_COMMIT), and items count as finished
 * only after END_TXN succeeded; an abort drops all of it.
 */
import type { FetchedRecord } from '../../../protocol/messages/fetch.js';
import type { Backend, BackendProducer } from '../../backend.js';
import type { ProducerRecord } from '../../producer/sink.js';
import { type DeadLetter, DlqTopics, deadLetterRecord } from './dead-letter.js';
import type { BatchItem, BatchTransaction } from './types.js';
import type { PartitionWatermark, WatermarkEntry } from './watermark.js';

/** A record a worker holds; it is also its own entry in its partition's watermark (one object per record). */
export interface Pending extends WatermarkEntry {
  readonly record: FetchedRecord;
  readonly mark: PartitionWatermark;
  /** The item handed to the handler (set when admitted). */
  item: BatchItem<unknown> | undefined;
  /** Why the last invocation did not finish it: the handler's error or its retry reason. */
  lastError: string | undefined;
}

export interface DeadPending extends DeadLetter {
  pending: Pending;
}

export interface BatchOutput {
  /** Opens the invocation's scope; the transaction handle when transactional. */
  begin(): Promise<BatchTransaction | undefined>;
  /** Drops what the scope produced (transactional), or nothing. */
  abort(): Promise<void>;
  /** Writes the dead letters and finishes `done` and the dead-lettered items, within the open scope if any. */
  complete(done: readonly Pending[], dead: readonly DeadPending[]): Promise<void>;
  close(): Promise<void>;
}

export interface OutputContext {
  group: string;
  withHeaders: boolean;
  dlqTopics: DlqTopics;
  now: () => number;
}

function groupDeadLetters(dead: readonly DeadPending[], ctx: OutputContext): Map<string, ProducerRecord[]> {
  const byTopic = new Map<string, ProducerRecord[]>();
  for (const d of dead) {
    const list = byTopic.get(d.transport.topic) ?? [];
    list.push(deadLetterRecord(d, ctx.group, ctx.withHeaders, ctx.now()));
    byTopic.set(d.transport.topic, list);
  }
  return byTopic;
}

function finishAll(done: readonly Pending[], dead: readonly DeadPending[]): void {
  for (const p of done) p.mark.finish(p);
  for (const d of dead) d.pending.mark.finish(d.pending);
}

export class PlainOutput implements BatchOutput {
  constructor(
    private readonly backend: Backend,
    private readonly ctx: OutputContext,
  ) {}

  async begin(): Promise<undefined> {
    return undefined;
  }

  async abort(): Promise<void> {}

  async complete(done: readonly Pending[], dead: readonly DeadPending[]): Promise<void> {
    for (const [topic, records] of groupDeadLetters(dead, this.ctx)) {
      const dlq = await this.ctx.dlqTopics.ensure(topic);
      const result = await this.backend.produceBatch(dlq, records);
      if (result.error) throw result.error;
    }
    finishAll(done, dead);
  }

  async close(): Promise<void> {}
}

export class TransactionalOutput implements BatchOutput {
  private open = false;

  constructor(
    private readonly producer: BackendProducer,
    private readonly ctx: OutputContext,
  ) {}

  async begin(): Promise<BatchTransaction> {
    if (!this.open) {
      await this.producer.beginTransaction();
      this.open = true;
    }
    const producer = this.producer;
    return {
      send: (topic, record) => producer.send(topic, record),
      sendBatch: (topic, records) => producer.sendBatch(topic, records),
    };
  }

  async abort(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    await this.producer.abortTransaction();
  }

  async complete(done: readonly Pending[], dead: readonly DeadPending[]): Promise<void> {
    await this.begin();
    try {
      for (const [topic, records] of groupDeadLetters(dead, this.ctx)) {
        const dlq = await this.ctx.dlqTopics.ensure(topic);
        const result = await this.producer.sendBatch(dlq, records);
        if (result.error) throw result.error;
      }
      const offsets = tentativeOffsets([...done, ...dead.map((d) => d.pending)]);
      for (let i = 0; i < offsets.length; i += 1024)
        await this.producer.sendOffsetsToTransaction(this.ctx.group, offsets.slice(i, i + 1024));
      this.open = false;
      await this.producer.commitTransaction();
    } catch (error) {
      await this.abort().catch(() => {});
      throw error;
    }
    finishAll(done, dead);
  }

  async close(): Promise<void> {
    await this.abort().catch(() => {});
    await this.producer.close();
  }
}

/** For each partition the items touch, the watermark once they are finished. */
function tentativeOffsets(items: readonly Pending[]): Array<{ topic: string; partition: number; offset: bigint }> {
  const byMark = new Map<PartitionWatermark, { record: FetchedRecord; entries: Set<WatermarkEntry> }>();
  for (const p of items) {
    let m = byMark.get(p.mark);
    if (!m) byMark.set(p.mark, (m = { record: p.record, entries: new Set() }));
    m.entries.add(p);
  }
  const out: Array<{ topic: string; partition: number; offset: bigint }> = [];
  for (const [mark, { record, entries }] of byMark) {
    const offset = mark.committableWith(entries);
    if (offset !== undefined) out.push({ topic: record.topic, partition: record.partition, offset });
  }
  return out;
}

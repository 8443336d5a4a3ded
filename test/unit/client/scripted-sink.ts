/**
 * A ProduceSink for the accumulator's unit tests: every sendBatch is recorded with a promise the test settles, so a
 * test decides what the "broker" answered and when. Integration tests use a real broker instead.
 */
import { moonmqFraming } from '../../../src/client/moonmq/batch-entries.js';
import type {
  BatchFraming,
  BatchResult,
  ProduceAck,
  ProducerRecord,
  ProduceSink,
  SendOptions,
} from '../../../src/client/producer/sink.js';

export interface SentBatch {
  topic: string;
  records: readonly ProducerRecord[];
  options: SendOptions;
  /** Sent as the single-record request rather than a batch. */
  single: boolean;
  resolve(result: BatchResult): void;
  reject(error: Error): void;
}

export class ScriptedSink implements ProduceSink {
  readonly framing: BatchFraming;
  readonly defaultRequestTimeoutMs = 30_000;
  readonly sent: SentBatch[] = [];

  /** `idempotent`: the accumulator then keeps one batch per topic in flight, as it does for IdempotentSink. */
  constructor(readonly idempotent = false) {
    this.framing = moonmqFraming(idempotent);
  }

  connected = true;
  private offset = 0n;

  /** A single-record request (PRODUCE): answered like a batch of one, which it stands for. */
  send(topic: string, record: ProducerRecord, options: SendOptions): Promise<ProduceAck> {
    return new Promise((resolve, reject) => {
      const answer = (r: BatchResult): void =>
        r.acks[0] ? resolve(r.acks[0]) : reject(r.error ?? new Error('no ack'));
      this.sent.push({ topic, records: [record], options, single: true, resolve: answer, reject });
    });
  }

  sendBatch(topic: string, records: readonly ProducerRecord[], options: SendOptions): Promise<BatchResult> {
    return new Promise((resolve, reject) =>
      this.sent.push({ topic, records: [...records], options, single: false, resolve, reject }),
    );
  }

  /** Acks for `n` records at the next offsets of partition 1. */
  acks(n: number): ProduceAck[] {
    return Array.from({ length: n }, () => ({ partition: 1, offset: this.offset++ }));
  }

  /** Answers batch `i` with every record acked. */
  ackAll(i: number): void {
    const b = this.sent[i]!;
    b.resolve({ acks: this.acks(b.records.length) });
  }

  canSend(): boolean {
    return this.connected;
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}

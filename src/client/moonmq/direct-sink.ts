/** The plain sink: one PRODUCE per send and one PRODUCE_BATCH per chunk, on the client's own session. */
import type { BatchResult, ProduceAck, ProducerRecord, ProduceSink, SendOptions } from '../producer/sink.js';
import { produce, produceBatch } from './produce-ops.js';
import type { Session } from './session.js';

export class DirectSink implements ProduceSink {
  constructor(private readonly session: Session) {}

  send(topic: string, record: ProducerRecord, options: SendOptions): Promise<ProduceAck> {
    return produce(this.session, topic, record, options);
  }

  sendBatch(topic: string, records: readonly ProducerRecord[], options: SendOptions): Promise<BatchResult> {
    return produceBatch(this.session, topic, records, options);
  }

  canSend(): boolean {
    return !this.session.conn.closed;
  }

  writable(): Promise<void> | undefined {
    const conn = this.session.conn;
    return conn.queuedBytes > 0 && !conn.closed ? conn.writable() : undefined;
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {}
}

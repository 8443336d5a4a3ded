/**
 * Dead-letter records, one per item, in `<topic>.dlq` (the broker's NACK naming), created on first use with the
 * source's partition count, as NACK does. On a crater broker the record keeps the original key, value and headers
 * and adds diagnostic headers; a MoonMQ broker has no headers, so the value is the DLQ envelope NACK writes
 * (protocol/dlq-envelope.ts) and the key the original key, which a reader of either kind of DLQ already understands.
 */
import { encodeDlqEnvelope } from '../../../protocol/dlq-envelope.js';
import type { RecordHeader } from '../../../protocol/headers.js';
import type { Backend } from '../../backend.js';
import type { ProducerRecord } from '../../producer/sink.js';
import type { TransportContext } from './types.js';

export const DLQ_SUFFIX = '.dlq';

/** Diagnostic header names, all prefixed so they never collide with an application's own. */
export const DlqHeader = {
  topic: 'crater.dlq.topic',
  partition: 'crater.dlq.partition',
  offset: 'crater.dlq.offset',
  timestamp: 'crater.dlq.timestamp',
  group: 'crater.dlq.group',
  error: 'crater.dlq.error',
  attempts: 'crater.dlq.attempts',
  time: 'crater.dlq.time',
} as const;

export interface DeadLetter {
  transport: TransportContext;
  reason: string;
  /** Invocations the item went through (0 for an item refused by validation). */
  attempts: number;
}

export function dlqTopicFor(topic: string): string {
  return topic + DLQ_SUFFIX;
}

/** The DLQ record for `d`; `nowMs` is the wall-clock time of dead-lettering. */
export function deadLetterRecord(d: DeadLetter, group: string, withHeaders: boolean, nowMs: number): ProducerRecord {
  const t = d.transport;
  const reason = Buffer.from(d.reason).subarray(0, 1024).toString();
  if (!withHeaders) {
    const value = encodeDlqEnvelope({
      topic: t.topic,
      partition: t.partition,
      offset: t.offset,
      timestamp: t.timestamp,
      group,
      attempts: Math.min(d.attempts, 0xffff),
      reason,
      value: t.value,
    });
    return { key: t.key, value };
  }
  const diag = (name: string, value: string): RecordHeader => ({ name, value: Buffer.from(value) });
  const headers: RecordHeader[] = [
    ...t.headers,
    diag(DlqHeader.topic, t.topic),
    diag(DlqHeader.partition, String(t.partition)),
    diag(DlqHeader.offset, String(t.offset)),
    diag(DlqHeader.timestamp, String(t.timestamp)),
    diag(DlqHeader.group, group),
    diag(DlqHeader.error, reason),
    diag(DlqHeader.attempts, String(d.attempts)),
    diag(DlqHeader.time, new Date(nowMs).toISOString()),
  ];
  return { key: t.key, value: t.value, headers: headers.slice(-64) };
}

/** Makes sure each DLQ topic exists once per consumer. */
export class DlqTopics {
  private readonly ready = new Map<string, Promise<void>>();

  constructor(private readonly backend: Backend) {}

  ensure(sourceTopic: string): Promise<string> {
    const dlq = dlqTopicFor(sourceTopic);
    let p = this.ready.get(dlq);
    if (!p) {
      p = this.create(sourceTopic, dlq);
      this.ready.set(dlq, p);
      p.catch(() => this.ready.delete(dlq));
    }
    return p.then(() => dlq);
  }

  private async create(source: string, dlq: string): Promise<void> {
    const backend = this.backend;
    if ((await backend.listTopics()).includes(dlq)) return;
    const { partitionCount } = await backend.describeTopic(source);
    try {
      await backend.createTopic(dlq, partitionCount);
    } catch (error) {
      // Someone (the broker's NACK path, another consumer) may have created it meanwhile.
      await backend.describeTopic(dlq).catch(() => {
        throw error;
      });
    }
  }
}

/**
 * Dead-letter copies of archived share records (group config `dlq.enabled`): the record goes to `<topic>.dlq` (same
 * partition id, the topic created on first use with the source's partition count) wrapped in the DLQ envelope the
 * NACK path uses, with `attempts` = the delivery count and `reason` = "<disposition>: <last error>". Appended and
 * fsynced before the share state that archives the record is written, so a crash in between copies it twice at
 * worst, never zero times.
 */
import type { PartitionLog } from '../../storage/partition-log.js';
import type { BrokerCore } from '../core.js';
import { encodeDlqEnvelope } from '../consumer/dlq-envelope.js';
import { dlqTopicFor } from '../consumer/nack.js';
import type { Topic } from '../topics.js';
import { readAt } from './log-reads.js';
import type { ArchivedNote } from './share-partition.js';

export async function deadLetter(broker: BrokerCore, group: string, notes: readonly ArchivedNote[]): Promise<void> {
  const touched = new Set<PartitionLog>();
  for (const n of notes) {
    const source = broker.topics.getTopic(n.topic);
    const log = source?.partitions[n.partition - 1];
    const read = log ? readAt(log, n.offset) : undefined;
    if (!source || !read) {
      broker.logger.warn('share record gone before its dead-letter copy', {
        topic: n.topic,
        partition: n.partition,
        offset: String(n.offset),
        group,
      });
      continue;
    }
    const dlq = await ensureTopic(broker, dlqTopicFor(n.topic), source.partitions.length);
    const target = dlq.partitions[n.partition - 1] ?? dlq.partitions[(n.partition - 1) % dlq.partitions.length]!;
    const value = encodeDlqEnvelope({
      topic: n.topic,
      partition: n.partition,
      offset: n.offset,
      timestamp: read.record.timestamp,
      group,
      attempts: n.deliveryCount,
      reason: `${n.disposition}: ${n.reason}`,
      value: read.value,
    });
    const result = target.append([
      { attrs: 0, timestamp: broker.now(), key: read.record.key, value, headers: read.record.headers },
    ]);
    if (result.error) throw result.error;
    touched.add(target);
  }
  await Promise.all([...touched].map((l) => l.sync()));
}

async function ensureTopic(broker: BrokerCore, name: string, partitions: number): Promise<Topic> {
  const existing = broker.topics.getTopic(name);
  if (existing) return existing;
  try {
    return await broker.topics.createTopic(name, partitions);
  } catch (err) {
    const raced = broker.topics.getTopic(name);
    if (raced) return raced;
    throw err;
  }
}

/**
 * NACK (semantics.md §11): a consumer reports that it could not process a record. Below MaxDeliveries the group's
 * cursor and committed offset are rewound to the record so it is delivered again; at the limit the record is copied
 * to `<topic>.dlq` (same partition id, the topic created on first use with the same partition count, the value
 * wrapped in the DLQ envelope, the original key kept) and the group advances past it.
 */
import { CorruptDataError } from '../../errors.js';
import { decompressValue } from '../../protocol/compression.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { Nack, NackAck } from '../../protocol/messages/nack.js';
import type { LogRecord } from '../../storage/partition-log.js';
import { RecordAttr } from '../../storage/record.js';
import type { Logger } from '../logger.js';
import type { ConnectionHandle } from '../handler.js';
import { HandlerError } from '../handler.js';
import type { Topic } from '../topics.js';
import { encodeDlqEnvelope } from './dlq-envelope.js';
import type { ConsumerService } from './runtime.js';
import { requireConsumer } from './session.js';

export const DLQ_SUFFIX = '.dlq';
const MAX_ATTEMPTS_ON_WIRE = 0xffff;

export function dlqTopicFor(topic: string): string {
  return topic + DLQ_SUFFIX;
}

export async function handleNack(rt: ConsumerService, conn: ConnectionHandle, req: Nack): Promise<NackAck> {
  const s = rt.session(conn);
  const group = requireConsumer(s, 'NACK');
  const topic = rt.broker.topics.requireTopic(req.topic);
  checkPartition(topic, req.partition);
  if (rt.membershipLapsed(conn, s)) {
    throw new HandlerError(ErrorCode.GROUP_MEMBER_UNKNOWN, 'group membership lapsed; rejoin before nacking');
  }
  const rec = recordAt(topic, req.partition, req.offset, rt.broker.logger);
  const key = { group, topic: req.topic, partition: req.partition, offset: req.offset };
  const attempts = rt.nacks.record(key);
  if (attempts < rt.settings.maxDeliveries) {
    if (rt.position(group, req.topic, req.partition) > req.offset)
      rt.cursors.set(group, req.topic, req.partition, req.offset);
    await rt.offsets.commit(group, [{ topic: req.topic, partition: req.partition, offset: req.offset }]);
    return { deadLettered: false, attempts: Math.min(attempts, MAX_ATTEMPTS_ON_WIRE), dlqTopic: '' };
  }
  const dlqTopic = await deadLetter(rt, topic, req.partition, rec, group, attempts, req.reason);
  rt.nacks.clear(key);
  const position = rt.position(group, req.topic, req.partition);
  const next = position < rec.nextOffset ? rec.nextOffset : position;
  rt.cursors.set(group, req.topic, req.partition, next);
  await rt.offsets.commit(group, [{ topic: req.topic, partition: req.partition, offset: next }]);
  return { deadLettered: true, attempts: Math.min(attempts, MAX_ATTEMPTS_ON_WIRE), dlqTopic };
}

export function checkPartition(topic: Topic, partition: number): void {
  if (partition < 1 || partition > topic.partitions.length) {
    throw new HandlerError(
      ErrorCode.BAD_FRAME,
      `partition ${partition} out of range 1..${topic.partitions.length} for topic '${topic.name}'`,
    );
  }
}

/**
 * The data record that starts exactly at `offset`; a bogus offset must not rewind a group into a torn read. An
 * offset inside a record reads as corrupt bytes: that is the client's mistake, answered like any offset with no
 * record, not an internal failure (and the reader's error, which names the segment file, stays in the log).
 */
function recordAt(topic: Topic, partition: number, offset: bigint, logger: Logger): LogRecord {
  const log = topic.partitions[partition - 1]!;
  const noRecord = () =>
    new HandlerError(
      ErrorCode.INTERNAL,
      `cannot nack ${topic.name}/partition-${partition} offset ${offset}: no record at that offset`,
    );
  let rec: LogRecord | undefined;
  try {
    [rec] = offset < log.logStartOffset ? [] : log.read(offset, { maxRecords: 1 });
  } catch (err) {
    if (!(err instanceof CorruptDataError)) throw err;
    logger.debug('NACK offset is not a record start', {
      topic: topic.name,
      partition,
      offset: String(offset),
      error: err.message,
    });
    throw noRecord();
  }
  if (!rec || rec.offset !== offset) throw noRecord();
  if (rec.attrs & RecordAttr.CONTROL) {
    throw new HandlerError(
      ErrorCode.INTERNAL,
      `cannot nack a control record (${topic.name}/partition-${partition} offset ${offset})`,
    );
  }
  return rec;
}

async function deadLetter(
  rt: ConsumerService,
  source: Topic,
  partition: number,
  rec: LogRecord,
  group: string,
  attempts: number,
  reason: string,
): Promise<string> {
  const codec = rec.attrs & RecordAttr.CODEC_MASK;
  let value: Buffer;
  try {
    value = codec ? decompressValue(codec, rec.value) : rec.value;
  } catch (err) {
    throw new HandlerError(
      ErrorCode.INTERNAL,
      `decompress ${source.name}/partition-${partition} offset ${rec.offset}: ${String(err)}`,
    );
  }
  const name = dlqTopicFor(source.name);
  const dlq = await ensureTopic(rt, name, source.partitions.length);
  // A DLQ topic created by hand may have fewer partitions: wrap rather than fail.
  const log = dlq.partitions[partition - 1] ?? dlq.partitions[(partition - 1) % dlq.partitions.length]!;
  const envelope = encodeDlqEnvelope({
    topic: source.name,
    partition,
    offset: rec.offset,
    timestamp: rec.timestamp,
    group,
    attempts: Math.min(attempts, MAX_ATTEMPTS_ON_WIRE),
    reason,
    value,
  });
  const result = log.append([
    { attrs: 0, timestamp: rt.broker.now(), key: rec.key, value: envelope, headers: rec.headers },
  ]);
  if (result.error)
    throw new HandlerError(ErrorCode.INTERNAL, `dead-letter append to ${name} failed: ${result.error.message}`);
  await log.sync();
  rt.broker.logger.info('dead-lettered a record', {
    topic: source.name,
    partition,
    offset: String(rec.offset),
    group,
    dlq: name,
  });
  return name;
}

async function ensureTopic(rt: ConsumerService, name: string, partitions: number): Promise<Topic> {
  const existing = rt.broker.topics.getTopic(name);
  if (existing) return existing;
  try {
    return await rt.broker.topics.createTopic(name, partitions);
  } catch (err) {
    // Another NACK may have created it meanwhile.
    const raced = rt.broker.topics.getTopic(name);
    if (raced) return raced;
    throw err;
  }
}

/**
 * LIST_OFFSETS: bounds per partition (earliest = log start; latest = the LEO; high watermark = the durable end under
 * acks=leader, with HWM_EXACT set, and a copy of latest under acks=none, with HWM_EXACT clear, since nothing is
 * fsynced then (read-ceiling.ts); lso = the lowest first offset of the unresolved transactions touching the
 * partition, else the LEO, capped at the high watermark; LSO_KNOWN and LOCAL set) and, in timestamp mode, the first
 * offset at or after the timestamp.
 */
import { decodePayload } from '../../protocol/message.js';
import {
  type OffsetForTime,
  OffsetsReply,
  ListOffsetsRequest,
  type PartitionOffsets,
} from '../../protocol/messages/list-offsets.js';
import { ForTimesFlag, ListOffsetsMode, OffsetsFlag } from '../../protocol/opcodes.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';
import { highWatermark, minOffset } from '../read-ceiling.js';

const BOUNDS_FLAGS = OffsetsFlag.LSO_KNOWN | OffsetsFlag.LOCAL;

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const request = decodePayload(ListOffsetsRequest, payload);
  const topic = broker.topics.requireTopic(request.topic);
  const acks = broker.config.acks;
  const flags = acks === 'none' ? BOUNDS_FLAGS : BOUNDS_FLAGS | OffsetsFlag.HWM_EXACT;
  const partitions: PartitionOffsets[] = topic.partitions.map((log, i) => {
    const hwm = highWatermark(acks, log);
    const lso = minOffset(hwm, broker.transactions.lso(topic.name, i + 1, log));
    return { partition: i + 1, earliest: log.logStartOffset, latest: log.logEndOffset, highWatermark: hwm, lso, flags };
  });
  let forTimes: OffsetForTime[] | undefined;
  if (request.mode === ListOffsetsMode.TIMESTAMP) {
    const ts = request.timestampMs!;
    forTimes = topic.partitions.map((log, i) => {
      const { offset, found } = log.offsetForTimestamp(ts);
      return { partition: i + 1, offset, flags: found ? ForTimesFlag.FOUND : 0 };
    });
  }
  conn.send(OffsetsReply, correl, { partitions, forTimes });
};

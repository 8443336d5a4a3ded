/**
 * LIST_OFFSETS: bounds per partition (earliest = log start, latest = high watermark = LEO, lso = the lowest first
 * offset of the unresolved transactions touching the partition, else the LEO; HWM_EXACT, LSO_KNOWN and LOCAL set)
 * and, in timestamp mode, the first offset at or after the timestamp.
 */
import { decodePayload } from '../../protocol/message.js';
import { type OffsetForTime, OffsetsReply, ListOffsetsRequest, type PartitionOffsets } from '../../protocol/messages/list-offsets.js';
import { ForTimesFlag, ListOffsetsMode, OffsetsFlag } from '../../protocol/opcodes.js';
import type { BrokerCore } from '../core.js';
import type { RequestHandler } from '../handler.js';

const BOUNDS_FLAGS = OffsetsFlag.HWM_EXACT | OffsetsFlag.LSO_KNOWN | OffsetsFlag.LOCAL;

export const handler: RequestHandler<BrokerCore> = ({ broker, conn, correl, payload }) => {
  const request = decodePayload(ListOffsetsRequest, payload);
  const topic = broker.topics.requireTopic(request.topic);
  const partitions: PartitionOffsets[] = topic.partitions.map((log, i) => {
    const latest = log.logEndOffset;
    const lso = broker.transactions.lso(topic.name, i + 1, log);
    return { partition: i + 1, earliest: log.logStartOffset, latest, highWatermark: latest, lso, flags: BOUNDS_FLAGS };
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

/**
 * Applying an ack block (SHARE_ACK, or the acks riding on SHARE_FETCH). The whole block is validated first (topics,
 * partitions, ranges that are ordered and do not overlap), so a malformed request changes nothing. Then per
 * partition: every record in the ranges must be Acquired by this member (a lock that expired was given up), or
 * nothing of that partition is applied and its result says INVALID_RECORD_STATE. A range moves whole runs of the
 * window (split at its ends), so an ack of 1,000 records costs what an ack of one does.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import type { ShareAckRange, ShareAckResult, SharePartitionAcks } from '../../protocol/messages/share-acks.js';
import { ShareAckType } from '../../protocol/opcodes.js';
import type { BrokerCore } from '../core.js';
import { HandlerError } from '../handler.js';
import type { ShareGroup, ShareMemberState } from './share-group.js';
import type { ArchivedNote, Run, SharePartition } from './share-partition.js';

export function validateAcks(broker: BrokerCore, acks: readonly SharePartitionAcks[]): void {
  for (const p of acks) {
    const topic = broker.topics.requireTopic(p.topic);
    if (p.partition < 1 || p.partition > topic.partitions.length) {
      throw new HandlerError(
        ErrorCode.BAD_FRAME,
        `partition ${p.partition} out of range 1..${topic.partitions.length} for topic '${p.topic}'`,
      );
    }
    const sorted = [...p.ranges].sort((a, b) =>
      a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0,
    );
    let prevLast = -1n;
    for (const r of sorted) {
      if (r.firstOffset > r.lastOffset)
        throw new HandlerError(ErrorCode.BAD_FRAME, `ack range ${r.firstOffset}..${r.lastOffset} is reversed`);
      if (r.firstOffset <= prevLast)
        throw new HandlerError(
          ErrorCode.BAD_FRAME,
          `ack ranges overlap at offset ${r.firstOffset} in ${p.topic}/${p.partition}`,
        );
      prevLast = r.lastOffset;
    }
  }
}

export function applyAcks(
  group: ShareGroup,
  member: ShareMemberState,
  acks: readonly SharePartitionAcks[],
  now: number,
  archived: ArchivedNote[],
): ShareAckResult[] {
  const results: ShareAckResult[] = [];
  const { deliveryCountLimit: limit } = group.settings;
  for (const p of acks) {
    const sp = group.partition(p.topic, p.partition);
    if (!sp) {
      results.push({ topic: p.topic, partition: p.partition, errorCode: ErrorCode.INVALID_RECORD_STATE, records: 0 });
      continue;
    }
    sp.expire(now, limit, archived);
    const held = p.ranges.map((r) => sp.heldBy(member.id, r.firstOffset, r.lastOffset));
    if (!held.every((n) => n > 0)) {
      results.push({ topic: p.topic, partition: p.partition, errorCode: ErrorCode.INVALID_RECORD_STATE, records: 0 });
      continue;
    }
    for (const r of p.ranges)
      for (const run of sp.isolate(r.firstOffset, r.lastOffset)) apply(sp, run, r, now, group, archived);
    sp.advance();
    const records = held.reduce((a, b) => a + b, 0);
    results.push({ topic: p.topic, partition: p.partition, errorCode: ErrorCode.NONE, records });
  }
  return results;
}

function apply(
  sp: SharePartition,
  e: Run,
  r: ShareAckRange,
  now: number,
  group: ShareGroup,
  archived: ArchivedNote[],
): void {
  const cfg = group.settings;
  switch (r.type) {
    case ShareAckType.ACCEPT:
      sp.accept(e);
      return;
    case ShareAckType.RELEASE:
      sp.release(e, r.releaseDelayMs, now, cfg.deliveryCountLimit, archived);
      return;
    case ShareAckType.REJECT:
      sp.reject(e, r.reason, archived);
      return;
    case ShareAckType.RENEW:
      sp.renew(e, now, cfg.recordLockDurationMs);
      return;
  }
}

/**
 * The acknowledgements a share consumer owes, per poll, and their encoding as ack ranges. Records of one poll and
 * one partition that were read fresh (delivery count 1) are consecutive in the broker's window, so a run of them
 * with the same decision becomes one range; a redelivered record gets a range of its own, since records held by
 * other members may sit between it and its neighbours.
 */
import type { ShareAckRange, SharePartitionAcks } from '../../protocol/messages/share-acks.js';
import { ShareAckType, type ShareAckTypeValue } from '../../protocol/opcodes.js';

export type ShareAckName = 'accept' | 'release' | 'reject';

export const ackTypeOf: Record<ShareAckName | 'renew', ShareAckTypeValue> = {
  accept: ShareAckType.ACCEPT,
  release: ShareAckType.RELEASE,
  reject: ShareAckType.REJECT,
  renew: ShareAckType.RENEW,
};

export interface ShareConsumerRecord {
  topic: string;
  partition: number;
  offset: bigint;
  timestamp: bigint;
  key: Buffer;
  value: Buffer;
  /** 1 on the first delivery; the broker archives the record after `delivery.count.limit`. */
  deliveryCount: number;
  /** Broker-clock ms at which this member's lock on the record expires. */
  lockDeadlineMs: bigint;
}

interface Decision {
  type: ShareAckTypeValue;
  delayMs: number;
  reason: string;
}

interface Batch {
  records: readonly ShareConsumerRecord[];
  /** Built on the first decide() that looks into this batch (implicit mode never needs it). */
  members: Set<ShareConsumerRecord> | undefined;
  decisions: Map<ShareConsumerRecord, Decision>;
  /** What every undecided record of the batch gets (decideRest), without an entry per record. */
  rest: Decision | undefined;
}

function newBatch(records: readonly ShareConsumerRecord[]): Batch {
  return { records, members: undefined, decisions: new Map(), rest: undefined };
}

export class ShareAckQueue {
  private batches: Batch[] = [];

  /** Registers the records of one poll. */
  delivered(records: readonly ShareConsumerRecord[]): void {
    if (records.length > 0) this.batches.push(newBatch(records));
  }

  /** False when `record` is not one this consumer holds undecided. */
  decide(record: ShareConsumerRecord, type: ShareAckTypeValue, delayMs: number, reason: string): boolean {
    for (const b of this.batches) {
      b.members ??= new Set(b.records);
      if (!b.members.has(record)) continue;
      b.decisions.set(record, { type, delayMs, reason });
      return true;
    }
    return false;
  }

  /** Records delivered and not yet decided. */
  undecided(): number {
    let n = 0;
    for (const b of this.batches) if (!b.rest) n += b.records.length - b.decisions.size;
    return n;
  }

  /** Decides every undecided record as `type` (implicit mode's ACCEPT, or RELEASE on close). */
  decideRest(type: ShareAckTypeValue): void {
    for (const b of this.batches) b.rest ??= { type, delayMs: 0, reason: '' };
  }

  /** Takes the decided records out as ack ranges; undecided ones stay queued. */
  drain(): SharePartitionAcks[] {
    const byPartition = new Map<string, SharePartitionAcks>();
    const keep: Batch[] = [];
    for (const b of this.batches) {
      const left = drainBatch(b, byPartition);
      if (left.length > 0) keep.push(newBatch(left));
    }
    this.batches = keep;
    for (const p of byPartition.values())
      p.ranges.sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0));
    return [...byPartition.values()];
  }
}

/** Adds the decided records of `b` to `byPartition` as ranges; returns the undecided ones. */
function drainBatch(b: Batch, byPartition: Map<string, SharePartitionAcks>): ShareConsumerRecord[] {
  const left: ShareConsumerRecord[] = [];
  const decided = b.decisions.size > 0;
  let part: SharePartitionAcks | undefined;
  // The range the previous record went into while it can still grow (a first delivery), and its decision.
  let open: ShareAckRange | undefined;
  let openDecision: Decision | undefined;
  for (const r of b.records) {
    const d = decided ? (b.decisions.get(r) ?? b.rest) : b.rest;
    if (!d) {
      left.push(r);
      open = undefined;
      continue;
    }
    if (!part || part.partition !== r.partition || part.topic !== r.topic) {
      const key = `${r.topic}\u0000${r.partition}`;
      part = byPartition.get(key);
      if (!part) byPartition.set(key, (part = { topic: r.topic, partition: r.partition, ranges: [] }));
      open = undefined;
    }
    if (open && r.deliveryCount === 1 && sameDecision(openDecision!, d)) {
      open.lastOffset = r.offset;
      continue;
    }
    const range: ShareAckRange = {
      firstOffset: r.offset,
      lastOffset: r.offset,
      type: d.type,
      releaseDelayMs: d.delayMs,
      reason: d.reason,
    };
    part.ranges.push(range);
    open = r.deliveryCount === 1 ? range : undefined;
    openDecision = d;
  }
  return left;
}

function sameDecision(a: Decision, b: Decision): boolean {
  return a.type === b.type && a.delayMs === b.delayMs && a.reason === b.reason;
}

/**
 * One share-partition's in-flight window (KIP-932): every record between the share-partition start offset (SPSO)
 * and end offset (SPEO) that was ever acquired, with its state and delivery count. Below the SPSO everything is
 * done (Acknowledged or Archived); at and above the SPEO nothing was read yet. Offsets are the log's own (record
 * starts), so the window is a sorted array searched by offset, never indexed by offset arithmetic.
 *
 * State moves follow one table (`moves`); the window itself does no I/O: the runtime reads the log, persists
 * snapshots and copies archived records to the DLQ.
 */
import { RecordState, type RecordStateValue, type SharePartitionSnapshot } from '../../storage/share-state-codec.js';

export { RecordState, type RecordStateValue };

export interface InFlight {
  offset: bigint;
  state: RecordStateValue;
  deliveryCount: number;
  /** The member holding the lock (Acquired only). */
  owner: string | undefined;
  /** Broker-clock ms at which the lock expires (Acquired only). */
  lockDeadline: number;
  /** When the record was acquired (Acquired only), for the oldest lock age. */
  acquiredAt: number;
  /** A RELEASE with a delay keeps an Available record unacquirable until then. */
  availableAt: number;
}

/** A record that became Archived, for the dead-letter copy. */
export interface ArchivedNote {
  topic: string;
  partition: number;
  offset: bigint;
  deliveryCount: number;
  disposition: 'rejected' | 'delivery-limit';
  reason: string;
}

/** The transitions KIP-932 allows; anything else is a bug in the caller. */
const moves: Record<RecordStateValue, readonly RecordStateValue[]> = {
  [RecordState.AVAILABLE]: [RecordState.ACQUIRED, RecordState.ARCHIVED],
  [RecordState.ACQUIRED]: [RecordState.ACQUIRED, RecordState.AVAILABLE, RecordState.ACKNOWLEDGED, RecordState.ARCHIVED],
  [RecordState.ACKNOWLEDGED]: [],
  [RecordState.ARCHIVED]: [],
};

function move(e: InFlight, to: RecordStateValue): number {
  if (!moves[e.state].includes(to)) throw new Error(`share record ${e.offset}: no move from state ${e.state} to ${to}`);
  const delta = (to === RecordState.AVAILABLE ? 1 : 0) - (e.state === RecordState.AVAILABLE ? 1 : 0);
  e.state = to;
  if (to !== RecordState.ACQUIRED) e.owner = undefined;
  return delta;
}

const COMPACT_AT = 1_024;

export class SharePartition {
  private entries: InFlight[] = [];
  private head = 0;
  /** Changed since the last snapshot was taken. */
  dirty = false;
  /** Available records in the window (so a fetch skips the scan when there are none). */
  private available = 0;

  constructor(
    readonly topic: string,
    readonly partition: number,
    public spso: bigint,
    public speo: bigint,
  ) {}

  /** From a persisted snapshot: Acquired records come back Available, their counts kept. */
  static restore(topic: string, partition: number, s: SharePartitionSnapshot): SharePartition {
    const p = new SharePartition(topic, partition, s.spso, s.speo);
    for (const r of s.records) {
      const state = r.state === RecordState.ACQUIRED ? RecordState.AVAILABLE : r.state;
      p.entries.push({
        offset: r.offset,
        state,
        deliveryCount: r.deliveryCount,
        owner: undefined,
        lockDeadline: 0,
        acquiredAt: 0,
        availableAt: 0,
      });
      if (state === RecordState.AVAILABLE) p.available++;
    }
    p.advance();
    return p;
  }

  /** Records in the window (every state). */
  get inFlightCount(): number {
    return this.entries.length - this.head;
  }

  *inFlight(): IterableIterator<InFlight> {
    for (let i = this.head; i < this.entries.length; i++) yield this.entries[i]!;
  }

  /** Expired locks become Available, or Archived at the delivery limit. Returns how many changed. */
  expire(now: number, limit: number, archived: ArchivedNote[]): number {
    let changed = 0;
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.state === RecordState.ACQUIRED && e.lockDeadline <= now) {
        this.release(e, 0, now, limit, archived);
        changed++;
      }
    }
    if (changed > 0) this.advance();
    return changed;
  }

  /** Acquires up to `max` Available records for `member`, oldest first. */
  acquireAvailable(member: string, max: number, now: number, lockMs: number): InFlight[] {
    const out: InFlight[] = [];
    if (this.available === 0) return out;
    for (let i = this.head; i < this.entries.length && out.length < max; i++) {
      const e = this.entries[i]!;
      if (e.state === RecordState.AVAILABLE && e.availableAt <= now) {
        this.acquire(e, member, now, lockMs);
        out.push(e);
      }
    }
    return out;
  }

  /** Records read from the log at the SPEO, acquired by `member` at once; `nextSpeo` is past what was read. */
  appendAcquired(
    offsets: readonly bigint[],
    nextSpeo: bigint,
    member: string,
    now: number,
    lockMs: number,
  ): InFlight[] {
    const out = new Array<InFlight>(offsets.length);
    for (let i = 0; i < offsets.length; i++) {
      const e: InFlight = {
        offset: offsets[i]!,
        state: RecordState.ACQUIRED,
        deliveryCount: 1,
        owner: member,
        lockDeadline: now + lockMs,
        acquiredAt: now,
        availableAt: 0,
      };
      this.entries.push(e);
      out[i] = e;
    }
    this.speo = nextSpeo;
    this.dirty = true;
    this.advance();
    return out;
  }

  /** Drops a record that can no longer be read (below the log start): it can never be delivered again. */
  drop(e: InFlight): void {
    this.available += move(e, RecordState.ARCHIVED);
    this.dirty = true;
    this.advance();
  }

  /** The in-flight records with first ≤ offset ≤ last. */
  between(first: bigint, last: bigint): InFlight[] {
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.offset < first) lo = mid + 1;
      else hi = mid;
    }
    const out: InFlight[] = [];
    for (let i = lo; i < this.entries.length && this.entries[i]!.offset <= last; i++) out.push(this.entries[i]!);
    return out;
  }

  accept(e: InFlight): void {
    this.available += move(e, RecordState.ACKNOWLEDGED);
    this.dirty = true;
  }

  reject(e: InFlight, reason: string, archived: ArchivedNote[]): void {
    this.available += move(e, RecordState.ARCHIVED);
    archived.push(this.note(e, 'rejected', reason));
    this.dirty = true;
  }

  renew(e: InFlight, now: number, lockMs: number): void {
    this.available += move(e, RecordState.ACQUIRED);
    e.lockDeadline = now + lockMs;
  }

  /** Back to Available (after `delayMs`), or Archived once the record was delivered `limit` times. */
  release(e: InFlight, delayMs: number, now: number, limit: number, archived: ArchivedNote[]): void {
    if (e.deliveryCount >= limit) {
      this.available += move(e, RecordState.ARCHIVED);
      archived.push(this.note(e, 'delivery-limit', `delivered ${e.deliveryCount} times`));
    } else {
      this.available += move(e, RecordState.AVAILABLE);
      e.availableAt = now + delayMs;
    }
    this.dirty = true;
  }

  /** Releases everything `member` holds (it left, disconnected or lapsed); counts are kept. */
  releaseMember(member: string, now: number, limit: number, archived: ArchivedNote[]): number {
    let n = 0;
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.state === RecordState.ACQUIRED && e.owner === member) {
        this.release(e, 0, now, limit, archived);
        n++;
      }
    }
    if (n > 0) this.advance();
    return n;
  }

  /** Moves the SPSO past the done records at the front of the window. */
  advance(): void {
    const entries = this.entries;
    while (this.head < entries.length) {
      const s = entries[this.head]!.state;
      if (s !== RecordState.ACKNOWLEDGED && s !== RecordState.ARCHIVED) break;
      this.head++;
    }
    const spso = this.head < entries.length ? entries[this.head]!.offset : this.speo;
    if (spso !== this.spso) {
      this.spso = spso;
      this.dirty = true;
    }
    if (this.head >= COMPACT_AT && this.head * 2 >= entries.length) {
      this.entries = entries.slice(this.head);
      this.head = 0;
    }
  }

  /** Starts over at `offset` with an empty window (SHARE_RESET, or a log that lost the window's records). */
  resetTo(offset: bigint): void {
    this.entries = [];
    this.available = 0;
    this.head = 0;
    this.spso = offset;
    this.speo = offset;
    this.dirty = true;
  }

  snapshot(): SharePartitionSnapshot {
    const records = new Array<SharePartitionSnapshot['records'][number]>(this.entries.length - this.head);
    for (let i = this.head; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      records[i - this.head] = { offset: e.offset, state: e.state, deliveryCount: e.deliveryCount };
    }
    return { spso: this.spso, speo: this.speo, records };
  }

  private acquire(e: InFlight, member: string, now: number, lockMs: number): void {
    this.available += move(e, RecordState.ACQUIRED);
    e.owner = member;
    e.deliveryCount++;
    e.lockDeadline = now + lockMs;
    e.acquiredAt = now;
    e.availableAt = 0;
    this.dirty = true;
  }

  private note(e: InFlight, disposition: ArchivedNote['disposition'], reason: string): ArchivedNote {
    return {
      topic: this.topic,
      partition: this.partition,
      offset: e.offset,
      deliveryCount: e.deliveryCount,
      disposition,
      reason,
    };
  }
}

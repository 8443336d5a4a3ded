/**
 * One share-partition's in-flight window (KIP-932): every record between the share-partition start offset (SPSO)
 * and end offset (SPEO) that was ever acquired, with its state and delivery count, kept as runs of records
 * (share-runs.ts) sorted by offset. Below the SPSO everything is done (Acknowledged or Archived); at and above the
 * SPEO nothing was read yet.
 *
 * State moves follow one table (`moves`); the window itself does no I/O: the runtime reads the log, persists
 * snapshots and copies archived records to the DLQ.
 */
import {
  RecordState,
  type RecordStateValue,
  type SharePartitionSnapshot,
  type StoredRun,
} from '../../storage/share-state-codec.js';
import { type Run, indexAtOrAfter, newRun, recordsBetween, runOf, splitAt } from './share-runs.js';

export { RecordState, type RecordStateValue, type Run };

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

const COMPACT_AT = 256;

export class SharePartition {
  private runs: Run[] = [];
  private head = 0;
  /** Records in the window (every state). */
  private records = 0;
  /** Available records in the window (so a fetch skips the scan when there are none). */
  private available = 0;
  /** Changed since the last snapshot was taken. */
  dirty = false;

  constructor(
    readonly topic: string,
    readonly partition: number,
    public spso: bigint,
    public speo: bigint,
  ) {}

  /** From a persisted snapshot: Acquired runs come back Available, their counts kept; neighbours alike merge. */
  static restore(topic: string, partition: number, s: SharePartitionSnapshot): SharePartition {
    const p = new SharePartition(topic, partition, s.spso, s.speo);
    const stateOf = (r: StoredRun) => (r.state === RecordState.ACQUIRED ? RecordState.AVAILABLE : r.state);
    for (let i = 0; i < s.runs.length;) {
      const state = stateOf(s.runs[i]!);
      const count = s.runs[i]!.deliveryCount;
      let j = i + 1;
      while (j < s.runs.length && stateOf(s.runs[j]!) === state && s.runs[j]!.deliveryCount === count) j++;
      p.push(restoredRun(s.runs.slice(i, j), state, count));
      i = j;
    }
    p.advance();
    return p;
  }

  get inFlightCount(): number {
    return this.records;
  }

  /** The window's runs in offset order (read only). */
  *inFlight(): IterableIterator<Readonly<Run>> {
    for (let i = this.head; i < this.runs.length; i++) yield this.runs[i]!;
  }

  /** Expired locks become Available, or Archived at the delivery limit. Returns how many records changed. */
  expire(now: number, limit: number, archived: ArchivedNote[]): number {
    let changed = 0;
    for (let i = this.head; i < this.runs.length; i++) {
      const r = this.runs[i]!;
      if (r.state === RecordState.ACQUIRED && r.lockDeadline <= now) {
        this.release(r, 0, now, limit, archived);
        changed += r.count;
      }
    }
    if (changed > 0) this.advance();
    return changed;
  }

  /** The Available runs acquirable at `now`, oldest first. */
  acquirable(now: number): Run[] {
    const out: Run[] = [];
    if (this.available === 0) return out;
    for (let i = this.head; i < this.runs.length; i++) {
      const r = this.runs[i]!;
      if (r.state === RecordState.AVAILABLE && r.availableAt <= now) out.push(r);
    }
    return out;
  }

  /** Acquires the first `n` records of the Available `run` (offsets known) for `member`; returns their run. */
  acquireFront(run: Run, n: number, member: string, now: number, lockMs: number): Run {
    if (n < run.count) this.insertAfter(run, splitAt(run, n));
    this.available += this.move(run, RecordState.ACQUIRED);
    run.owner = member;
    run.deliveryCount++;
    run.lockDeadline = now + lockMs;
    run.acquiredAt = now;
    run.availableAt = 0;
    this.dirty = true;
    return run;
  }

  /**
   * What the log holds of `run` now (its data records' starts, read from the log start on): the run takes these
   * offsets (a restored run learns them), or is dropped when none is left.
   */
  resolve(run: Run, offsets: BigUint64Array): void {
    if (offsets.length === 0) return this.drop(run);
    const delta = offsets.length - run.count;
    run.offsets = offsets;
    run.first = offsets[0]!;
    run.last = offsets[offsets.length - 1]!;
    run.count = offsets.length;
    this.records += delta;
    if (run.state === RecordState.AVAILABLE) this.available += delta;
    this.dirty = true;
    this.advance();
  }

  /** Records read from the log at the SPEO, acquired by `member` at once; `nextSpeo` is past what was read. */
  appendAcquired(
    offsets: BigUint64Array,
    nextSpeo: bigint,
    member: string,
    now: number,
    lockMs: number,
  ): Run | undefined {
    let run: Run | undefined;
    if (offsets.length > 0) {
      run = runOf(offsets, RecordState.ACQUIRED, 1);
      run.owner = member;
      run.lockDeadline = now + lockMs;
      run.acquiredAt = now;
      this.push(run);
    }
    this.speo = nextSpeo;
    this.dirty = true;
    this.advance();
    return run;
  }

  /** Drops a run that can no longer be read (below the log start): it can never be delivered again. */
  drop(run: Run): void {
    this.available += this.move(run, RecordState.ARCHIVED);
    this.dirty = true;
    this.advance();
  }

  /**
   * Records with first ≤ offset ≤ last, when every run holding any of them is Acquired by `member`; -1 when one is
   * not (nothing changes either way).
   */
  heldBy(member: string, first: bigint, last: bigint): number {
    let n = 0;
    for (let i = this.firstOverlap(first); i < this.runs.length && this.runs[i]!.first <= last; i++) {
      const r = this.runs[i]!;
      const k = recordsBetween(r, first, last);
      if (k === 0) continue;
      if (r.state !== RecordState.ACQUIRED || r.owner !== member) return -1;
      n += k;
    }
    return n;
  }

  /** Splits runs at `first` and past `last` so the records between form whole runs, and returns those runs. */
  isolate(first: bigint, last: bigint): Run[] {
    const out: Run[] = [];
    for (let i = this.firstOverlap(first); i < this.runs.length && this.runs[i]!.first <= last; i++) {
      let r = this.runs[i]!;
      if (recordsBetween(r, first, last) === 0) continue;
      if (r.first < first) {
        const tail = splitAt(r, indexAtOrAfter(r, first));
        this.runs.splice(++i, 0, tail);
        r = tail;
      }
      if (r.last > last) this.runs.splice(i + 1, 0, splitAt(r, indexAtOrAfter(r, last + 1n)));
      out.push(r);
    }
    return out;
  }

  accept(run: Run): void {
    this.available += this.move(run, RecordState.ACKNOWLEDGED);
    this.dirty = true;
  }

  reject(run: Run, reason: string, archived: ArchivedNote[]): void {
    this.available += this.move(run, RecordState.ARCHIVED);
    this.note(run, 'rejected', reason, archived);
    this.dirty = true;
  }

  renew(run: Run, now: number, lockMs: number): void {
    this.available += this.move(run, RecordState.ACQUIRED);
    run.lockDeadline = now + lockMs;
  }

  /** Back to Available (after `delayMs`), or Archived once the run was delivered `limit` times. */
  release(run: Run, delayMs: number, now: number, limit: number, archived: ArchivedNote[]): void {
    if (run.deliveryCount >= limit) {
      this.available += this.move(run, RecordState.ARCHIVED);
      this.note(run, 'delivery-limit', `delivered ${run.deliveryCount} times`, archived);
    } else {
      this.available += this.move(run, RecordState.AVAILABLE);
      run.availableAt = now + delayMs;
    }
    this.dirty = true;
  }

  /** Releases everything `member` holds (it left, disconnected or lapsed); counts are kept. Returns the records. */
  releaseMember(member: string, now: number, limit: number, archived: ArchivedNote[]): number {
    let n = 0;
    for (let i = this.head; i < this.runs.length; i++) {
      const r = this.runs[i]!;
      if (r.state === RecordState.ACQUIRED && r.owner === member) {
        this.release(r, 0, now, limit, archived);
        n += r.count;
      }
    }
    if (n > 0) this.advance();
    return n;
  }

  /** Moves the SPSO past the done runs at the front of the window. */
  advance(): void {
    const runs = this.runs;
    while (this.head < runs.length) {
      const r = runs[this.head]!;
      if (r.state !== RecordState.ACKNOWLEDGED && r.state !== RecordState.ARCHIVED) break;
      this.records -= r.count;
      this.head++;
    }
    const spso = this.head < runs.length ? runs[this.head]!.first : this.speo;
    if (spso !== this.spso) {
      this.spso = spso;
      this.dirty = true;
    }
    if (this.head >= COMPACT_AT && this.head * 2 >= runs.length) {
      this.runs = runs.slice(this.head);
      this.head = 0;
    }
  }

  /** Starts over at `offset` with an empty window (SHARE_RESET, or a log that lost the window's records). */
  resetTo(offset: bigint): void {
    this.runs = [];
    this.records = 0;
    this.available = 0;
    this.head = 0;
    this.spso = offset;
    this.speo = offset;
    this.dirty = true;
  }

  /** The window as stored: neighbouring runs with one state and delivery count become one entry. */
  snapshot(): SharePartitionSnapshot {
    const runs: StoredRun[] = [];
    let prev: StoredRun | undefined;
    for (let i = this.head; i < this.runs.length; i++) {
      const r = this.runs[i]!;
      if (prev && prev.state === r.state && prev.deliveryCount === r.deliveryCount) {
        prev.last = r.last;
        prev.records += r.count;
        continue;
      }
      prev = { first: r.first, last: r.last, records: r.count, state: r.state, deliveryCount: r.deliveryCount };
      runs.push(prev);
    }
    return { spso: this.spso, speo: this.speo, runs };
  }

  private push(run: Run): void {
    this.runs.push(run);
    this.records += run.count;
    if (run.state === RecordState.AVAILABLE) this.available += run.count;
  }

  private insertAfter(run: Run, tail: Run): void {
    this.runs.splice(this.firstOverlap(run.first) + 1, 0, tail);
  }

  /** Index of the first run (from the head) whose last offset is ≥ `offset`. */
  private firstOverlap(offset: bigint): number {
    let lo = this.head;
    let hi = this.runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.runs[mid]!.last < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Moves `run` to `to` and returns the change in Available records. */
  private move(run: Run, to: RecordStateValue): number {
    if (!moves[run.state].includes(to))
      throw new Error(`share records ${run.first}..${run.last}: no move from state ${run.state} to ${to}`);
    const delta = ((to === RecordState.AVAILABLE ? 1 : 0) - (run.state === RecordState.AVAILABLE ? 1 : 0)) * run.count;
    run.state = to;
    if (to !== RecordState.ACQUIRED) run.owner = undefined;
    return delta;
  }

  /** Every record of the Archived `run` gets a note (Acquired runs were read here, so their offsets are known). */
  private note(run: Run, disposition: ArchivedNote['disposition'], reason: string, archived: ArchivedNote[]): void {
    const { topic, partition } = this;
    const deliveryCount = run.deliveryCount;
    for (const offset of run.offsets ?? [])
      archived.push({ topic, partition, offset, deliveryCount, disposition, reason });
  }
}

/** One run for stored runs that share a state and count: offsets known when every stored run is one record. */
function restoredRun(stored: readonly StoredRun[], state: RecordStateValue, deliveryCount: number): Run {
  const first = stored[0]!.first;
  const last = stored[stored.length - 1]!.last;
  if (stored.every((s) => s.records === 1))
    return runOf(
      BigUint64Array.from(stored, (s) => s.first),
      state,
      deliveryCount,
    );
  return newRun(
    undefined,
    first,
    last,
    stored.reduce((n, s) => n + s.records, 0),
    state,
    deliveryCount,
  );
}

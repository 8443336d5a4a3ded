/**
 * The partitions of an internal topic (`__consumer_offsets`, `__producer_state`, `__transaction_state`) as the
 * broker's stores write and replay them. A write is appended synchronously, so records land in the order requests
 * were handled, and is durable before the request it serves is answered.
 *
 * Internal topics use the commit-log backend, whose sync() fsyncs at once on every call. Syncs of one partition
 * are therefore coalesced here by a GroupCommitter on the eager policy: one fsync runs, and everyone who appends
 * meanwhile waits for a single follow-up, so pipelined requests share fsyncs and none waits for more than two.
 */
import { GroupCommitter } from '../storage/group-committer.js';
import type { LogRecord, PartitionLog } from '../storage/partition-log.js';
import type { RecordToStore } from '../storage/record.js';

const REPLAY_CHUNK = 4_096;

export class InternalTopicLogs {
  private readonly committers = new Map<PartitionLog, GroupCommitter>();
  private readonly pending = new Set<Promise<void>>();
  /** Records appended since start, including those of an append that failed part way (tests count them). */
  appended = 0;

  /** `logs` is the topic's live partition array (index 0 = partition 1). */
  constructor(readonly logs: readonly PartitionLog[]) {}

  /** Partition `partition` (1-based). */
  log(partition: number): PartitionLog {
    const log = this.logs[partition - 1];
    if (!log) throw new RangeError(`no partition ${partition} among ${this.logs.length}`);
    return log;
  }

  /** Appends `records` to `log` in one call; throws when the append fails (records before the failure stay). */
  append(log: PartitionLog, records: readonly RecordToStore[]): void {
    const result = log.append(records);
    this.appended += result.offsets.length;
    if (result.error) throw result.error;
  }

  /** Resolves once everything appended to `logs` so far is durable; rejects when an fsync failed. */
  durable(logs: readonly PartitionLog[]): Promise<void> {
    const synced =
      logs.length === 1
        ? this.committer(logs[0]!).request()
        : Promise.all(logs.map((l) => this.committer(l).request())).then(() => undefined);
    this.pending.add(synced);
    const done = (): void => {
      this.pending.delete(synced);
    };
    synced.then(done, done);
    return synced;
  }

  /** Waits for every sync started so far (failures are the writers' to report). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private committer(log: PartitionLog): GroupCommitter {
    let committer = this.committers.get(log);
    if (!committer) this.committers.set(log, (committer = new GroupCommitter(() => log.sync(), { policy: 'eager' })));
    return committer;
  }
}

/**
 * A store that writes one internal topic by key: each record goes to the partition `partitionOf` names for its
 * key, stamped with `now()`. `__producer_state` and `__transaction_state` are kept this way.
 */
export abstract class KeyedInternalStore {
  protected readonly logs: InternalTopicLogs;

  /** `partitions` is the topic's live partition array (index 0 = partition 1). */
  constructor(
    partitions: readonly PartitionLog[],
    private readonly now: () => bigint,
    private readonly partitionOf: (key: Buffer, partitions: number) => number,
  ) {
    this.logs = new InternalTopicLogs(partitions);
  }

  /** Records appended since start (tests count them). */
  get writeCount(): number {
    return this.logs.appended;
  }

  /** Waits for every sync started so far (failures are the writers' to report). */
  flush(): Promise<void> {
    return this.logs.flush();
  }

  /**
   * Appends the writes in order (one append per partition touched, all with one timestamp) and returns the promise
   * of their durability. Throws when an append fails; writes before the failing partition's stay appended.
   */
  protected appendKeyed(writes: ReadonlyArray<{ key: Buffer; value: Buffer }>): Promise<void> {
    const timestamp = this.now();
    const byLog = new Map<PartitionLog, RecordToStore[]>();
    for (const w of writes) {
      const log = this.logs.log(this.partitionOf(w.key, this.logs.logs.length));
      let list = byLog.get(log);
      if (!list) byLog.set(log, (list = []));
      list.push({ attrs: 0, timestamp, key: w.key, value: w.value });
    }
    for (const [log, records] of byLog) this.logs.append(log, records);
    return this.logs.durable([...byLog.keys()]);
  }
}

/** Every record of `logs`, partition by partition, front to back: the replay at start of each internal topic. */
export function* replayRecords(logs: readonly PartitionLog[]): Generator<{ log: PartitionLog; record: LogRecord }> {
  for (const log of logs) {
    let offset = log.logStartOffset;
    while (offset < log.logEndOffset) {
      const batch = log.read(offset, { maxRecords: REPLAY_CHUNK });
      if (batch.length === 0) break;
      for (const record of batch) yield { log, record };
      offset = batch[batch.length - 1]!.nextOffset;
    }
  }
}

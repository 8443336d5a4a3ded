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
    const result = log.append(records as RecordToStore[]);
    this.appended += result.offsets.length;
    if (result.error) throw result.error;
  }

  /** Resolves once everything appended to `logs` so far is durable; rejects when an fsync failed. */
  durable(logs: readonly PartitionLog[]): Promise<void> {
    const synced = logs.length === 1 ? this.committer(logs[0]!).request() : Promise.all(logs.map((l) => this.committer(l).request())).then(() => undefined);
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

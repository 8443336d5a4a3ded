/**
 * What share groups read from a partition log: new records at the SPEO (through the consumer's poller, which steps
 * over control records and, under read_committed, aborted ones and stops at the LSO), the records of a run again for
 * redelivery (the broker keeps no record cache: KIP-932 re-fetches too), and single records (SHARE_RESET, the DLQ).
 */
import { decompressValue } from '../../protocol/compression.js';
import type { LogRecord, PartitionLog } from '../../storage/partition-log.js';
import { RecordAttr } from '../../storage/record.js';
import type { BrokerCore } from '../core.js';
import { highWatermark } from '../read-ceiling.js';
import { type PolledPartition, poll } from '../consumer/fetch-poller.js';

export interface ReadRecord {
  record: LogRecord;
  value: Buffer;
}

/**
 * The readable end for a group: the high watermark (read-ceiling.ts: the durable end under acks=leader, so a share
 * consumer never acquires a record a power loss could erase), and under read_committed also the LSO.
 */
export function readCeiling(
  broker: BrokerCore,
  topic: string,
  partition: number,
  log: PartitionLog,
  committed: boolean,
): bigint {
  const hwm = highWatermark(broker.config.acks, log);
  if (!committed) return hwm;
  const lso = broker.transactions.lso(topic, partition, log);
  return lso < hwm ? lso : hwm;
}

/** Up to `max` data records from `from`, below the ceiling (and below `until` when given). */
export function readNew(
  broker: BrokerCore,
  topic: string,
  partition: number,
  log: PartitionLog,
  from: bigint,
  max: number,
  committed: boolean,
  maxBytes: number,
  until?: bigint,
): PolledPartition | undefined {
  const ceiling = readCeiling(broker, topic, partition, log, committed);
  const result = poll(
    [
      {
        topic,
        topicBytes: Buffer.from(topic),
        partition,
        log,
        cursor: from,
        ceiling: until !== undefined && until < ceiling ? until : ceiling,
        isAborted: committed ? broker.transactions.abortFilter(topic, partition) : undefined,
      },
    ],
    { maxRecords: max, allowance: max, maxBytes },
  );
  return result.partitions[0];
}

/** The data record at exactly `offset`, its value decompressed; undefined when it is gone (retention) or unreadable. */
export function readAt(log: PartitionLog, offset: bigint): ReadRecord | undefined {
  if (offset < log.logStartOffset || offset >= log.logEndOffset) return undefined;
  let rec: LogRecord | undefined;
  try {
    [rec] = log.read(offset, { maxRecords: 1 });
  } catch {
    return undefined;
  }
  if (!rec || rec.offset !== offset || rec.attrs & RecordAttr.CONTROL) return undefined;
  const codec = rec.attrs & RecordAttr.CODEC_MASK;
  try {
    return { record: rec, value: codec ? decompressValue(codec, rec.value) : rec.value };
  } catch {
    return undefined;
  }
}

/**
 * The value of a record on a dead-letter topic (wire.md §13 item 8). The key of the DLQ record is the original key.
 *
 *   u8  version          1
 *   str topic            the original topic (u32 length · bytes)
 *   u32 partition        1-based
 *   u64 offset           the record's own offset
 *   u64 timestamp_ms     the original record's timestamp
 *   str group            the group that gave up on it
 *   u16 attempts         deliveries counted before dead-lettering
 *   str reason           the last NACK's reason
 *   str value            the original value, decompressed
 */
import { DecodeError } from '../errors.js';
import { Reader } from './reader.js';
import { Writer } from './writer.js';

export const DLQ_ENVELOPE_VERSION = 1;

export interface DlqEnvelope {
  topic: string;
  partition: number;
  offset: bigint;
  timestamp: bigint;
  group: string;
  attempts: number;
  reason: string;
  value: Buffer;
}

export function encodeDlqEnvelope(e: DlqEnvelope): Buffer {
  const topic = Buffer.from(e.topic);
  const group = Buffer.from(e.group);
  const reason = Buffer.from(e.reason);
  const w = new Writer(
    1 + 4 + topic.length + 4 + 8 + 8 + 4 + group.length + 2 + 4 + reason.length + 4 + e.value.length,
  );
  w.u8(DLQ_ENVELOPE_VERSION)
    .str(topic)
    .u32(e.partition)
    .u64(e.offset)
    .u64(e.timestamp)
    .str(group)
    .u16(e.attempts)
    .str(reason)
    .str(e.value);
  return w.finish();
}

/** Reads an envelope; the value is a view into `bytes`. Refuses any version but 1. */
export function decodeDlqEnvelope(bytes: Buffer): DlqEnvelope {
  const r = new Reader(bytes);
  const version = r.u8('dlq.version');
  if (version !== DLQ_ENVELOPE_VERSION) {
    throw new DecodeError('dlq.version', 0, `unknown envelope version ${version}`);
  }
  const cap = bytes.length;
  return {
    topic: r.str('dlq.topic', cap),
    partition: r.u32('dlq.partition'),
    offset: r.u64('dlq.offset'),
    timestamp: r.u64('dlq.timestamp'),
    group: r.str('dlq.group', cap),
    attempts: r.u16('dlq.attempts'),
    reason: r.str('dlq.reason', cap),
    value: r.strBytes('dlq.value', cap),
  };
}

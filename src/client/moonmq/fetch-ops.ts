/**
 * FETCH (pull mode). The reply is either RECORD ×n or one RECORD_BATCH, both with the fetch correl, then OK; a
 * failure is a lone ERROR (wire.md §2.5). The broker commits the group's offsets once it has sent the records, so
 * every record returned here has been handed out: nothing is dropped client-side.
 */
import { DecodeError, UsageError } from '../../errors.js';
import type { Frame } from '../../protocol/frame-decoder.js';
import { Caps } from '../../protocol/limits.js';
import { decodePayload } from '../../protocol/message.js';
import { FetchRequest, RecordReply, recordBatchCodec, type FetchedRecord } from '../../protocol/messages/fetch.js';
import { FetchFlag, Op, opName, type IsolationLevel } from '../../protocol/opcodes.js';
import { MAX_REPLY_FRAMES } from './connection.js';
import { type FetchTable, decodeFetchTable } from '../fetch-table.js';
import { requireHeaderSupport } from './produce-ops.js';
import { isolationByte, type IsolationName, type Session } from './session.js';
import { validateString, validateTopicName, validateU32 } from '../validate.js';

export type { FetchedRecord, FetchTable };

export const DEFAULT_FETCH_MAX_RECORDS = 100;

export interface FetchOptions {
  /** Total cap for this fetch; the broker shares it evenly across the partitions it reads. Default 100. */
  maxRecords?: number;
  /** Ask for one RECORD_BATCH (default). false forces the legacy one-RECORD-per-record stream. */
  batched?: boolean;
  isolation?: IsolationName | IsolationLevel;
  /** Ask for header blocks (crater brokers only, batched only). */
  headers?: boolean;
  /** Keep the reply frames as received (op, correl, payload), terminator included. */
  raw?: boolean;
  /**
   * Give a batched reply as a FetchTable (the frame's bytes and a row of positions per record, no object per record)
   * and leave `records` empty. A reply the table cannot hold (legacy RECORD frames) still comes as `records`.
   */
  table?: boolean;
  timeoutMs?: number;
}

export interface FetchResult {
  records: FetchedRecord[];
  /** 'batch' when the records came in a RECORD_BATCH, 'legacy' for RECORD frames; with no records, what was asked. */
  shape: 'batch' | 'legacy';
  /** Reply frames received, the closing OK included (a batched fetch of n > 0 records is 2). */
  frames: number;
  rawFrames?: Frame[];
  /** With `table: true`, the records of a batched reply (then `records` is empty). */
  table?: FetchTable;
}

export async function fetchRecords(
  session: Session,
  topic: string,
  group: string,
  options: FetchOptions = {},
): Promise<FetchResult> {
  validateTopicName(topic);
  validateString('group', group, Caps.group);
  const maxRecords = options.maxRecords ?? DEFAULT_FETCH_MAX_RECORDS;
  validateU32('maxRecords', maxRecords);
  const batched = options.batched ?? true;
  const headers = options.headers ?? false;
  if (headers) {
    if (!batched) throw new UsageError('headers come only in a batched fetch: drop batched: false');
    requireHeaderSupport(session);
  }
  const flags = (batched ? FetchFlag.BATCHED : 0) | (headers ? FetchFlag.HEADERS : 0);
  const message = {
    topic,
    group,
    maxRecords,
    isolation: isolationByte(options.isolation),
    flags: flags === 0 ? undefined : flags,
  };
  // A reply has at most one RECORD per record (or one RECORD_BATCH) and the OK: more is a broker gone wrong.
  const maxFrames = Math.min(Math.max(maxRecords, 1), MAX_REPLY_FRAMES - 1) + 1;
  const frames = await session.conn.requestStream(FetchRequest, message, Op.OK, {
    timeoutMs: options.timeoutMs,
    maxFrames,
  });
  const table = options.table ? tableOf(frames, headers) : undefined;
  if (table)
    return { records: [], shape: 'batch', frames: frames.length, table, rawFrames: options.raw ? frames : undefined };
  const { records, shape } = decodeFetchReply(frames, headers, batched ? 'batch' : 'legacy');
  const result: FetchResult = { records, shape, frames: frames.length };
  if (options.raw) result.rawFrames = frames;
  return result;
}

/** The reply as a FetchTable when it is one RECORD_BATCH and its OK that the table's checks accept. */
function tableOf(frames: readonly Frame[], withHeaders: boolean): FetchTable | undefined {
  const first = frames[0];
  if (frames.length !== 2 || first?.op !== Op.RECORD_BATCH || frames[1]?.op !== Op.OK) return undefined;
  return decodeFetchTable(first.payload, withHeaders);
}

/** Decodes the frames of one FETCH reply (terminator included), accepting either shape. */
export function decodeFetchReply(
  frames: readonly Frame[],
  withHeaders: boolean,
  emptyShape: 'batch' | 'legacy' = 'batch',
): { records: FetchedRecord[]; shape: 'batch' | 'legacy' } {
  const batchCodec = recordBatchCodec(withHeaders);
  let records: FetchedRecord[] = [];
  let sawBatch = false;
  let sawRecord = false;
  for (const frame of frames) {
    if (frame.op === Op.RECORD_BATCH) {
      const batch = decodePayload(batchCodec, frame.payload).records;
      records = records.length === 0 ? batch : records.concat(batch);
      sawBatch = true;
    } else if (frame.op === Op.RECORD) {
      records.push(decodePayload(RecordReply, frame.payload));
      sawRecord = true;
    } else if (frame.op !== Op.OK) {
      throw new DecodeError('op', 0, `${opName(frame.op)} is not part of a FETCH reply`);
    }
  }
  const shape = sawBatch ? 'batch' : sawRecord ? 'legacy' : emptyShape;
  return { records, shape };
}

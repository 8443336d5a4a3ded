/**
 * The engine behind `crater produce`: input lines become records (plain lines with -K/-k/-H, or JSONL envelopes),
 * and records go out through a Producer's accumulator (produce-runner.ts). Every record gets exactly one Delivery,
 * in input order: acked (partition, offset), failed (the error that kept it out of the log) or uncertain (it may
 * have been written). Per-record failures (a malformed line, a record too large, a broker error) are reported and
 * production goes on; a lost connection, a timeout or an uncertain delivery ends it.
 */
import type { CraterError } from '../errors.js';
import type { ProducerRecord } from '../client/index.js';
import type { RecordHeader } from '../protocol/headers.js';
import { parseEnvelope } from './render/envelope.js';
import { type InputLine, splitKey } from './line-input.js';

export interface PendingRecord {
  /** 0-based position among the records read. */
  index: number;
  source: string;
  lineNo: number;
  record?: ProducerRecord;
  /** Set when the input line could not become a record; nothing is sent for it. */
  error?: CraterError;
}

export interface Delivery {
  index: number;
  source: string;
  line: number;
  topic: string;
  outcome: 'acked' | 'failed' | 'uncertain';
  partition?: number;
  offset?: bigint;
  error?: { code: string; message: string };
}

export interface LineOptions {
  input: 'lines' | 'jsonl';
  keyDelimiter?: Buffer | undefined;
  key?: Buffer | undefined;
  headers?: RecordHeader[] | undefined;
  /** -Z: an empty line is sent as a record with an empty value (a tombstone on a compacted topic) instead of skipped. */
  keepEmpty?: boolean | undefined;
}

function skipped(line: InputLine, options: LineOptions): boolean {
  if (options.input === 'jsonl') return line.bytes.toString('utf8').trim() === '';
  return line.bytes.length === 0 && !options.keepEmpty;
}

/** One input line as the record to send, or the error that keeps it from being one. */
function pendingRecord(line: InputLine, index: number, options: LineOptions): PendingRecord {
  if (options.input === 'jsonl') {
    try {
      const env = parseEnvelope(line.bytes.toString('utf8'), `${line.source}:${line.lineNo}`);
      const record = { key: env.key, value: env.value, headers: env.headers };
      return { index, source: line.source, lineNo: line.lineNo, record };
    } catch (error) {
      return { index, source: line.source, lineNo: line.lineNo, error: error as CraterError };
    }
  }
  const { key, value } = options.keyDelimiter
    ? splitKey(line.bytes, options.keyDelimiter)
    : { key: options.key, value: line.bytes };
  const record = { key: key !== undefined && key.length > 0 ? key : undefined, value, headers: options.headers };
  return { index, source: line.source, lineNo: line.lineNo, record };
}

/**
 * The records of each chunk of lines, as one array per chunk. Empty lines are skipped in both modes unless
 * keepEmpty (an empty value is sent with --input jsonl and {"utf8":""}).
 */
export async function* recordChunks(
  chunks: AsyncIterable<readonly InputLine[]>,
  options: LineOptions,
): AsyncGenerator<PendingRecord[]> {
  let index = 0;
  for await (const lines of chunks) {
    const records: PendingRecord[] = [];
    for (const line of lines) if (!skipped(line, options)) records.push(pendingRecord(line, index++, options));
    if (records.length > 0) yield records;
  }
}

export interface SendStats {
  records: number;
  delivered: number;
  failed: Delivery[];
  requests: number;
}

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

/** Empty lines are skipped in both modes unless keepEmpty (an empty value is sent with --input jsonl and {"utf8":""}). */
export async function* recordsFromLines(
  lines: AsyncIterable<InputLine>,
  options: LineOptions,
): AsyncGenerator<PendingRecord> {
  let index = 0;
  for await (const line of lines) {
    if (
      options.input === 'jsonl'
        ? line.bytes.toString('utf8').trim() === ''
        : line.bytes.length === 0 && !options.keepEmpty
    )
      continue;
    const base = { index: index++, source: line.source, lineNo: line.lineNo };
    if (options.input === 'jsonl') {
      try {
        const env = parseEnvelope(line.bytes.toString('utf8'), `${line.source}:${line.lineNo}`);
        yield { ...base, record: { key: env.key, value: env.value, headers: env.headers } };
      } catch (error) {
        yield { ...base, error: error as CraterError };
      }
      continue;
    }
    const { key, value } = options.keyDelimiter
      ? splitKey(line.bytes, options.keyDelimiter)
      : { key: options.key, value: line.bytes };
    yield {
      ...base,
      record: { key: key !== undefined && key.length > 0 ? key : undefined, value, headers: options.headers },
    };
  }
}

export interface SendStats {
  records: number;
  delivered: number;
  failed: Delivery[];
  requests: number;
}

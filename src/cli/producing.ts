/**
 * The engine behind `crater produce`: input lines become records (plain lines with -K/-k/-H, or JSONL envelopes),
 * one RecordChunk per chunk read, and records go out through a Producer's accumulator (produce-runner.ts). Every
 * record gets exactly one Delivery, in input order: acked (partition, offset), failed (the error that kept it out of
 * the log) or uncertain (it may have been written). Per-record failures (a malformed line, a record too large, a
 * broker error) are reported and production goes on; a lost connection, a timeout or an uncertain delivery ends it.
 */
import type { CraterError } from '../errors.js';
import type { ProducerRecord } from '../client/index.js';
import type { RecordHeader } from '../protocol/headers.js';
import { parseEnvelope } from './render/envelope.js';
import { type LineChunk, splitKey } from './line-input.js';

/**
 * Consecutive records of one source, in input order: `records[j]` is record `firstIndex + j` of the run (0-based
 * among the records read), from line `lineNos[j]` of `source`. A line that could not become a record is a chunk of
 * its own: `error` is set, `records` is empty and `lineNos` holds its line.
 */
export interface RecordChunk {
  source: string;
  firstIndex: number;
  lineNos: number[];
  records: ProducerRecord[];
  error?: CraterError | undefined;
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

/** The records of plain lines (-K, -k, -H): a view of the line as the value, no copy. */
function lineRecords(chunk: LineChunk, firstIndex: number, options: LineOptions): RecordChunk {
  const records: ProducerRecord[] = [];
  const lineNos: number[] = [];
  const { keyDelimiter, headers, keepEmpty } = options;
  const key = options.key !== undefined && options.key.length > 0 ? options.key : undefined;
  const lines = chunk.lines;
  for (let j = 0; j < lines.length; j++) {
    const line = lines[j]!;
    if (line.length === 0 && !keepEmpty) continue;
    lineNos.push(chunk.firstLineNo + j);
    if (keyDelimiter === undefined) {
      records.push({ key, value: line, headers });
      continue;
    }
    const split = splitKey(line, keyDelimiter);
    records.push({
      key: split.key !== undefined && split.key.length > 0 ? split.key : undefined,
      value: split.value,
      headers,
    });
  }
  return { source: chunk.source, firstIndex, lineNos, records };
}

/** The records of JSONL envelopes: a malformed line ends the chunk before it and is a chunk of its own. */
function* envelopeRecords(chunk: LineChunk, firstIndex: number): Generator<RecordChunk> {
  let run: RecordChunk = { source: chunk.source, firstIndex, lineNos: [], records: [] };
  for (let j = 0; j < chunk.lines.length; j++) {
    const text = chunk.lines[j]!.toString('utf8');
    if (text.trim() === '') continue;
    const lineNo = chunk.firstLineNo + j;
    const index = run.firstIndex + run.records.length;
    try {
      const env = parseEnvelope(text, `${chunk.source}:${lineNo}`);
      run.records.push({ key: env.key, value: env.value, headers: env.headers });
      run.lineNos.push(lineNo);
    } catch (error) {
      if (run.records.length > 0) yield run;
      yield { source: chunk.source, firstIndex: index, lineNos: [lineNo], records: [], error: error as CraterError };
      run = { source: chunk.source, firstIndex: index + 1, lineNos: [], records: [] };
    }
  }
  if (run.records.length > 0) yield run;
}

/**
 * The records of each chunk of lines. Empty lines are skipped in both modes unless keepEmpty (an empty value is sent
 * with --input jsonl and {"utf8":""}).
 */
export async function* recordChunks(
  chunks: AsyncIterable<LineChunk>,
  options: LineOptions,
): AsyncGenerator<RecordChunk> {
  let index = 0;
  for await (const lines of chunks) {
    if (options.input === 'jsonl') {
      for (const run of envelopeRecords(lines, index)) {
        index += run.error ? 1 : run.records.length;
        yield run;
      }
      continue;
    }
    const run = lineRecords(lines, index, options);
    index += run.records.length;
    if (run.records.length > 0) yield run;
  }
}

export interface SendStats {
  records: number;
  delivered: number;
  failed: Delivery[];
  requests: number;
}

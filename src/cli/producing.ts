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
import { type InputSource, type LineChunk, type LineSink, NEWLINE, splitInto, splitKey } from './line-input.js';

/**
 * Consecutive records of one source, in input order: `records[j]` is record `firstIndex + j` of the run (0-based
 * among the records read), from line `lineNos[j]` of `source`, or `firstLineNo + j` when no line in between was
 * skipped (`lineNos` undefined: most chunks, which then hold no number per record). A line that could not become a
 * record is a chunk of its own: `error` is set, `records` is empty and `lineNos` holds its line.
 */
export interface RecordChunk {
  source: string;
  firstIndex: number;
  firstLineNo?: number | undefined;
  lineNos?: number[] | undefined;
  records: ProducerRecord[];
  error?: CraterError | undefined;
}

/** The input line record `j` of `chunk` came from. */
export function lineOf(chunk: RecordChunk, j: number): number {
  return chunk.lineNos === undefined ? chunk.firstLineNo! + j : chunk.lineNos[j]!;
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

/** Array slots a chunk's records are given up front at most (a larger `new Array` is a slow dictionary). */
const MAX_PRESIZED_RECORDS = 65_536;

/** What every plain line's record shares (-k, -K, -H, -Z), resolved once. */
interface LineShape {
  key: Buffer | undefined;
  keyDelimiter: Buffer | undefined;
  headers: RecordHeader[] | undefined;
  keepEmpty: boolean;
}

function lineShape(options: LineOptions): LineShape {
  const key = options.key !== undefined && options.key.length > 0 ? options.key : undefined;
  return { key, keyDelimiter: options.keyDelimiter, headers: options.headers, keepEmpty: options.keepEmpty === true };
}

/**
 * The records of the lines of one chunk read, built as the splitter finds them: a view of the line as the value (no
 * copy), and no array of lines or of line numbers in between (those are per-record objects that live as long as the
 * record is pending, which the young-generation collector copies: a plain line is a Buffer view and one small
 * object, nothing more). Line numbers are kept only once a skipped empty line made them differ from the positions.
 */
class ChunkRecords implements LineSink<RecordChunk> {
  lines = 0;
  private readonly records: ProducerRecord[];
  private count = 0;
  private lineNos: number[] | undefined;

  constructor(
    private readonly shape: LineShape,
    private readonly source: string,
    private readonly firstIndex: number,
    private readonly firstLineNo: number,
    expected: number,
  ) {
    this.records = expected > 0 ? new Array<ProducerRecord>(Math.min(expected, MAX_PRESIZED_RECORDS)) : [];
  }

  add(line: Buffer): void {
    const lineNo = this.firstLineNo + this.lines++;
    const shape = this.shape;
    if (line.length === 0 && !shape.keepEmpty) {
      this.lineNos ??= Array.from({ length: this.count }, (_, j) => this.firstLineNo + j);
      return;
    }
    this.lineNos?.push(lineNo);
    this.records[this.count++] = lineRecord(line, shape);
  }

  finish(): RecordChunk | undefined {
    if (this.count === 0) return undefined;
    this.records.length = this.count;
    const { source, firstIndex, firstLineNo, lineNos, records } = this;
    return { source, firstIndex, firstLineNo, lineNos, records };
  }
}

/** The record of one plain line; without a key or headers it holds only its value (two fields less per record). */
function lineRecord(line: Buffer, shape: LineShape): ProducerRecord {
  const { key, headers } = shape;
  if (shape.keyDelimiter === undefined)
    return key === undefined && headers === undefined ? { value: line } : { key, value: line, headers };
  const split = splitKey(line, shape.keyDelimiter);
  return { key: split.key !== undefined && split.key.length > 0 ? split.key : undefined, value: split.value, headers };
}

/**
 * The records of plain lines (split at `delimiter`, a newline by default) of every source in turn, one RecordChunk
 * per chunk read that ended a line; indexes run on across sources, line numbers start at 1 in each.
 */
export async function* plainRecordChunks(
  sources: Iterable<InputSource>,
  options: LineOptions,
  delimiter: Buffer = NEWLINE,
): AsyncGenerator<RecordChunk> {
  const shape = lineShape(options);
  let index = 0;
  for (const { chunks, source } of sources) {
    const open = (firstLineNo: number, expected: number) =>
      new ChunkRecords(shape, source, index, firstLineNo, expected);
    for await (const chunk of splitInto(chunks, delimiter, open)) {
      index += chunk.records.length;
      yield chunk;
    }
  }
}

/** The records of JSONL envelopes: a malformed line ends the chunk before it and is a chunk of its own. */
function* envelopeRecords(chunk: LineChunk, firstIndex: number): Generator<RecordChunk> {
  let run: RecordChunk & { lineNos: number[] } = { source: chunk.source, firstIndex, lineNos: [], records: [] };
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

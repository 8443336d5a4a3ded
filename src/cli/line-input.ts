/**
 * Input for `crater produce`: the bytes of stdin or of each FILE, split into lines on 0x0A without decoding, so a
 * line's bytes reach the broker exactly as they were (no UTF-8 round trip, no CR stripping). The line after the
 * final newline is not a line when it is empty. Each line carries where it came from ("stdin:3", "data.txt:12").
 */
import { createReadStream } from 'node:fs';
import { UsageError } from '../errors.js';

export interface InputLine {
  bytes: Buffer;
  /** "stdin" or the file path as given. */
  source: string;
  /** 1-based line number within its source. */
  lineNo: number;
}

/** The lines of one chunk of input, in order: `lines[j]` is line `firstLineNo + j` of `source`. */
export interface LineChunk {
  source: string;
  firstLineNo: number;
  lines: Buffer[];
}

export const NEWLINE = Buffer.from('\n');

/**
 * What the splitter hands the lines of one chunk read to, in order, and what it makes of them: a LineChunk here, the
 * records themselves for `crater produce` (producing.ts), which then holds no array of lines in between.
 */
export interface LineSink<T> {
  add(line: Buffer): void;
  /** Lines added so far. */
  readonly lines: number;
  /** What the chunk yields, or undefined for nothing. */
  finish(): T | undefined;
}

/**
 * Splits a stream of chunks into records at `delimiter` (a newline unless `-D` says otherwise); chunk boundaries may
 * fall anywhere, even inside a multi-byte character or a multi-byte delimiter. The lines that end in one chunk go to
 * one sink (`open(firstLineNo, expectedLines)`), so a reader pays one await per chunk rather than one per line; a
 * sink may size its arrays by `expectedLines`, a guess from the previous chunk's line length (0: no guess). A line
 * is a view of the chunk it ended in (the stream hands out a fresh buffer per chunk); only a line that spans chunks
 * is copied, never a whole chunk.
 */
export async function* splitInto<T>(
  chunks: AsyncIterable<Buffer | string>,
  delimiter: Buffer,
  open: (firstLineNo: number, expectedLines: number) => LineSink<T>,
): AsyncGenerator<T> {
  if (delimiter.length === 0) throw new UsageError('the record delimiter must not be empty');
  // A one-byte delimiter is searched for as a number: Buffer#indexOf(Buffer) costs about twice as much per call.
  const needle = delimiter.length === 1 ? delimiter[0]! : delimiter;
  // What the previous chunks left after their last delimiter, in pieces (a long line is joined once, when it ends).
  let carry: Buffer[] = [];
  let lineNo = 1;
  let bytesPerLine = 0;
  for await (const raw of chunks) {
    let buf = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    let start = 0;
    let joined: Buffer | undefined;
    if (carry.length > 0 && delimiter.length > 1) {
      // A multi-byte delimiter may straddle the boundary: search the joined bytes.
      buf = Buffer.concat([...carry, buf]);
      carry = [];
    } else if (carry.length > 0) {
      const at = buf.indexOf(needle);
      if (at === -1) {
        carry.push(buf);
        continue;
      }
      joined = Buffer.concat([...carry, buf.subarray(0, at)]);
      carry = [];
      start = at + 1;
    }
    const sink = open(lineNo, bytesPerLine > 0 ? Math.ceil((buf.length - start) / bytesPerLine) + 1 : 0);
    if (joined) sink.add(joined);
    for (let at = buf.indexOf(needle, start); at !== -1; at = buf.indexOf(needle, start)) {
      sink.add(buf.subarray(start, at));
      start = at + delimiter.length;
    }
    if (start < buf.length) carry.push(buf.subarray(start));
    if (sink.lines > 0) bytesPerLine = buf.length / sink.lines;
    lineNo += sink.lines;
    const out = sink.finish();
    if (out !== undefined) yield out;
  }
  if (carry.length > 0) {
    const sink = open(lineNo, 1);
    sink.add(Buffer.concat(carry));
    const out = sink.finish();
    if (out !== undefined) yield out;
  }
}

class LineCollector implements LineSink<LineChunk> {
  private readonly chunk: LineChunk;

  constructor(source: string, firstLineNo: number) {
    this.chunk = { source, firstLineNo, lines: [] };
  }

  get lines(): number {
    return this.chunk.lines.length;
  }

  add(line: Buffer): void {
    this.chunk.lines.push(line);
  }

  finish(): LineChunk | undefined {
    return this.chunk.lines.length > 0 ? this.chunk : undefined;
  }
}

/** splitInto's lines of each chunk as one LineChunk. */
export function splitLineBuffers(
  chunks: AsyncIterable<Buffer | string>,
  source: string,
  delimiter: Buffer = NEWLINE,
): AsyncGenerator<LineChunk> {
  return splitInto(chunks, delimiter, (firstLineNo) => new LineCollector(source, firstLineNo));
}

/** The lines of a LineChunk, each with where it came from. */
function inputLines(chunk: LineChunk): InputLine[] {
  return chunk.lines.map((bytes, j) => ({ bytes, source: chunk.source, lineNo: chunk.firstLineNo + j }));
}

/** splitLineBuffers one line at a time. */
export async function* splitLines(
  chunks: AsyncIterable<Buffer | string>,
  source: string,
  delimiter: Buffer = NEWLINE,
): AsyncGenerator<InputLine> {
  for await (const chunk of splitLineBuffers(chunks, source, delimiter)) yield* inputLines(chunk);
}

/** How `crater produce` cuts its input into records. */
export interface InputSplit {
  /** Record delimiter (`-D`); a newline by default. */
  delimiter?: Buffer | undefined;
  /** Each file (or stdin) is one record, byte for byte (`--file-per-record`). */
  filePerRecord?: boolean | undefined;
}

async function* wholeInput(chunks: AsyncIterable<Buffer | string>, source: string): AsyncGenerator<LineChunk> {
  const parts: Buffer[] = [];
  for await (const raw of chunks) parts.push(typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw);
  yield { source, firstLineNo: 1, lines: [Buffer.concat(parts)] };
}

/** Bytes per read of a FILE: 64 KiB reads cost several times the CPU per byte (one buffer and one await each). */
const FILE_READ_BYTES = 256 * 1024;

/** One input of `crater produce`: the chunks read from it and the name its lines are reported under. */
export interface InputSource {
  chunks: AsyncIterable<Buffer | string>;
  /** "stdin" or the file path as given. */
  source: string;
}

/** Each file in turn, or stdin when no file (or "-") is given; a file is opened only when its turn comes. */
export function* inputSources(
  files: readonly string[],
  stdin: NodeJS.ReadableStream = process.stdin,
): Generator<InputSource> {
  for (const file of files.length === 0 ? ['-'] : files) {
    if (file === '-') yield { chunks: stdin as AsyncIterable<Buffer>, source: 'stdin' };
    else yield { chunks: createReadStream(file, { highWaterMark: FILE_READ_BYTES }), source: file };
  }
}

/** Records of each file in turn, or of stdin when no file (or "-") is given, one LineChunk per chunk read. */
export async function* readInputChunks(
  files: readonly string[],
  stdin: NodeJS.ReadableStream = process.stdin,
  split: InputSplit = {},
): AsyncGenerator<LineChunk> {
  for (const { chunks, source } of inputSources(files, stdin)) {
    yield* split.filePerRecord ? wholeInput(chunks, source) : splitLineBuffers(chunks, source, split.delimiter);
  }
}

/** readInputChunks one record at a time. */
export async function* readInputLines(
  files: readonly string[],
  stdin: NodeJS.ReadableStream = process.stdin,
  split: InputSplit = {},
): AsyncGenerator<InputLine> {
  for await (const chunk of readInputChunks(files, stdin, split)) yield* inputLines(chunk);
}

/** `-D`'s text: the escapes \n \t \r \0 \\ and \xHH as kcat reads them, any other character as itself (UTF-8). */
export function parseDelimiter(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = text[++i];
    const simple: Record<string, number> = { n: 0x0a, t: 0x09, r: 0x0d, '0': 0x00, '\\': 0x5c };
    if (next !== undefined && next in simple) bytes.push(simple[next]!);
    else if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else
      throw new UsageError(`delimiter "${text}": unknown escape \\${next ?? ''} (use \\n \\t \\r \\0 \\\\ or \\xHH)`);
  }
  if (bytes.length === 0) throw new UsageError('the record delimiter must not be empty');
  return Buffer.from(bytes);
}

/**
 * `-K` splits a line at the first occurrence of the delimiter into key and value; a line without it is all value
 * and has no key (as kcat does).
 */
export function splitKey(line: Buffer, delimiter: Buffer): { key: Buffer | undefined; value: Buffer } {
  const at = line.indexOf(delimiter);
  if (at === -1) return { key: undefined, value: line };
  return { key: line.subarray(0, at), value: line.subarray(at + delimiter.length) };
}

/** `-H name=value`: split at the first "="; the value may itself contain "=" and may be empty. */
export function parseHeaderFlag(text: string): { name: string; value: Buffer } {
  const at = text.indexOf('=');
  if (at <= 0) throw new UsageError(`header "${text}": expected name=value`);
  return { name: text.slice(0, at), value: Buffer.from(text.slice(at + 1), 'utf8') };
}

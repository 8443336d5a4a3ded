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

const NEWLINE = 0x0a;

/** Splits a stream of chunks into lines; chunk boundaries may fall anywhere, even inside a multi-byte character. */
export async function* splitLines(chunks: AsyncIterable<Buffer | string>, source: string): AsyncGenerator<InputLine> {
  let pending: Buffer[] = [];
  let lineNo = 0;
  for await (const raw of chunks) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
    let start = 0;
    for (let nl = chunk.indexOf(NEWLINE, start); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, nl);
      const bytes = pending.length === 0 ? Buffer.from(piece) : Buffer.concat([...pending, piece]);
      pending = [];
      lineNo += 1;
      yield { bytes, source, lineNo };
      start = nl + 1;
    }
    if (start < chunk.length) pending.push(Buffer.from(chunk.subarray(start)));
  }
  if (pending.length > 0) yield { bytes: Buffer.concat(pending), source, lineNo: lineNo + 1 };
}

/** Lines of each file in turn, or of stdin when no file (or "-") is given. */
export async function* readInputLines(files: readonly string[], stdin: NodeJS.ReadableStream = process.stdin): AsyncGenerator<InputLine> {
  const sources = files.length === 0 ? ['-'] : files;
  for (const file of sources) {
    if (file === '-') yield* splitLines(stdin as AsyncIterable<Buffer>, 'stdin');
    else yield* splitLines(createReadStream(file), file);
  }
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

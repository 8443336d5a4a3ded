/**
 * The internal topics' decoders never throw on bad bytes: they read with the strict protocol Reader and turn the
 * DecodeError it throws into a problem (data), mapped from the error's `kind`, never from its message.
 */
import { type DecodeFailureKind, DecodeError } from '../errors.js';
import { Reader } from '../protocol/reader.js';

export type DecodeResult<T, P extends string> = { ok: true; value: T } | { ok: false; problem: P; detail: string };

/** A Reader over exactly `bytes` (a Uint8Array view is read in place, not copied). */
export function readerOver(bytes: Uint8Array): Reader {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return new Reader(b);
}

/** Runs `read` over `bytes`; a DecodeError becomes `{ ok: false, problem: problems[kind], detail }`. */
export function decodeStrict<T, P extends string>(
  bytes: Uint8Array,
  problems: Readonly<Record<DecodeFailureKind, P>>,
  read: (r: Reader) => T,
): DecodeResult<T, P> {
  try {
    return { ok: true, value: read(readerOver(bytes)) };
  } catch (err) {
    if (err instanceof DecodeError) return { ok: false, problem: problems[err.kind], detail: err.message };
    throw err;
  }
}

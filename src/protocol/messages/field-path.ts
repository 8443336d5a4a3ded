/**
 * Hot decoders read list entries with static field names and name the entry only when a read fails, so a
 * 10,000-record batch builds no per-field strings: `records[3].key` is assembled once, on the error path.
 */
import { DecodeError } from '../../errors.js';

/** Re-raises a DecodeError from inside entry `path` with the entry's path prepended; other errors pass through. */
export function inEntry(err: unknown, path: string): unknown {
  if (!(err instanceof DecodeError)) return err;
  return new DecodeError(`${path}.${err.field}`, err.offset, err.reason, { kind: err.kind });
}

/**
 * An upper bound on the bytes a `str` takes: Writer.str reserves 3 bytes per UTF-16 unit before it encodes, so
 * sizing with this bound (not the exact UTF-8 length) is what keeps a reserved writer from growing mid-frame.
 */
export function strBound(v: string | Uint8Array): number {
  return 4 + (typeof v === 'string' ? v.length * 3 : v.length);
}

/** An upper bound on a header block's size, in the same sense as strBound. */
export function headersBound(headers: readonly { name: string; value: Uint8Array }[] | undefined): number {
  let size = 2;
  if (headers) for (const h of headers) size += 8 + h.name.length * 3 + h.value.length;
  return size;
}

/**
 * `consume --json`'s output of one FETCH: the envelope lines of its records (each envelopeJson plus a newline, by the
 * one renderer, envelope-writer.ts) in one Buffer for one write, and the bytes of each line. The records come as a
 * FetchTable (read from the FETCH reply's frame, no object per record) or as objects (a Kafka backend, a legacy
 * MoonMQ reply).
 */
import { FetchTable } from '../../client/fetch-table.js';
import type { EnvelopeEncoding, EnvelopeSource } from './envelope.js';
import { EnvelopeWriter } from './envelope-writer.js';

/** A first guess at a line's size; the writer grows past it. */
const LINE_GUESS = 256;

/**
 * The lines of `rows`. With `out` (a writer of this encoding with headers, nothing rendered in it), they are rendered
 * into its buffer and taken from it (`out.recycle()` the bytes once written, and the next FETCH reuses them).
 */
export function envelopeLines(
  rows: FetchTable | readonly EnvelopeSource[],
  encoding: EnvelopeEncoding = 'auto',
  out?: EnvelopeWriter,
): { bytes: Buffer; lengths: number[] } {
  const n = rows.length;
  const reuse = out !== undefined;
  out ??= new EnvelopeWriter(encoding, true, Math.max(1, n) * LINE_GUESS);
  const lengths = new Array<number>(n);
  let before = 0;
  if (rows instanceof FetchTable) {
    for (let i = 0; i < n; i++) {
      out.addRow(rows, i);
      lengths[i] = out.size - before;
      before = out.size;
    }
  } else {
    for (let i = 0; i < n; i++) {
      out.add(rows[i]!);
      lengths[i] = out.size - before;
      before = out.size;
    }
  }
  return { bytes: reuse ? out.take() : out.rendered(), lengths };
}

/**
 * Unchecked big-endian reads for the per-record hot loops (the header-less RECORD_BATCH decoder, the segment
 * reader's common-record path). They do no bounds checks: the caller has checked the range first, and falls back to
 * the strict Reader (which names the field and offset) on any input it rejects.
 *
 * Why not Buffer#readUInt32BE / readBigUInt64BE: at a few million calls a second their argument validation is most of
 * their cost, and readBigUInt64BE builds its bigint from two halves; a u64 below 2^53 (every offset and timestamp
 * in practice) is one `BigInt(number)` here.
 */

const TWO_32 = 2 ** 32;
/** The largest high half of a u64 that still makes a safe integer: 0x1fffff · 2^32 + 0xffffffff = 2^53 − 1. */
export const SAFE_HIGH = 0x1f_ffff;

/** The u32 at `b[i, i+4)`; the caller guarantees 0 ≤ i ≤ b.length − 4. */
export function u32At(b: Uint8Array, i: number): number {
  return ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
}

/** The u64 at `b[i, i+8)` as a bigint, exact over the whole range; the caller guarantees 0 ≤ i ≤ b.length − 8. */
export function u64At(b: Buffer, i: number): bigint {
  const high = u32At(b, i);
  return high <= SAFE_HIGH ? BigInt(high * TWO_32 + u32At(b, i + 4)) : b.readBigUInt64BE(i);
}

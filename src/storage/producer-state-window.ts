/**
 * The crater window tail of a `__producer_state` memo (docs/extensions.md, "Idempotent window"): the batches a
 * (pid, topic) memoized before the last one, kept while the producer sends with BATCH_FLAG_WINDOW, so that a resend
 * of any in-flight batch after a lost reply is deduplicated after a broker restart too. It follows the v3 part:
 *
 *   u32 magic 0x43525749 ("CRWI") · u8 n (1..4) · n × (u32 base_seq · u32 count · count × (u32 partition · u64 offset))
 *
 * newest first. MoonMQ reads values as Lua's unpack does and ignores bytes after the v3 part (storage.md), so a MoonMQ
 * broker replaying this file sees the last batch's v3 memo and only loses the older batches' dedup.
 */
import type { Reader } from '../protocol/reader.js';

export const WINDOW_MAGIC = 0x43525749;
/** Older batches a window tail carries at most (the last batch is the v3 part: five in all). */
export const MAX_WINDOW_TAIL = 4;
const MAX_ACKS = 1_024;

export interface WindowAck {
  partition: number;
  offset: bigint;
}

export interface WindowTailBatch {
  baseSeq: number;
  acks: readonly WindowAck[];
}

/** Bytes the window tail of `batches` takes (0 for none). */
export function windowTailSize(batches: readonly WindowTailBatch[] | undefined): number {
  if (!batches || batches.length === 0) return 0;
  return 5 + batches.reduce((n, b) => n + 8 + b.acks.length * 12, 0);
}

/** Writes the tail at `at` (the buffer is sized by windowTailSize). */
export function writeWindowTail(v: Buffer, at: number, batches: readonly WindowTailBatch[]): void {
  if (batches.length > MAX_WINDOW_TAIL) throw new RangeError(`a window tail holds at most ${MAX_WINDOW_TAIL} batches`);
  v.writeUInt32BE(WINDOW_MAGIC, at);
  v.writeUInt8(batches.length, at + 4);
  let p = at + 5;
  for (const b of batches) {
    v.writeUInt32BE(b.baseSeq, p);
    v.writeUInt32BE(b.acks.length, p + 4);
    p += 8;
    for (const ack of b.acks) {
      v.writeUInt32BE(ack.partition, p);
      v.writeBigUInt64BE(ack.offset, p + 4);
      p += 12;
    }
  }
}

/** Bytes after the part of a memo read whole that were not taken (see the codec's SequenceMemo.ignoredTail). */
export interface IgnoredTail {
  /** What the bytes were read as: a v3 tail after the v2 part, or a window tail after the v3 part. */
  part: 'v3' | 'window';
  /** Value byte where those bytes start. */
  at: number;
  bytes: number;
  /** What is wrong, naming the field, its value byte and what was expected there. */
  problem: string;
}

/**
 * Reads the bytes after a v3 part, which starts at value byte `at`: the window when they are a whole window tail,
 * else undefined with what is wrong (the bytes are consumed either way: like unpack, a reader ignores what it does
 * not know).
 */
export function readWindowTail(r: Reader, at: number): { window?: WindowTailBatch[]; ignored?: IgnoredTail } {
  const total = r.remaining;
  const start = r.offset;
  // Every read below is checked against r.remaining first, so a torn tail is ignored, never a DecodeError.
  const here = () => at + r.offset - start;
  const ignored = (problem: string) => {
    r.rest();
    return { ignored: { part: 'window' as const, at, bytes: total, problem } };
  };
  if (total < 5) return ignored(`expected at least 5 bytes (u32 magic "CRWI", u8 batch count), found ${total}`);
  const magic = r.u32('window magic');
  if (magic !== WINDOW_MAGIC) {
    const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
    return ignored(`magic ${hex(magic)} at value byte ${at}, expected ${hex(WINDOW_MAGIC)} ("CRWI")`);
  }
  const n = r.u8('window batch count');
  if (n < 1 || n > MAX_WINDOW_TAIL)
    return ignored(`batch count ${n} at value byte ${at + 4}, expected 1..${MAX_WINDOW_TAIL}`);
  const window: WindowTailBatch[] = [];
  for (let i = 0; i < n; i++) {
    const batch = `batch ${i + 1} of ${n}`;
    if (r.remaining < 8) {
      return ignored(
        `${batch} at value byte ${here()} needs 8 bytes (u32 base_seq, u32 ack count), found ${r.remaining}`,
      );
    }
    const baseSeq = r.u32('window base_seq');
    const count = r.u32('window ack count');
    if (count < 1 || count > MAX_ACKS) {
      return ignored(`${batch}: ack count ${count} at value byte ${here() - 4}, expected 1..${MAX_ACKS}`);
    }
    if (r.remaining < count * 12) {
      const need = `needs ${count * 12} bytes of acks from value byte ${here()}, found ${r.remaining}`;
      return ignored(`${batch}: ack count ${count} at value byte ${here() - 4} ${need}`);
    }
    const acks = new Array<WindowAck>(count);
    for (let j = 0; j < count; j++)
      acks[j] = { partition: r.u32('window ack partition'), offset: r.u64('window ack offset') };
    window.push({ baseSeq, acks });
  }
  if (r.remaining !== 0) {
    return ignored(`${r.remaining} bytes after the last batch, from value byte ${here()}, expected none`);
  }
  return { window };
}

/**
 * The requests of one connection awaiting replies, keyed by correl, with their deadlines. Per request nothing is
 * formatted and no timer is made: correls are cut from a pooled block of random bytes and keyed by 30 random bits
 * of their last four bytes (a small integer, the cheapest Map key; all 16 bytes are compared, so a stray frame never
 * settles a request), and one timer per connection fires at the earliest pending deadline.
 */
import { randomFillSync } from 'node:crypto';
import { TimeoutError } from '../../errors.js';
import type { Frame } from '../../protocol/frame-decoder.js';
import { ZERO_CORREL } from '../../protocol/message.js';
import { opName } from '../../protocol/opcodes.js';

/** Correls cut from one block of random bytes; a new block replaces a used one, so handed-out views stay valid. */
const CORREL_POOL_BYTES = 16 * 256;
let correlPool = Buffer.alloc(0);
let correlNext = CORREL_POOL_BYTES;

/** The map key of a correl: 30 bits of its last four bytes (no UUID version or variant bits there), a Smi. */
const correlKey = (correl: Buffer): number => correl.readUInt32BE(12) & 0x3fff_ffff;

/** A random UUIDv4 as the 16 correl bytes (a view into a pooled block) and its key. */
export function newCorrel(): { bytes: Buffer; key: number } {
  if (correlNext >= CORREL_POOL_BYTES) {
    correlPool = randomFillSync(Buffer.allocUnsafeSlow(CORREL_POOL_BYTES));
    correlNext = 0;
  }
  const bytes = correlPool.subarray(correlNext, correlNext + 16);
  correlNext += 16;
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return { bytes, key: correlKey(bytes) };
}

/** True for the all-zero correl (push RECORDs, teardown ERRORs); the cheap key test first. */
export function isZeroCorrel(correl: Buffer): boolean {
  return correlKey(correl) === 0 && correl.equals(ZERO_CORREL);
}

export interface Pending {
  op: number;
  /** For single-reply requests the expected reply op; for streams the terminator op. */
  endOp: number;
  stream: Frame[] | undefined;
  maxFrames: number;
  resolve: (value: Frame | Frame[]) => void;
  reject: (error: Error) => void;
}

interface Entry extends Pending {
  /** The correl's bytes 0–5, 6–11 and 12–15: all of it, compared against a reply's. */
  hi: number;
  mid: number;
  lo: number;
  /** performance.now() past which the request times out, and its timeout for the message. */
  deadline: number;
  timeoutMs: number;
}

export class PendingRequests {
  private readonly entries = new Map<number, Entry>();
  /** The one deadline timer, armed for `timerAt`. */
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  /** `label` names the broker in timeout messages. */
  constructor(private readonly label: string) {}

  get size(): number {
    return this.entries.size;
  }

  /** A correl whose key is neither zero nor a pending request's. */
  fresh(): { bytes: Buffer; key: number } {
    let correl = newCorrel();
    while (correl.key === 0 || this.entries.has(correl.key)) correl = newCorrel();
    return correl;
  }

  /** Registers `pending` under `correl` (from fresh()), timing out after `timeoutMs`. */
  add(correl: { bytes: Buffer; key: number }, pending: Pending, timeoutMs: number): void {
    const deadline = performance.now() + timeoutMs;
    const { bytes } = correl;
    const entry: Entry = {
      op: pending.op,
      endOp: pending.endOp,
      stream: pending.stream,
      maxFrames: pending.maxFrames,
      resolve: pending.resolve,
      reject: pending.reject,
      hi: bytes.readUIntBE(0, 6),
      mid: bytes.readUIntBE(6, 6),
      lo: bytes.readUInt32BE(12),
      deadline,
      timeoutMs,
    };
    this.entries.set(correl.key, entry);
    if (deadline < this.timerAt) this.arm(deadline);
  }

  /** The request `correl` answers; undefined for a stray frame (a late reply to a timed-out request, …). */
  get(correl: Buffer): Pending | undefined {
    const entry = this.entries.get(correlKey(correl));
    if (!entry || entry.lo !== correl.readUInt32BE(12) || entry.hi !== correl.readUIntBE(0, 6)) return undefined;
    return entry.mid === correl.readUIntBE(6, 6) ? entry : undefined;
  }

  /** Forgets the request `correl` answers (after get() found it). */
  delete(correl: Buffer): void {
    this.entries.delete(correlKey(correl));
  }

  /** Rejects every request with `error` and stops the timer. */
  failAll(error: Error): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) entry.reject(error);
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    // Unref'd: a pending request means an open socket, which keeps the process alive on its own; an armed timer left
    // behind by requests that were answered must not.
    this.timer = setTimeout(() => this.expire(), Math.max(0, at - performance.now())).unref();
  }

  /** Times out every request past its deadline, then re-arms for the earliest one left. */
  private expire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const [key, entry] of this.entries) {
      if (entry.deadline <= now) {
        this.entries.delete(key);
        entry.reject(
          new TimeoutError(`${opName(entry.op)} to ${this.label} got no reply within ${entry.timeoutMs} ms`),
        );
      } else if (entry.deadline < next) next = entry.deadline;
    }
    if (next < Infinity) this.arm(next);
  }
}

/**
 * Requests received while an earlier one is still being handled, in arrival order, with their byte total (the
 * connection pauses reading past a cap). A head index instead of Array#shift: a pipelining client can queue
 * hundreds of thousands of small frames, and shift moves them all on every call.
 */
import type { Frame } from '../protocol/frame-decoder.js';

/** What a queued frame is charged: its payload plus the 21-byte header. */
const frameBytes = (f: Frame): number => f.payload.length + 21;

export class RequestQueue {
  private items: Frame[] = [];
  private head = 0;
  private total = 0;

  get bytes(): number {
    return this.total;
  }

  push(frame: Frame): void {
    this.items.push(frame);
    this.total += frameBytes(frame);
  }

  shift(): Frame | undefined {
    if (this.head >= this.items.length) return undefined;
    const frame = this.items[this.head]!;
    this.items[this.head++] = undefined!;
    this.total -= frameBytes(frame);
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return frame;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
    this.total = 0;
  }
}

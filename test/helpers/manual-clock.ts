/**
 * A ProducerClock that moves only when a test says so: advance(ms) fires the timers that fall due, in order, and lets
 * the promise callbacks they start run before the next one. Nothing waits on real time.
 */
import type { ProducerClock } from '../../src/client/producer/clock.js';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

/** Lets pending promise callbacks (and those they chain) run; it waits on no timer. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class ManualClock implements ProducerClock {
  private t = 0;
  private seq = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return timer;
  }

  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((t) => t !== handle);
  }

  /** Timers not yet fired or cleared. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await settle();
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.t = due.at;
      due.fn();
      await settle();
    }
    this.t = end;
    await settle();
  }
}

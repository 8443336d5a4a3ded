/**
 * Waiting for the next chunk of input unless a stop (Ctrl-C, SIGTERM) comes first. `Promise.race([it.next(),
 * stopped])` says the same in one line, but every race leaves a reaction on `stopped`, a promise that lives as long
 * as the run, and each reaction keeps its race's promise alive, and with it the value that race resolved with: a
 * `crater produce` of a million lines kept every chunk it had read, and every record in it, until it exited (140 MB
 * of heap at the end, marked again by every full collection). Here each wait holds the next value only until it is
 * handed over.
 */
export const STOPPED = 'stopped';

export class StopGate {
  private stoppedNow = false;
  private wake: ((value: typeof STOPPED) => void) | undefined;

  get stopped(): boolean {
    return this.stoppedNow;
  }

  /** Ends the current wait (and every later one) with STOPPED. */
  stop(): void {
    this.stoppedNow = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.(STOPPED);
  }

  /** `pending`'s value, or STOPPED when stop() comes first (then `pending` is left to settle unobserved). */
  next<T>(pending: Promise<T>): Promise<T | typeof STOPPED> {
    if (this.stoppedNow) {
      pending.catch(() => undefined);
      return Promise.resolve(STOPPED);
    }
    return new Promise<T | typeof STOPPED>((resolve, reject) => {
      this.wake = resolve;
      pending.then(
        (value) => {
          this.wake = undefined;
          resolve(value);
        },
        (error: unknown) => {
          this.wake = undefined;
          reject(error);
        },
      );
    });
  }
}

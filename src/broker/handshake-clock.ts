/**
 * The handshake watchdog (wire.md §1): fires when a connection is not authenticated within the limit. Time spent
 * verifying a password (PBKDF2) is excluded: the auth handler pauses the clock around the verification.
 */
export class HandshakeClock {
  private remainingMs: number;
  private startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private pausedDepth = 0;
  private stopped = false;

  constructor(
    limitMs: number,
    private readonly onExpired: () => void,
  ) {
    this.remainingMs = limitMs;
    this.arm();
  }

  get paused(): boolean {
    return this.pausedDepth > 0;
  }

  pause(): void {
    if (this.stopped || this.pausedDepth++ > 0) return;
    this.remainingMs -= Date.now() - this.startedAt;
    this.clear();
  }

  resume(): void {
    if (this.stopped || this.pausedDepth === 0 || --this.pausedDepth > 0) return;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private arm(): void {
    this.startedAt = Date.now();
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (!this.stopped) this.onExpired();
      },
      Math.max(1, this.remainingMs),
    );
  }

  private clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * A connection's timers after the handshake clock (wire.md §1): the read deadline (pre-auth, then idle), the send
 * deadline on replies the peer does not drain, and the heartbeat that probes a quiet peer and gives up after
 * MISSED_HEARTBEATS intervals of silence. The connection says what each expiry does.
 */
import type { Socket } from 'node:net';
import type { BrokerConfig } from './config.js';

const EMPTY = Buffer.alloc(0);
const MISSED_HEARTBEATS = 3;

type WatchdogConfig = Pick<
  BrokerConfig,
  'idleReadTimeoutMs' | 'preAuthReadTimeoutMs' | 'sendTimeoutMs' | 'heartbeatIntervalMs'
>;

export interface WatchedConnection {
  isClosed(): boolean;
  isAuthenticated(): boolean;
  /** While a password is being verified the read deadline does not fire. */
  isHandshakePaused(): boolean;
  readDeadlineExceeded(limitMs: number): void;
  sendDeadlineExceeded(pendingBytes: number, limitMs: number): void;
  heartbeatTimedOut(idleMs: number): void;
  sendHeartbeat(): void;
}

export class ConnectionWatchdogs {
  /** When the last frame arrived (Date.now()); the read deadline and the heartbeat measure silence from it. */
  lastFrameAt = Date.now();
  private readTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private sendTimer: NodeJS.Timeout | undefined;
  /** Whether the bytes queued when the send deadline was armed have since reached the kernel. */
  private sendProgress = false;

  constructor(
    private readonly socket: Socket,
    private readonly config: WatchdogConfig,
    private readonly conn: WatchedConnection,
  ) {}

  get sendArmed(): boolean {
    return this.sendTimer !== undefined;
  }

  /** The read deadline: one lazily re-armed timer, so a frame costs a timestamp store, not a timer reset. */
  armRead(): void {
    const due = this.lastFrameAt + this.readLimitMs() - Date.now();
    this.readTimer = setTimeout(
      () => {
        this.readTimer = undefined;
        if (this.conn.isClosed()) return;
        const current = this.readLimitMs();
        if (Date.now() - this.lastFrameAt >= current && !this.conn.isHandshakePaused())
          this.conn.readDeadlineExceeded(current);
        else this.armRead();
      },
      Math.max(1, due),
    );
  }

  /**
   * wire.md §1 send deadline, checked per tick of writes rather than per frame: armed only when the kernel did not
   * take everything at uncork. An empty write marks what was queued then; if that has not drained by the deadline
   * the peer is not reading and the connection is dropped, otherwise the deadline moves on to what is left.
   */
  armSend(): void {
    this.sendProgress = false;
    this.socket.write(EMPTY, () => (this.sendProgress = true));
    this.sendTimer = setTimeout(() => {
      this.sendTimer = undefined;
      if (this.conn.isClosed() || this.socket.writableLength === 0) return;
      if (this.sendProgress) {
        this.armSend();
        return;
      }
      this.conn.sendDeadlineExceeded(this.socket.writableLength, this.config.sendTimeoutMs);
    }, this.config.sendTimeoutMs);
  }

  startHeartbeat(): void {
    const interval = this.config.heartbeatIntervalMs;
    this.heartbeatTimer = setInterval(() => {
      const idleMs = Date.now() - this.lastFrameAt;
      if (idleMs > interval * MISSED_HEARTBEATS) this.conn.heartbeatTimedOut(idleMs);
      else if (idleMs >= interval / 2) this.conn.sendHeartbeat();
    }, interval);
  }

  stop(): void {
    if (this.readTimer) clearTimeout(this.readTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.sendTimer) clearTimeout(this.sendTimer);
    this.readTimer = undefined;
    this.heartbeatTimer = undefined;
    this.sendTimer = undefined;
  }

  private readLimitMs(): number {
    return this.conn.isAuthenticated() ? this.config.idleReadTimeoutMs : this.config.preAuthReadTimeoutMs;
  }
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

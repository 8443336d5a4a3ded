/**
 * Who may open a connection (semantics.md §12): at most `maxConnections` in total (MoonMQ's 1,024 clamped by its FD
 * reserve of 64: 960) and `maxConnectionsPerIp` from one address (32). A refused socket gets ERROR 6 RATE_LIMITED
 * with the zero correl (wire.md §1, "capacity refusal") and is closed; it never becomes a connection. Accept errors
 * (EMFILE, ENFILE when descriptors run out) are logged and accepting goes on: libuv drops the pending connection,
 * and descriptors come back as connections close, at the latest when the handshake or idle watchdog fires.
 */
import type net from 'node:net';
import { ErrorCode } from '../protocol/error-codes.js';
import { ZERO_CORREL, encodeFrame } from '../protocol/message.js';
import { ErrorFrame } from '../protocol/messages/error.js';
import type { BrokerConfig } from './config.js';
import type { Logger } from './core.js';

/** How long a refused peer has to read its ERROR before the socket is destroyed. */
const REFUSAL_GRACE_MS = 1_000;
/** At most one accept-error warning per this many milliseconds (EMFILE repeats on every connection attempt). */
const ACCEPT_ERROR_LOG_INTERVAL_MS = 10_000;

type AdmissionConfig = Pick<BrokerConfig, 'maxConnections' | 'maxConnectionsPerIp'>;

export class Admission {
  private total = 0;
  private readonly perIp = new Map<string, number>();
  private readonly refused = new Set<net.Socket>();
  private lastAcceptErrorLog = Number.NEGATIVE_INFINITY;
  private suppressedAcceptErrors = 0;

  constructor(
    private readonly config: AdmissionConfig,
    private readonly logger: Logger,
  ) {}

  /** Counts the connection in and returns true, or refuses it with ERROR 6 and returns false. */
  admit(socket: net.Socket): boolean {
    const ip = socket.remoteAddress ?? 'unknown';
    const fromIp = this.perIp.get(ip) ?? 0;
    let why: string | undefined;
    if (this.total >= this.config.maxConnections)
      why = `too many connections: the broker allows ${this.config.maxConnections}`;
    else if (fromIp >= this.config.maxConnectionsPerIp)
      why = `too many connections from this address: ${this.config.maxConnectionsPerIp} allowed`;
    if (why !== undefined) {
      this.refuse(socket, why, ip);
      return false;
    }
    this.total++;
    this.perIp.set(ip, fromIp + 1);
    return true;
  }

  /** The admitted connection from `ip` closed: its slot is free. */
  release(ip: string): void {
    this.total--;
    const n = (this.perIp.get(ip) ?? 1) - 1;
    if (n > 0) this.perIp.set(ip, n);
    else this.perIp.delete(ip);
  }

  /** The listening socket's `error` listener: without one, an accept error would crash the process. */
  acceptFailed(err: NodeJS.ErrnoException): void {
    const now = Date.now();
    if (now - this.lastAcceptErrorLog < ACCEPT_ERROR_LOG_INTERVAL_MS) {
      this.suppressedAcceptErrors++;
      return;
    }
    this.lastAcceptErrorLog = now;
    const repeats = this.suppressedAcceptErrors;
    this.suppressedAcceptErrors = 0;
    this.logger.warn('cannot accept a connection; still listening', {
      error: err.code ?? err.message,
      connections: this.total,
      repeats,
    });
  }

  /** Broker stop: refused sockets still waiting for their peer go now. */
  closeRefused(): void {
    for (const socket of this.refused) socket.destroy();
    this.refused.clear();
  }

  private refuse(socket: net.Socket, message: string, ip: string): void {
    this.logger.info('refused a connection', { remote: ip, reason: message });
    this.refused.add(socket);
    socket.on('error', () => undefined);
    // Read and drop whatever the peer sends: unread input would turn the close into a reset that can eat the ERROR.
    socket.resume();
    const grace = setTimeout(() => socket.destroy(), REFUSAL_GRACE_MS);
    socket.once('close', () => {
      clearTimeout(grace);
      this.refused.delete(socket);
    });
    socket.end(encodeFrame(ErrorFrame, ZERO_CORREL, { code: ErrorCode.RATE_LIMITED, message }));
  }
}

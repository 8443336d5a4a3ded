/**
 * The broker-wide cap on reply bytes queued in memory across all connections (issue 11 item 4): the per-connection
 * cap (wire.md §1, 16 MiB) alone lets 960 connections that stop reading hold 15 GiB. Each connection reports its
 * pending bytes (unsent socket bytes plus replies held behind a deferred one) when they change; when the sum passes
 * the cap, the connection holding the most is shed, since it is the one not reading, not whoever writes next.
 */
import type { Logger } from './core.js';

export interface BudgetedConnection {
  readonly remoteAddress: string;
  /** Closes the connection as over budget; it reports 0 (or is removed) as it closes. */
  shed(): void;
}

export class SendBudget {
  private readonly reported = new Map<BudgetedConnection, number>();
  private sum = 0;
  private shedding = false;

  constructor(
    readonly limit: number,
    private readonly logger: Logger,
  ) {}

  /** Pending bytes last reported across every open connection. */
  get total(): number {
    return this.sum;
  }

  report(conn: BudgetedConnection, bytes: number): void {
    const before = this.reported.get(conn) ?? 0;
    if (bytes > 0) this.reported.set(conn, bytes);
    else this.reported.delete(conn);
    this.sum += bytes - before;
    if (this.sum > this.limit && !this.shedding) this.shed();
  }

  remove(conn: BudgetedConnection): void {
    this.report(conn, 0);
  }

  private shed(): void {
    this.shedding = true;
    try {
      while (this.sum > this.limit) {
        let largest: BudgetedConnection | undefined;
        let most = 0;
        for (const [conn, bytes] of this.reported) {
          if (bytes > most) [largest, most] = [conn, bytes];
        }
        if (!largest) break;
        this.logger.warn('closing the connection holding the most unsent bytes: broker-wide send budget exceeded', {
          remote: largest.remoteAddress,
          pendingBytes: most,
          totalBytes: this.sum,
          limit: this.limit,
        });
        this.remove(largest);
        largest.shed();
      }
    } finally {
      this.shedding = false;
    }
  }
}

/**
 * Past half the send budget the next request waits: for held frames, until they are out (so releasing them in one
 * burst cannot by itself push a reading client over the budget); for bytes written since the last uncork, one turn
 * of the event loop, so that what the kernel takes at uncork is not counted. A peer that reads stays under the
 * budget however deep it pipelines; the backlog of one that does not read grows past it and it is closed.
 */
export function dispatchPause(
  half: number,
  held: { readonly heldBytes: number; readonly drained: Promise<void> },
  writtenThisTick: number,
): Promise<void> | undefined {
  if (held.heldBytes > half) return held.drained;
  if (writtenThisTick > half) return new Promise((resolve) => setImmediate(resolve));
  return undefined;
}

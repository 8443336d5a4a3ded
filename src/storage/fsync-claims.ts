/**
 * What a running fsync may vouch for. An fsync covers the bytes written before it started, so it claims the log end
 * it saw then; a `truncateTo` that lands while it runs cuts every open claim back to the cut, because the bytes past
 * the cut may be rewritten before the fsync completes and it covers none of those. Both backends raise their
 * durable end to a settled claim only, so the durable end never covers a byte that no completed fsync started after.
 */
export interface FsyncClaim<T extends number | bigint> {
  end: T;
}

export class FsyncClaims<T extends number | bigint> {
  private readonly running = new Set<FsyncClaim<T>>();

  /** Called right before an fsync starts, with the log end it will cover. */
  begin(end: T): FsyncClaim<T> {
    const claim = { end };
    this.running.add(claim);
    return claim;
  }

  /** Called when that fsync has ended (completed or failed); its `end` is what it may vouch for. */
  settle(claim: FsyncClaim<T>): void {
    this.running.delete(claim);
  }

  /** The log was cut back to `end`: no running fsync vouches for anything past it. */
  cut(end: T): void {
    for (const claim of this.running) if (claim.end > end) claim.end = end;
  }
}

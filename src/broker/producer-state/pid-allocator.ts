/**
 * One monotonic producer-id counter for ephemeral and durable producers (semantics.md §5). pid 0 is reserved, so
 * the first pid is 1. On start the counter resumes at max(highest persisted pid + 1, persisted watermark); ephemeral
 * pids are never persisted, so one may be issued again after a restart.
 */
const MAX_PID = 0xffff_ffff_ffff_ffffn;

export class PidAllocator {
  private next: bigint;

  constructor(start = 1n) {
    this.next = start < 1n ? 1n : start;
  }

  /** The resume point after a replay: the watermark, or one past the highest pid seen, whichever is larger. */
  static resume(highestPid: bigint | undefined, watermark: bigint | undefined): PidAllocator {
    const afterHighest = highestPid === undefined ? 1n : highestPid + 1n;
    return new PidAllocator(watermark !== undefined && watermark > afterHighest ? watermark : afterHighest);
  }

  /** The pid the next allocation returns (what the allocator watermark records). */
  get nextPid(): bigint {
    return this.next;
  }

  allocate(): bigint {
    if (this.next > MAX_PID) throw new RangeError('producer ids exhausted');
    return this.next++;
  }
}

/**
 * crater's own recovery point of a segmented partition, `crater-recovery-point` (docs/storage.md): a crater-only
 * file beside MoonMQ's `recovery-checkpoint`, so a restart re-reads only what no fsync vouched for.
 *
 *   "<checkpoint> <base> <offset>\n"   decimal numbers (checkpoint "-" when there was none), written via a temporary
 *                                     file and an atomic rename
 *
 * It says: every byte of the segment at global offset `base` below global offset `offset` was covered by a
 * completed fsync, and when this was written the shared `recovery-checkpoint` held `checkpoint`. It is written at a
 * clean close (offset = LEO) and, while the broker runs, after an fsync that moved the durable end at least
 * `intervalBytes` past the last written point, so after a crash recovery scans at most that interval plus the
 * unflushed tail instead of the whole active segment.
 *
 * It is trusted only while it still describes the directory: the shared checkpoint holds the same value (MoonMQ
 * writes that file at every roll and clean close, so a MoonMQ session that did either invalidates the point), the
 * active segment has that base, and the offset is within the file. A MoonMQ-written directory has no such file and
 * is recovered as MoonMQ recovers it. The file is never a reason to cut data: recovery.ts falls back to a scan from
 * the segment start when the record at the point is not whole.
 */
import path from 'node:path';
import { storageFs as fs, writeFileAtomicSync } from './file-io.js';

export const RECOVERY_POINT_FILE = 'crater-recovery-point';
/** MoonMQ's own checkpoint (storage.md §8.1): the base at the last roll, or the LEO at a clean close. */
export const CHECKPOINT_FILE = 'recovery-checkpoint';
/** How far the durable end moves between writes of the point while running (each costs two small fsyncs). */
export const DEFAULT_RECOVERY_POINT_INTERVAL_BYTES = 16 * 1024 * 1024;

export interface RecoveryPoint {
  /** The shared `recovery-checkpoint` value when the point was written (null: there was no such file). */
  checkpoint: number | null;
  /** Base of the segment the point is in (the active one when it was written). */
  base: number;
  /** Global offset: bytes of that segment below it were fsynced. */
  offset: number;
}

/** The point on disk, or undefined when the file is missing or not three decimal numbers in order. */
export function readRecoveryPoint(dir: string): RecoveryPoint | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, RECOVERY_POINT_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const m = /^(\d+|-) (\d+) (\d+)\n?$/.exec(text);
  if (!m) return undefined;
  const checkpoint = m[1] === '-' ? null : Number(m[1]);
  const [base, offset] = [Number(m[2]), Number(m[3])];
  if (![checkpoint ?? 0, base, offset].every(Number.isSafeInteger) || offset < base) return undefined;
  return { checkpoint, base, offset };
}

export function writeRecoveryPoint(dir: string, point: RecoveryPoint): void {
  writeFileAtomicSync(
    path.join(dir, RECOVERY_POINT_FILE),
    `${point.checkpoint ?? '-'} ${point.base} ${point.offset}\n`,
  );
}

/**
 * The point, if it still describes a directory whose shared checkpoint is `checkpoint` and whose active segment
 * starts at `activeBase` and holds `activeBytes` bytes on disk.
 */
export function usableRecoveryPoint(
  point: RecoveryPoint | undefined,
  checkpoint: number | undefined,
  activeBase: number,
  activeBytes: number,
): RecoveryPoint | undefined {
  if (point === undefined || point.checkpoint !== (checkpoint ?? null)) return undefined;
  if (point.base !== activeBase || point.offset > activeBase + activeBytes) return undefined;
  return point;
}

/**
 * The running side, owned by one SegmentedLog: it writes the shared checkpoint (so it knows its value) and the
 * point. `mark()` before an fsync and `synced()` after it: a `cut()` in between (truncateTo) voids that fsync's claim.
 */
export class RecoveryPointTracker {
  private checkpoint: number | null;
  private written: number;
  private generation = 0;

  constructor(
    private readonly dir: string,
    checkpoint: number | undefined,
    usable: RecoveryPoint | undefined,
    private readonly intervalBytes = DEFAULT_RECOVERY_POINT_INTERVAL_BYTES,
  ) {
    this.checkpoint = checkpoint ?? null;
    this.written = usable?.offset ?? -1;
  }

  /** Writes the shared `recovery-checkpoint` (a roll, a truncation across segments, a close). */
  writeCheckpoint(offset: number): void {
    writeFileAtomicSync(path.join(this.dir, CHECKPOINT_FILE), String(offset));
    this.checkpoint = offset;
    this.written = -1;
  }

  mark(): number {
    return this.generation;
  }

  /**
   * An fsync that began at `mark` made segment `base` durable below `end`; records the point when the segment is
   * still the active one (`activeBase`) and the end moved far enough. Never throws: the point is an optimisation.
   */
  synced(mark: number, base: number, end: number, activeBase: number): void {
    if (mark !== this.generation || base !== activeBase) return;
    if (this.written >= 0 && end - this.written < this.intervalBytes) return;
    if (this.written < 0 && end - base < this.intervalBytes) return;
    this.write(base, end, false);
  }

  /** The log was cut back to `offset` in segment `base`: a point past it must not survive. */
  cut(base: number, offset: number): void {
    this.generation++;
    if (this.written > offset) this.write(base, offset, true);
  }

  /** At a clean close: everything up to the LEO was just fsynced. */
  closed(base: number, leo: number): void {
    this.write(base, leo, true);
  }

  private write(base: number, offset: number, mustSucceed: boolean): void {
    try {
      writeRecoveryPoint(this.dir, { checkpoint: this.checkpoint, base, offset });
      this.written = offset;
    } catch (err) {
      if (mustSucceed) throw err;
    }
  }
}

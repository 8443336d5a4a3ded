/**
 * Load-time recovery of a segmented partition (storage.md §8.1).
 *
 * The active (last) segment is always verified: from crater's recovery point when the directory has a usable one
 * (recovery-point.ts: everything below it was fsynced, so a clean restart reads nothing and a crash reads the tail
 * after the last point), otherwise from its start, so a stale or wrong MoonMQ checkpoint cannot make a torn tail
 * look whole. After an unclean stop (no `.clean-shutdown`), every sealed segment whose end is past the recovery
 * checkpoint is verified too, starting at checkpoint − base when the checkpoint falls inside it (everything before
 * the checkpoint was fsynced at a roll or a clean close). Verification walks whole
 * records and cuts the log at the first one that is not (short length prefix, impossible length, short body, a CRC
 * or key_len failure), then fsyncs. Whatever followed the bad record in that segment is lost; later segments keep
 * their records, and readers skip the resulting gap. Nothing is ever allocated from a claimed length: a record is
 * only read whole when the file really holds that many bytes.
 */
import type { Stats } from 'node:fs';
import { storageFs as fs } from './file-io.js';
import path from 'node:path';
import { StorageError } from '../errors.js';
import { LENGTH_PREFIX_BYTES, readRecord } from './record.js';
import { fsyncDirSync, parseSegmentName, writeFileAtomicSync } from './file-io.js';
import { type RecoveryPoint, CHECKPOINT_FILE, readRecoveryPoint, usableRecoveryPoint } from './recovery-point.js';
import { Segment } from './segment.js';

export { CHECKPOINT_FILE } from './recovery-point.js';
export const CLEAN_SHUTDOWN_FILE = '.clean-shutdown';

const VERIFY_CHUNK_BYTES = 4 * 1024 * 1024;

let scannedTotal = 0;

/** Log bytes read by recovery in this process so far, over every partition (the bench child reports it). */
export function recoveryScannedBytes(): number {
  return scannedTotal;
}

export interface VerifyOutcome {
  /** Bytes of whole, valid records from the segment start. */
  validSize: number;
  /** Bytes cut off the end of the file (0 when it was whole). */
  truncatedBytes: number;
  /** Log bytes read to verify (a record straddling a read chunk is read twice). */
  scannedBytes: number;
  /** Why the first bad record was bad, when one was found. */
  problem?: string;
}

interface Scan {
  /** Position after the last whole record found. */
  end: number;
  physical: number;
  scannedBytes: number;
  problem?: string;
}

/** Walks the records of `seg` from `start` (a record boundary) to the physical end of the file; changes nothing. */
function scanSegment(seg: Segment, start: number): Scan {
  const physical = seg.physicalSize();
  let pos = Math.min(start, physical);
  let scannedBytes = 0;
  let buf = Buffer.allocUnsafe(Math.min(VERIFY_CHUNK_BYTES, Math.max(physical - pos, LENGTH_PREFIX_BYTES)));
  scan: while (pos < physical) {
    const want = Math.min(buf.length, physical - pos);
    const got = seg.read(buf, 0, want, pos);
    scannedBytes += got;
    let p = 0;
    while (p < got) {
      const r = readRecord(buf, p, got);
      if (r.ok) {
        p += r.record.size;
        continue;
      }
      if (r.problem === 'short-body' || r.problem === 'short-length-prefix') {
        const claimed = got - p >= LENGTH_PREFIX_BYTES ? buf.readBigUInt64BE(p) + BigInt(LENGTH_PREFIX_BYTES) : 0n;
        const fitsInFile = claimed > 0n && claimed <= BigInt(physical - (pos + p));
        if (got === want && pos + got < physical && (r.problem === 'short-length-prefix' || fitsInFile)) {
          // The record straddles the chunk: read again from its start, with room for it when it is large.
          if (p === 0) buf = Buffer.allocUnsafe(Math.max(buf.length * 2, Number(claimed)));
          pos += p;
          continue scan;
        }
      }
      scannedTotal += scannedBytes;
      return { end: pos + p, physical, scannedBytes, problem: `${r.problem} at position ${pos + p}: ${r.detail}` };
    }
    pos += p;
  }
  scannedTotal += scannedBytes;
  return { end: physical, physical, scannedBytes };
}

/** Truncates the file after the scan's last whole record (and fsyncs it) when anything follows; sets `seg.size`. */
function settle(seg: Segment, scan: Scan, scannedBytes = scan.scannedBytes): VerifyOutcome {
  const validSize = scan.problem === undefined ? scan.physical : scan.end;
  if (validSize < scan.physical) {
    seg.truncate(validSize);
    seg.syncAllSync();
  } else {
    seg.size = validSize;
  }
  const outcome: VerifyOutcome = { validSize, truncatedBytes: scan.physical - validSize, scannedBytes };
  if (scan.problem !== undefined) outcome.problem = scan.problem;
  return outcome;
}

/**
 * Walks the records of `seg` from `start` (a record boundary) to the physical end of the file, truncates the file
 * after the last whole record and fsyncs it when anything was cut. Updates `seg.size`.
 */
export function verifySegment(seg: Segment, start: number): VerifyOutcome {
  return settle(seg, scanSegment(seg, start));
}

/**
 * The active segment from crater's recovery point `from` (0: none). The point is never a reason to cut: when the
 * record at it is not whole (a tail torn right there, or a point that is not a record boundary any more), the
 * segment is scanned again from its start and cut where that scan says.
 */
function verifyActive(seg: Segment, from: number): { from: number } & VerifyOutcome {
  const first = scanSegment(seg, from);
  if (from === 0 || first.problem === undefined || first.end > from) return { from, ...settle(seg, first) };
  const full = scanSegment(seg, 0);
  return { from: 0, ...settle(seg, full, first.scannedBytes + full.scannedBytes) };
}

export interface RecoveryReport {
  cleanShutdown: boolean;
  checkpoint: number | undefined;
  /** crater's recovery point (recovery-point.ts) when it was usable: the active segment was verified from there. */
  recoveryPoint: RecoveryPoint | undefined;
  /** Log bytes read by verification, over every segment. */
  scannedBytes: number;
  /** Per verified segment: its base and what verification found. */
  verified: Array<{ base: number; from: number } & VerifyOutcome>;
}

/**
 * Verifies the segments that §8.1 says to verify and loads every time index, trimming entries at or past each
 * segment's verified size. `segments` are sorted by base; the last is the active one, verified from crater's
 * recovery point when `point` is given (usableRecoveryPoint), else from its start.
 */
export function recoverSegments(
  segments: readonly Segment[],
  cleanShutdown: boolean,
  checkpoint: number | undefined,
  point?: RecoveryPoint,
): RecoveryReport {
  const report: RecoveryReport = { cleanShutdown, checkpoint, recoveryPoint: point, scannedBytes: 0, verified: [] };
  const cp = checkpoint ?? 0;
  segments.forEach((seg, i) => {
    const end = seg.base + seg.physicalSize();
    const inside = cp > seg.base && cp <= end;
    if (i === segments.length - 1) {
      report.verified.push({ base: seg.base, ...verifyActive(seg, point ? point.offset - seg.base : 0) });
    } else if (!cleanShutdown && end > cp) {
      const from = inside ? cp - seg.base : 0;
      report.verified.push({ base: seg.base, from, ...verifySegment(seg, from) });
    } else {
      seg.size = seg.physicalSize();
    }
    seg.loadTimeIndex();
  });
  for (const v of report.verified) report.scannedBytes += v.scannedBytes;
  return report;
}

/** The checkpoint's global offset, or undefined when the file is missing or does not hold a decimal number. */
export function readCheckpoint(dir: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, CHECKPOINT_FILE), 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StorageError(`cannot read ${path.join(dir, CHECKPOINT_FILE)}`, { cause: err });
  }
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** True when the marker was present; it is removed (and the removal made durable) either way. */
export function consumeCleanShutdownMarker(dir: string): boolean {
  const file = path.join(dir, CLEAN_SHUTDOWN_FILE);
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  fsyncDirSync(dir);
  return true;
}

export function writeCleanShutdownMarker(dir: string): void {
  writeFileAtomicSync(path.join(dir, CLEAN_SHUTDOWN_FILE), '1');
}

/**
 * Opens the partition at `dir` (made first when `create`; otherwise a missing directory is a StorageError): its
 * segments in base order, recovered as above and checked not to overlap, or one empty segment at 0 in a new
 * directory. On failure the segments opened so far are closed and the error is a StorageError.
 */
export function loadSegments(
  dir: string,
  create: boolean,
  now: () => number,
): { segments: Segment[]; recovery: RecoveryReport } {
  ensureDir(dir, create);
  const segments: Segment[] = [];
  try {
    const clean = consumeCleanShutdownMarker(dir);
    const checkpoint = readCheckpoint(dir);
    const bases: number[] = [];
    for (const name of fs.readdirSync(dir)) {
      const base = parseSegmentName(name, '.log');
      if (base !== undefined) bases.push(base);
    }
    bases.sort((a, b) => a - b);
    for (const base of bases) segments.push(Segment.open(dir, base, now()));
    const active = segments[segments.length - 1];
    const point = active && usableRecoveryPoint(readRecoveryPoint(dir), checkpoint, active.base, active.physicalSize());
    const recovery = recoverSegments(segments, clean, checkpoint, point);
    for (let i = 0; i + 1 < segments.length; i++) {
      if (segments[i]!.end > segments[i + 1]!.base) {
        throw new StorageError(
          `${segments[i]!.logFile} ends at ${segments[i]!.end}, past the next segment's base ${segments[i + 1]!.base}`,
        );
      }
    }
    if (segments.length === 0) {
      segments.push(Segment.create(dir, 0, now()));
      fsyncDirSync(dir);
    }
    return { segments, recovery };
  } catch (err) {
    for (const seg of segments) void seg.close();
    if (err instanceof StorageError) throw err;
    throw new StorageError(`cannot open the segmented log at ${dir}: ${(err as Error).message}`, { cause: err });
  }
}

function ensureDir(dir: string, create: boolean): void {
  let st: Stats;
  try {
    st = fs.statSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new StorageError(`cannot stat ${dir}`, { cause: err });
    if (!create) throw new StorageError(`partition directory ${dir} does not exist`, { cause: err });
    fs.mkdirSync(dir, { recursive: true });
    return;
  }
  if (!st.isDirectory()) throw new StorageError(`${dir} is not a directory`);
}

/**
 * A commit-log partition directory's segment files, and their recovery on open (storage.md §8.2):
 *
 *   %020d.log     records (storage.md §8), base = the segment's first offset
 *   %020d.index   dense, one entry per record: u32 offset − base · u32 byte position (BE)
 *
 * The log is authoritative. Recovery first settles an interrupted compaction (a `.log.cleaned` replaces its
 * segment only where the original is already gone; `.index.cleaned` files and indexes without a log are dropped),
 * then CRC-scans every segment, truncates it at the first bad or partial record and rewrites its index from what
 * survives when it differs.
 */
import { storageFs as fs } from './file-io.js';
import path from 'node:path';
import { scanRecords } from './record-scanner.js';

export const INDEX_ENTRY_BYTES = 8;

export interface Segment {
  base: bigint;
  logPath: string;
  indexPath: string;
  /** Open read-write for the active segment; opened on demand (read-only) for closed ones. */
  fd: number | undefined;
  indexFd: number | undefined;
  size: number;
  positions: number[];
}

export function segmentFileName(base: bigint, ext: string): string {
  return `${base.toString().padStart(20, '0')}${ext}`;
}

const LOG_NAME = /^(\d{20})\.log$/;

/** Index entries for `positions`, the first of which has relative offset `firstRel`. */
export function indexBytes(positions: readonly number[], firstRel = 0): Buffer {
  const buf = Buffer.allocUnsafe(positions.length * INDEX_ENTRY_BYTES);
  positions.forEach((p, i) => {
    buf.writeUInt32BE(firstRel + i, i * INDEX_ENTRY_BYTES);
    buf.writeUInt32BE(p, i * INDEX_ENTRY_BYTES + 4);
  });
  return buf;
}

export function createSegment(dir: string, base: bigint): Segment {
  const logPath = path.join(dir, segmentFileName(base, '.log'));
  const indexPath = path.join(dir, segmentFileName(base, '.index'));
  const fd = fs.openSync(logPath, 'w+');
  const indexFd = fs.openSync(indexPath, 'w+');
  return { base, logPath, indexPath, fd, indexFd, size: 0, positions: [] };
}

/**
 * Opens (creating when absent) the partition directory `dir` and recovers its segments, oldest first, the last
 * one (created at offset 0 in an empty dir) open read-write; `fsyncs` counts those recovery spent. On failure
 * every descriptor it opened is closed.
 */
export function recoverSegments(dir: string): { segments: Segment[]; fsyncs: number } {
  const segments: Segment[] = [];
  const counter = { fsyncs: 0 };
  try {
    fs.mkdirSync(dir, { recursive: true });
    const names = settleCompaction(dir);
    const bases = [...names]
      .map((n) => LOG_NAME.exec(n)?.[1])
      .filter((b): b is string => b !== undefined)
      .map((b) => BigInt(b))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const base of bases) segments.push(recoverSegment(dir, base, counter));
    if (segments.length === 0) segments.push(createSegment(dir, 0n));
    const active = segments[segments.length - 1]!;
    active.fd ??= fs.openSync(active.logPath, 'r+');
    active.indexFd ??= fs.openSync(active.indexPath, 'r+');
  } catch (err) {
    for (const seg of segments) {
      for (const fd of [seg.fd, seg.indexFd]) if (fd !== undefined) fs.closeSync(fd);
    }
    throw err;
  }
  return { segments, fsyncs: counter.fsyncs };
}

/** Finishes or undoes an interrupted compaction's renames and drops orphan indexes; returns the names left. */
function settleCompaction(dir: string): Set<string> {
  const names = new Set(fs.readdirSync(dir));
  for (const name of names) {
    const full = path.join(dir, name);
    if (name.endsWith('.log.cleaned')) {
      const canonical = name.slice(0, -'.cleaned'.length);
      if (names.has(canonical)) fs.rmSync(full);
      else fs.renameSync(full, path.join(dir, canonical));
      names.delete(name);
      names.add(canonical);
    } else if (name.endsWith('.index.cleaned')) {
      fs.rmSync(full);
    }
  }
  for (const name of names) {
    const m = /^(\d{20})\.index$/.exec(name);
    if (m && !names.has(`${m[1]}.log`)) fs.rmSync(path.join(dir, name));
  }
  return names;
}

function recoverSegment(dir: string, base: bigint, counter: { fsyncs: number }): Segment {
  const logPath = path.join(dir, segmentFileName(base, '.log'));
  const indexPath = path.join(dir, segmentFileName(base, '.index'));
  const fd = fs.openSync(logPath, 'r+');
  try {
    return recoverOpenSegment(base, logPath, indexPath, fd, counter);
  } finally {
    // Whether recovery worked or failed part-way (ENOSPC rewriting the index), this descriptor is done with.
    fs.closeSync(fd);
  }
}

function recoverOpenSegment(
  base: bigint,
  logPath: string,
  indexPath: string,
  fd: number,
  counter: { fsyncs: number },
): Segment {
  const seg: Segment = { base, logPath, indexPath, fd: undefined, indexFd: undefined, size: 0, positions: [] };
  const fileSize = fs.fstatSync(fd).size;
  for (const item of scanRecords(fd, fileSize)) {
    if (!item.ok) break;
    seg.positions.push(item.position);
    seg.size = item.position + item.record.size;
  }
  if (seg.size < fileSize) {
    fs.ftruncateSync(fd, seg.size);
    fs.fsyncSync(fd);
    counter.fsyncs++;
  }
  const expected = indexBytes(seg.positions);
  const current = fs.existsSync(indexPath) ? fs.readFileSync(indexPath) : undefined;
  if (!current?.equals(expected)) fs.writeFileSync(indexPath, expected);
  return seg;
}

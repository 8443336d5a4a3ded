/**
 * Resolves the paths given to the inspector into partitions and their segments, read-only: a segment file
 * (.log, .timeindex, .index), a partition directory, a topic directory or a whole data directory.
 *
 * The backend of a partition comes from `<topic>/topic.config` (`backend=commitlog`, storage.md §8.3); without one,
 * .index files mean commitlog, .timeindex files mean segmented, and an internal `__*` topic is a commit log.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Finding, StorageBackend } from './types.js';

export interface SegmentFiles {
  base: bigint;
  log?: string;
  timeIndex?: string;
  index?: string;
}

export interface PartitionTarget {
  dir: string;
  topic?: string;
  partition?: number;
  backend: StorageBackend;
  segments: SegmentFiles[];
  /** The base of the last .log in the directory: only that segment may be empty. */
  lastBase: bigint | undefined;
  /** Whether every segment of the directory is inspected (only then is naming continuity checked). */
  whole: boolean;
}

const SEGMENT_FILE = /^(\d{20})\.(log|timeindex|index)$/;
const PARTITION_DIR = /^partition-(\d+)$/;

function byBase(a: SegmentFiles, b: SegmentFiles): number {
  return a.base < b.base ? -1 : a.base > b.base ? 1 : 0;
}

function listSegments(dir: string): SegmentFiles[] {
  const byBaseMap = new Map<bigint, SegmentFiles>();
  for (const name of fs.readdirSync(dir)) {
    const m = SEGMENT_FILE.exec(name);
    if (!m) continue;
    const base = BigInt(m[1]!);
    const files = byBaseMap.get(base) ?? { base };
    const full = path.join(dir, name);
    if (m[2] === 'log') files.log = full;
    else if (m[2] === 'timeindex') files.timeIndex = full;
    else files.index = full;
    byBaseMap.set(base, files);
  }
  return [...byBaseMap.values()].sort(byBase);
}

/** `backend=` from a topic.config, if the file exists and says. */
function configuredBackend(topicDir: string): StorageBackend | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(topicDir, 'topic.config'), 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const m = /^\s*backend\s*=\s*(\S+)\s*$/.exec(line);
    if (m?.[1] === 'commitlog' || m?.[1] === 'segmented') return m[1];
  }
  return undefined;
}

export function detectBackend(
  partitionDir: string,
  topic: string | undefined,
  segments: readonly SegmentFiles[],
): StorageBackend {
  const configured = configuredBackend(path.dirname(partitionDir));
  if (configured) return configured;
  if (segments.some((s) => s.index)) return 'commitlog';
  if (segments.some((s) => s.timeIndex)) return 'segmented';
  return topic?.startsWith('__') ? 'commitlog' : 'segmented';
}

function partitionTarget(dir: string, only?: bigint): PartitionTarget {
  const m = PARTITION_DIR.exec(path.basename(dir));
  const topic = m ? path.basename(path.dirname(dir)) : undefined;
  const all = listSegments(dir);
  const logs = all.filter((s) => s.log);
  const target: PartitionTarget = {
    dir,
    backend: detectBackend(dir, topic, all),
    segments: only === undefined ? all : all.filter((s) => s.base === only),
    lastBase: logs[logs.length - 1]?.base,
    whole: only === undefined,
  };
  if (topic !== undefined) target.topic = topic;
  if (m) target.partition = Number(m[1]);
  return target;
}

function partitionDirs(topicDir: string): string[] {
  return fs
    .readdirSync(topicDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && PARTITION_DIR.test(e.name))
    .map((e) => ({ dir: path.join(topicDir, e.name), id: Number(PARTITION_DIR.exec(e.name)![1]) }))
    .sort((a, b) => a.id - b.id)
    .map((p) => p.dir);
}

function subdirs(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => path.join(dir, e.name))
    .sort();
}

/** Resolves one path; problems with the path itself become findings rather than exceptions. */
export function discover(input: string, findings: Finding[]): PartitionTarget[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(input);
  } catch {
    findings.push({ kind: 'missing-path', file: input, position: 0, message: 'no such file or directory' });
    return [];
  }
  if (stat.isFile()) {
    const m = SEGMENT_FILE.exec(path.basename(input));
    if (!m) {
      findings.push({
        kind: 'not-a-segment',
        file: input,
        position: 0,
        message: 'not a segment file (expected %020d.log, .timeindex or .index)',
      });
      return [];
    }
    return [partitionTarget(path.dirname(input), BigInt(m[1]!))];
  }
  if (PARTITION_DIR.test(path.basename(input)) || listSegments(input).length > 0) return [partitionTarget(input)];
  const partitions = partitionDirs(input);
  if (partitions.length > 0) return partitions.map((p) => partitionTarget(p));
  const topics = subdirs(input).filter((d) => partitionDirs(d).length > 0);
  if (topics.length > 0) return topics.flatMap((t) => partitionDirs(t).map((p) => partitionTarget(p)));
  findings.push({
    kind: 'not-a-segment',
    file: input,
    position: 0,
    message: 'no segments, partition directories or topics under this directory',
  });
  return [];
}

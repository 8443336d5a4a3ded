/**
 * The abort index (semantics.md §10, storage.md §8.4): `<DataDir>/txn-aborts.json`,
 *
 *   {
 *     "entries": [
 *       { "topic": "orders", "partition": 1, "pid": 7, "epoch": 3, "first": 0, "upto": 164 },
 *       …
 *     ]
 *   }
 *
 * pretty-printed, sorted by (topic bytes, partition, first), written to a temporary file, fsynced, renamed over the
 * old one and the directory fsynced. A read_committed reader skips a transactional record (attrs 0x08) when an entry
 * for its topic, partition, pid and epoch has first ≤ offset < upto. Numbers are written as JSON integers, as
 * MoonMQ does; they are read back exactly (no detour through a double), so offsets past 2^53 survive.
 *
 * A file that cannot be read stops the broker: starting without it would show aborted data to read_committed readers.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { StorageError } from '../../errors.js';

export const ABORT_INDEX_FILE = 'txn-aborts.json';

export interface AbortEntry {
  topic: string;
  partition: number;
  producerId: bigint;
  epoch: number;
  first: bigint;
  upto: bigint;
}

function partitionKey(topic: string, partition: number): string {
  return `${partition}\u0000${topic}`;
}

function compareEntries(a: AbortEntry, b: AbortEntry): number {
  const t = Buffer.compare(Buffer.from(a.topic), Buffer.from(b.topic));
  if (t !== 0) return t;
  if (a.partition !== b.partition) return a.partition - b.partition;
  return a.first < b.first ? -1 : a.first > b.first ? 1 : 0;
}

/** The integer fields, quoted before JSON.parse so that none passes through a double. */
const INTEGER_FIELD = /"(partition|pid|epoch|first|upto)"(\s*):(\s*)(-?\d+)/g;

export class AbortIndex {
  private entries: AbortEntry[] = [];
  private byPartition = new Map<string, AbortEntry[]>();
  private writing: Promise<void> = Promise.resolve();

  private constructor(readonly file: string) {}

  static async load(dataDir: string): Promise<AbortIndex> {
    const index = new AbortIndex(path.join(dataDir, ABORT_INDEX_FILE));
    let text: string;
    try {
      text = await fs.readFile(index.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return index;
      throw new StorageError(`cannot read ${index.file}: ${(err as Error).message}`, { cause: err });
    }
    index.replace(parseAbortIndex(text, index.file));
    return index;
  }

  get size(): number {
    return this.entries.length;
  }

  /** Every entry, sorted. */
  list(): readonly AbortEntry[] {
    return this.entries;
  }

  /**
   * A predicate for one partition's reader, or undefined when the partition has no aborted range (the common
   * case: readers then skip the check entirely).
   */
  filterFor(
    topic: string,
    partition: number,
  ): ((offset: bigint, producerId: bigint, epoch: number) => boolean) | undefined {
    const list = this.byPartition.get(partitionKey(topic, partition));
    if (!list || list.length === 0) return undefined;
    return (offset, producerId, epoch) => {
      for (const e of list) {
        if (e.producerId === producerId && e.epoch === epoch && e.first <= offset && offset < e.upto) return true;
      }
      return false;
    };
  }

  /** Adds entries (an entry with the same topic, partition, pid, epoch and first widens to the larger upto). */
  add(added: readonly AbortEntry[]): Promise<void> {
    if (added.length === 0) return Promise.resolve();
    const next = this.entries.map((e) => ({ ...e }));
    for (const a of added) {
      const same = next.find(
        (e) =>
          e.topic === a.topic &&
          e.partition === a.partition &&
          e.producerId === a.producerId &&
          e.epoch === a.epoch &&
          e.first === a.first,
      );
      if (same) {
        if (a.upto > same.upto) same.upto = a.upto;
      } else {
        next.push({ ...a });
      }
    }
    return this.commit(next);
  }

  /**
   * Drops entries whose range lies wholly below the partition's oldest retained offset, or whose partition no
   * longer exists (`logStart` returns undefined). Writes only when something was dropped; returns how many.
   */
  async prune(logStart: (topic: string, partition: number) => bigint | undefined): Promise<number> {
    const kept = this.entries.filter((e) => {
      const start = logStart(e.topic, e.partition);
      return start !== undefined && e.upto > start;
    });
    const dropped = this.entries.length - kept.length;
    if (dropped > 0) await this.commit(kept);
    return dropped;
  }

  /** Waits for the write in progress. */
  async flush(): Promise<void> {
    await this.writing.catch(() => undefined);
  }

  /** Writes are chained so the file always ends up with the latest list; memory follows once it is durable. */
  private commit(next: AbortEntry[]): Promise<void> {
    next.sort(compareEntries);
    const text = formatAbortIndex(next);
    const run = this.writing
      .catch(() => undefined)
      .then(async () => {
        await writeAtomically(this.file, text);
        this.replace(next);
      });
    this.writing = run;
    return run;
  }

  private replace(entries: AbortEntry[]): void {
    this.entries = entries;
    const map = new Map<string, AbortEntry[]>();
    for (const e of entries) {
      const k = partitionKey(e.topic, e.partition);
      let list = map.get(k);
      if (!list) map.set(k, (list = []));
      list.push(e);
    }
    this.byPartition = map;
  }
}

export function formatAbortIndex(entries: readonly AbortEntry[]): string {
  if (entries.length === 0) return '{\n  "entries": []\n}\n';
  const lines = entries.map(
    (e) =>
      `    {\n      "topic": ${JSON.stringify(e.topic)},\n      "partition": ${e.partition},\n      "pid": ${e.producerId},\n` +
      `      "epoch": ${e.epoch},\n      "first": ${e.first},\n      "upto": ${e.upto}\n    }`,
  );
  return `{\n  "entries": [\n${lines.join(',\n')}\n  ]\n}\n`;
}

export function parseAbortIndex(text: string, file: string): AbortEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(INTEGER_FIELD, '"$1"$2:$3"$4"'));
  } catch (err) {
    throw new StorageError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const raw = (doc as { entries?: unknown } | null)?.entries;
  if (!Array.isArray(raw)) throw new StorageError(`${file} has no "entries" list`);
  return raw.map((e: unknown, i) => {
    const o = (e ?? {}) as Record<string, unknown>;
    const int = (field: string): bigint => {
      const v = o[field];
      if (typeof v !== 'string' || !/^\d+$/.test(v))
        throw new StorageError(`${file} entries[${i}].${field} is not a non-negative integer`);
      return BigInt(v);
    };
    if (typeof o.topic !== 'string') throw new StorageError(`${file} entries[${i}].topic is not a string`);
    return {
      topic: o.topic,
      partition: Number(int('partition')),
      producerId: int('pid'),
      epoch: Number(int('epoch')),
      first: int('first'),
      upto: int('upto'),
    };
  });
}

async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp`;
  const handle = await fs.open(tmp, 'w');
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(tmp, file);
  const dir = await fs.open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

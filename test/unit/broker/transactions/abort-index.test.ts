/**
 * txn-aborts.json: the exact pretty layout, sorting by (topic, partition, first), exact integers past 2^53, the
 * read_committed filter (pid, epoch and range must all match), widening of a repeated entry, pruning, and what
 * happens to a file the broker cannot read (it refuses rather than show aborted data).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ABORT_INDEX_FILE,
  AbortIndex,
  type AbortEntry,
  formatAbortIndex,
  parseAbortIndex,
} from '../../../../src/broker/transactions/abort-index.js';
import { StorageError } from '../../../../src/errors.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-aborts-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const entry = (over: Partial<AbortEntry> = {}): AbortEntry => ({
  topic: 'orders',
  partition: 1,
  producerId: 7n,
  epoch: 3,
  first: 0n,
  upto: 100n,
  ...over,
});

describe('file layout', () => {
  it('writes pretty JSON with the spec field names, sorted, and reads it back exactly', async () => {
    const index = await AbortIndex.load(dir);
    const big = 2n ** 60n + 1n;
    await index.add([
      entry({ topic: 'b', first: 5n }),
      entry({ topic: 'a', partition: 2 }),
      entry({ topic: 'a', partition: 1, first: big, upto: big + 10n }),
    ]);
    const text = fs.readFileSync(path.join(dir, ABORT_INDEX_FILE), 'utf8');
    expect(
      text.startsWith('{\n  "entries": [\n    {\n      "topic": "a",\n      "partition": 1,\n      "pid": 7,'),
    ).toBe(true);
    expect(text).toContain(`"first": ${big},`);
    const parsed = parseAbortIndex(text, 'f');
    expect(parsed.map((e) => `${e.topic}/${e.partition}`)).toEqual(['a/1', 'a/2', 'b/1']);
    expect(parsed[0]!.first).toBe(big);
    expect(fs.readdirSync(dir)).toEqual([ABORT_INDEX_FILE]);
    expect(formatAbortIndex(parsed)).toBe(text);
  });

  it('reads an empty index and a missing file as no entries', async () => {
    expect(parseAbortIndex(formatAbortIndex([]), 'f')).toEqual([]);
    expect((await AbortIndex.load(dir)).size).toBe(0);
  });

  it('refuses a file it cannot trust, naming it; the file is left as it was', async () => {
    const file = path.join(dir, ABORT_INDEX_FILE);
    fs.writeFileSync(file, '{"entries":[{"topic":"a","partition":1,"pid":-1,"epoch":0,"first":0,"upto":1}]}');
    await expect(AbortIndex.load(dir)).rejects.toThrow(StorageError);
    fs.writeFileSync(file, '{"entries": [');
    await expect(AbortIndex.load(dir)).rejects.toThrow(new RegExp(ABORT_INDEX_FILE));
    expect(fs.readFileSync(file, 'utf8')).toBe('{"entries": [');
  });
});

describe('filter', () => {
  it('skips only records of the same pid and epoch inside [first, upto)', async () => {
    const index = await AbortIndex.load(dir);
    await index.add([entry({ first: 10n, upto: 20n })]);
    const skip = index.filterFor('orders', 1)!;
    expect(skip(10n, 7n, 3)).toBe(true);
    expect(skip(19n, 7n, 3)).toBe(true);
    expect(skip(20n, 7n, 3)).toBe(false);
    expect(skip(9n, 7n, 3)).toBe(false);
    expect(skip(15n, 8n, 3)).toBe(false);
    expect(skip(15n, 7n, 4)).toBe(false);
    expect(index.filterFor('orders', 2)).toBeUndefined();
    expect(index.filterFor('other', 1)).toBeUndefined();
  });

  it('widens an entry added again with a later upto instead of duplicating it', async () => {
    const index = await AbortIndex.load(dir);
    await index.add([entry({ upto: 50n })]);
    await index.add([entry({ upto: 80n })]);
    expect(index.list()).toEqual([entry({ upto: 80n })]);
    expect((await AbortIndex.load(dir)).list()).toEqual([entry({ upto: 80n })]);
  });
});

describe('prune', () => {
  it('drops entries wholly below the log start and entries of partitions that no longer exist', async () => {
    const index = await AbortIndex.load(dir);
    await index.add([entry({ upto: 100n }), entry({ first: 100n, upto: 200n }), entry({ topic: 'gone' })]);
    const dropped = await index.prune((topic) => (topic === 'orders' ? 100n : undefined));
    expect(dropped).toBe(2);
    expect(index.list()).toEqual([entry({ first: 100n, upto: 200n })]);
    expect((await AbortIndex.load(dir)).list()).toEqual([entry({ first: 100n, upto: 200n })]);
    expect(await index.prune(() => 0n)).toBe(0);
  });
});

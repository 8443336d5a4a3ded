/**
 * Small CLI helpers with rules of their own: "did you mean" suggestions for a mistyped command, the output window
 * that decides which records go back to the group when stdout closes, -D delimiters and whole-file records, and the
 * seconds rule of `topic alter --set`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { configValue } from '../../../src/cli/flags.js';
import { editDistance, suggestions } from '../../../src/cli/hooks/command-not-found.js';
import { parseDelimiter, readInputLines, splitLines } from '../../../src/cli/line-input.js';
import { OutputWindow } from '../../../src/cli/output-window.js';
import type { FetchedRecord } from '../../../src/client/index.js';
import { UsageError } from '../../../src/errors.js';

describe('command suggestions', () => {
  const known = ['topic create', 'topic delete', 'topic list', 'consume', 'produce', 'group list'];

  it('edit distance counts inserts, deletes and substitutions', () => {
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('consme', 'consume')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests up to three ids within a third of the length (at least 2), closest first, prefixes close', () => {
    expect(suggestions('consme', known)).toEqual(['consume']);
    expect(suggestions('topic creat', known)).toEqual(['topic create']);
    // A prefix of several ids counts as one edit from each; ties go alphabetically, three at most.
    expect(suggestions('topic', known)).toEqual(['topic create', 'topic delete', 'topic list']);
    expect(suggestions('xyzzy', known)).toEqual([]);
    expect(suggestions('prodcue', known)).toEqual(['produce']);
  });
});

const rec = (partition: number, offset: bigint, topic = 't') => ({ topic, partition, offset }) as FetchedRecord;

describe('OutputWindow', () => {
  it('hands back the earliest offset per partition of what may still sit in the pipe, and of the unwritten', () => {
    const w = new OutputWindow(100);
    w.wrote(rec(1, 10n), 60);
    w.wrote(rec(1, 20n), 60);
    w.wrote(rec(2, 5n), 60);
    // 180 bytes written: the first record ended 120 bytes ago, past the window; the second 60 bytes ago.
    expect(w.handBack([rec(2, 7n), rec(1, 30n, 'u')])).toEqual(
      new Map([
        [
          't',
          new Map([
            [1, 20n],
            [2, 5n],
          ]),
        ],
        ['u', new Map([[1, 30n]])],
      ]),
    );
  });

  it('after one write of several records, every record of that write goes back too, besides the window', () => {
    const w = new OutputWindow(100);
    w.wroteAll([rec(1, 1n)], [80]);
    w.wroteAll([rec(1, 2n)], [100]);
    // The last write (120 bytes) may still sit in the process, whole, so the window is 220 bytes: the record that
    // ended 120 bytes ago goes back, the one that ended 220 bytes ago does not.
    w.wroteAll([rec(2, 1n), rec(2, 2n)], [60, 60]);
    expect(w.handBack([])).toEqual(
      new Map([
        [
          't',
          new Map([
            [1, 2n],
            [2, 1n],
          ]),
        ],
      ]),
    );
  });

  it('keeps what a record-at-a-time window keeps, over random mixes of single and whole-FETCH writes', () => {
    let seed = 7;
    const next = (n: number): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let run = 0; run < 200; run++) {
      const w = new OutputWindow(100);
      // The model: every record with the bytes written once it was; it drops from the front what ended at least
      // the window plus the last write before the end, checked after each record.
      let model: { r: FetchedRecord; end: number }[] = [];
      let bytes = 0;
      let last = 0;
      let offset = 0n;
      for (let step = 0; step < 12; step++) {
        const records = Array.from({ length: next(4) }, () => rec(1 + next(3), (offset += 1n)));
        const sizes = records.map(() => 1 + next(90));
        if (records.length === 1 && next(2) === 0) w.wrote(records[0]!, sizes[0]!);
        else {
          w.wroteAll(records, sizes);
          last = sizes.reduce((a, b) => a + b, 0);
        }
        records.forEach((r, i) => {
          bytes += sizes[i]!;
          model.push({ r, end: bytes });
          while (model.length > 0 && bytes - model[0]!.end >= 100 + last) model = model.slice(1);
        });
      }
      const expected = new OutputWindow(0);
      expect(w.handBack([])).toEqual(expected.handBack(model.map((m) => m.r)));
    }
  });

  it('with nothing written hands back exactly the unwritten records', () => {
    expect(new OutputWindow().handBack([])).toEqual(new Map());
    expect(new OutputWindow().handBack([rec(3, 9n), rec(3, 4n)])).toEqual(new Map([['t', new Map([[3, 4n]])]]));
  });
});

async function collect(gen: AsyncIterable<{ bytes: Buffer; source: string; lineNo: number }>) {
  const out: Array<[string, string, number]> = [];
  for await (const l of gen) out.push([l.bytes.toString('utf8'), l.source, l.lineNo]);
  return out;
}

describe('record input', () => {
  it('parses -D escapes and refuses unknown or empty ones', () => {
    expect(parseDelimiter('\\n')).toEqual(Buffer.from([0x0a]));
    expect(parseDelimiter('\\t\\r\\0\\\\')).toEqual(Buffer.from([0x09, 0x0d, 0x00, 0x5c]));
    expect(parseDelimiter('\\x1E|é')).toEqual(Buffer.concat([Buffer.from([0x1e]), Buffer.from('|é')]));
    expect(() => parseDelimiter('\\q')).toThrow(
      new UsageError('delimiter "\\q": unknown escape \\q (use \\n \\t \\r \\0 \\\\ or \\xHH)'),
    );
    expect(() => parseDelimiter('\\x1')).toThrow(UsageError);
    expect(() => parseDelimiter('\\')).toThrow(UsageError);
    expect(() => parseDelimiter('')).toThrow(new UsageError('the record delimiter must not be empty'));
  });

  it('splits at a multi-byte delimiter cut across chunks, keeping a last record without one', async () => {
    const chunks = Readable.from([Buffer.from('a|'), Buffer.from('|b|'), Buffer.from('|c')]);
    expect(await collect(splitLines(chunks, 'in', Buffer.from('||')))).toEqual([
      ['a', 'in', 1],
      ['b', 'in', 2],
      ['c', 'in', 3],
    ]);
    await expect(collect(splitLines(Readable.from(['x']), 'in', Buffer.alloc(0)))).rejects.toThrow(UsageError);
  });

  it('reads files in turn, "-" as stdin, and one record per file with filePerRecord', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-input-'));
    try {
      const a = path.join(dir, 'a.txt');
      fs.writeFileSync(a, 'one\ntwo\n');
      expect(await collect(readInputLines([a, '-'], Readable.from(['three\n'])))).toEqual([
        ['one', a, 1],
        ['two', a, 2],
        ['three', 'stdin', 1],
      ]);
      expect(await collect(readInputLines([a], Readable.from([]), { filePerRecord: true }))).toEqual([
        ['one\ntwo\n', a, 1],
      ]);
      expect(await collect(readInputLines([], Readable.from(['x;y']), { delimiter: Buffer.from(';') }))).toEqual([
        ['x', 'stdin', 1],
        ['y', 'stdin', 2],
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('configValue', () => {
  it('turns durations of seconds-valued keys into whole seconds, leaves others alone', () => {
    expect(configValue('retention', '7d')).toBe('604800');
    expect(configValue('retention', '90')).toBe('90');
    expect(configValue('cleaner_interval', '2m')).toBe('120');
    expect(configValue('segment_bytes', '7d')).toBe('7d');
    for (const bad of ['1500ms', '500ms', 'soon'])
      expect(() => configValue('retention', bad), bad).toThrow(
        new UsageError(`retention=${bad}: expected whole seconds, or a duration such as 90s, 12h, 7d`),
      );
  });
});

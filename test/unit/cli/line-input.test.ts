import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type InputLine, parseHeaderFlag, readInputLines, splitKey, splitLines } from '../../../src/cli/line-input.js';

async function collect(gen: AsyncIterable<InputLine>): Promise<Array<[string, number, string]>> {
  const out: Array<[string, number, string]> = [];
  for await (const l of gen) out.push([l.source, l.lineNo, l.bytes.toString('hex')]);
  return out;
}

const hex = (s: string | Buffer) => Buffer.from(s).toString('hex');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-line-input-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('line input', () => {
  it('splits on 0x0A across arbitrary chunk boundaries without decoding (CR and invalid UTF-8 kept)', async () => {
    const bytes = Buffer.concat([
      Buffer.from('ab\r\n'),
      Buffer.from([0xc3]),
      Buffer.from([0x28, 0x0a, 0x0a]),
      Buffer.from('tail'),
    ]);
    for (let size = 1; size <= bytes.length; size++) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      expect(await collect(splitLines(Readable.from(chunks), 'stdin'))).toEqual([
        ['stdin', 1, hex('ab\r')],
        ['stdin', 2, 'c328'],
        ['stdin', 3, ''],
        ['stdin', 4, hex('tail')],
      ]);
    }
  });

  it('does not make a line of the empty remainder after a final newline', async () => {
    expect(await collect(splitLines(Readable.from([Buffer.from('a\nb\n')]), 'f'))).toEqual([
      ['f', 1, hex('a')],
      ['f', 2, hex('b')],
    ]);
  });

  it('reads files in order, "-" meaning stdin, numbering lines per source', async () => {
    const a = path.join(dir, 'a.txt');
    fs.writeFileSync(a, 'one\ntwo\n');
    const stdin = Readable.from([Buffer.from('in\n')]);
    expect(await collect(readInputLines([a, '-'], stdin))).toEqual([
      [a, 1, hex('one')],
      [a, 2, hex('two')],
      ['stdin', 1, hex('in')],
    ]);
  });

  it('fails on a missing file, naming it', async () => {
    await expect(collect(readInputLines([path.join(dir, 'missing.txt')]))).rejects.toThrow(/missing\.txt/);
  });

  it('splits a key at the first delimiter only; no delimiter means no key', () => {
    const r = splitKey(Buffer.from('k::v::w'), Buffer.from('::'));
    expect([r.key?.toString(), r.value.toString()]).toEqual(['k', 'v::w']);
    const none = splitKey(Buffer.from('plain'), Buffer.from(':'));
    expect([none.key, none.value.toString()]).toEqual([undefined, 'plain']);
  });

  it('parses -H name=value, keeping "=" in the value, and refuses a header without a name', () => {
    expect(parseHeaderFlag('a=b=c')).toEqual({ name: 'a', value: Buffer.from('b=c') });
    expect(parseHeaderFlag('a=')).toEqual({ name: 'a', value: Buffer.alloc(0) });
    expect(() => parseHeaderFlag('=v')).toThrow(/expected name=value/);
    expect(() => parseHeaderFlag('novalue')).toThrow(/expected name=value/);
  });
});

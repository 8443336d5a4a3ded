import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type InputSource, splitLineBuffers } from '../../../src/cli/line-input.js';
import {
  type LineOptions,
  lineOf,
  plainRecordChunks,
  type RecordChunk,
  recordChunks,
} from '../../../src/cli/producing.js';

type Flat = [index: number, source: string, line: number, key: string | null, value: string, headers: number];

async function flatten(chunks: AsyncIterable<RecordChunk>): Promise<Flat[]> {
  const out: Flat[] = [];
  for await (const c of chunks) {
    expect(c.records.length).toBeGreaterThan(0);
    c.records.forEach((r, j) => {
      const key = r.key === undefined ? null : Buffer.from(r.key).toString('hex');
      out.push([
        c.firstIndex + j,
        c.source,
        lineOf(c, j),
        key,
        Buffer.from(r.value).toString('hex'),
        r.headers?.length ?? 0,
      ]);
    });
  }
  return out;
}

function pieces(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

/** What the LineChunk path (splitLineBuffers, then recordChunks) makes of the same sources: the reference. */
async function reference(inputs: [string, Buffer[]][], options: LineOptions, delimiter?: Buffer): Promise<Flat[]> {
  async function* lineChunks() {
    for (const [source, chunks] of inputs) yield* splitLineBuffers(Readable.from(chunks), source, delimiter);
  }
  return flatten(recordChunks(lineChunks(), options));
}

function sources(inputs: [string, Buffer[]][]): InputSource[] {
  return inputs.map(([source, chunks]) => ({ source, chunks: Readable.from(chunks) }));
}

const INPUT = Buffer.from('a:1\n\nb:2\r\n:3\nno-delimiter\n\n\nc:\n\xff\xfe:x\ntail');

describe('plain lines straight to records (plainRecordChunks)', () => {
  const cases: [string, LineOptions, Buffer | undefined][] = [
    ['plain lines', { input: 'lines' }, undefined],
    ['-Z keeps empty lines', { input: 'lines', keepEmpty: true }, undefined],
    ['-K : splits keys', { input: 'lines', keyDelimiter: Buffer.from(':') }, undefined],
    [
      '-k and -H on every record',
      { input: 'lines', key: Buffer.from('k'), headers: [{ name: 'h', value: Buffer.from('v') }] },
      undefined,
    ],
    ['-D with a multi-byte delimiter', { input: 'lines' }, Buffer.from(':1')],
  ];
  for (const [name, options, delimiter] of cases) {
    it(`${name}: the same records, indexes and line numbers as the LineChunk path, for every chunking`, async () => {
      for (let size = 1; size <= INPUT.length; size++) {
        const inputs: [string, Buffer[]][] = [
          ['first.txt', pieces(INPUT, size)],
          ['stdin', pieces(Buffer.from('x\n\ny\n'), size)],
        ];
        const expected = await reference(inputs, options, delimiter);
        expect(await flatten(plainRecordChunks(sources(inputs), options, delimiter))).toEqual(expected);
      }
    });
  }

  it('numbers lines past skipped empty ones and runs indexes on across sources', async () => {
    const inputs: [string, Buffer[]][] = [
      ['a', [Buffer.from('one\n\ntwo\n')]],
      ['b', [Buffer.from('\nthree')]],
    ];
    expect(await flatten(plainRecordChunks(sources(inputs), { input: 'lines' }))).toEqual([
      [0, 'a', 1, null, Buffer.from('one').toString('hex'), 0],
      [1, 'a', 3, null, Buffer.from('two').toString('hex'), 0],
      [2, 'b', 2, null, Buffer.from('three').toString('hex'), 0],
    ]);
  });

  it('refuses an empty delimiter', async () => {
    const run = flatten(plainRecordChunks(sources([['a', [Buffer.from('x')]]]), { input: 'lines' }, Buffer.alloc(0)));
    await expect(run).rejects.toThrow(/must not be empty/);
  });
});

import { PassThrough, Writable } from 'node:stream';
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount, formatDuration } from '../../../src/cli/render/format.js';
import { jsonReplacer, stringifyJson } from '../../../src/cli/render/json.js';
import { JsonlWriter } from '../../../src/cli/render/jsonl.js';
import { renderTable } from '../../../src/cli/render/table.js';

describe('JSON number rule', () => {
  it('writes safe bigints as numbers and larger ones as decimal strings', () => {
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    expect(stringifyJson({ a: 0n, b: max, c: max + 1n, d: -max - 1n, e: 2n ** 64n - 1n })).toBe(
      `{"a":0,"b":${max},"c":"${max + 1n}","d":"${-max - 1n}","e":"18446744073709551615"}`,
    );
  });

  it('writes bytes as base64 and leaves other values to JSON', () => {
    expect(stringifyJson({ key: Buffer.from('hi'), raw: new Uint8Array([0xff]), n: 1.5, s: 'x', u: undefined })).toBe(
      '{"key":"aGk=","raw":"/w==","n":1.5,"s":"x"}',
    );
    expect(stringifyJson(5n)).toBe('5');
    expect(stringifyJson([1n, Buffer.alloc(0)])).toBe('[1,""]');
  });

  it('is an ordinary replacer', () => {
    expect(JSON.stringify({ x: 7n }, jsonReplacer)).toBe('{"x":7}');
    expect(stringifyJson({ x: 1n }, { pretty: true })).toBe('{\n  "x": 1\n}');
  });
});

describe('JsonlWriter', () => {
  it('writes one document per line', async () => {
    const sink = new PassThrough();
    let text = '';
    sink.on('data', (d: Buffer) => (text += d.toString()));
    const w = new JsonlWriter(sink);
    expect(await w.write({ offset: 1n })).toBe(true);
    expect(await w.write({ offset: 2n ** 60n })).toBe(true);
    w.detach();
    expect(text).toBe('{"offset":1}\n{"offset":"1152921504606846976"}\n');
  });

  it('waits for drain when the reader is slow', async () => {
    const pending: Array<() => void> = [];
    const sink = new Writable({ highWaterMark: 4, write: (_c, _e, cb) => pending.push(cb) });
    const w = new JsonlWriter(sink);
    let settled = false;
    const write = w.write({ a: 1 }).then((ok) => (settled = ok));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    for (const cb of pending.splice(0)) cb();
    await write;
    expect(settled).toBe(true);
    w.detach();
  });

  it('resolves false once the reader has gone (EPIPE), and drops later lines', async () => {
    const pending: Array<() => void> = [];
    const sink = new Writable({ highWaterMark: 4, write: (_c, _e, cb) => pending.push(cb) });
    const w = new JsonlWriter(sink);
    const blocked = w.write({ a: 1 });
    sink.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(await blocked).toBe(false);
    expect(await w.write({ a: 2 })).toBe(false);
    expect(w.open).toBe(false);
    expect(pending).toHaveLength(1);
  });

  it('rejects on any other stream error', async () => {
    const sink = new Writable({ write: (_c, _e, cb) => cb(Object.assign(new Error('no space'), { code: 'ENOSPC' })) });
    const w = new JsonlWriter(sink);
    await w.write({ a: 1 }).catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    await expect(w.write({ a: 2 })).rejects.toThrow('no space');
  });
});

describe('renderTable', () => {
  const columns = [
    { header: 'partition', value: (r: { p: number; o: bigint }) => r.p, align: 'right' as const },
    { header: 'offset', value: (r: { p: number; o: bigint }) => r.o },
  ];
  const rows = [
    { p: 1, o: 0n },
    { p: 12, o: 123456789n },
  ];

  it('prints plain aligned columns off a terminal, without colour when disabled', () => {
    const text = renderTable(columns, rows, { tty: false, chalk: new Chalk({ level: 0 }) });
    expect(text).toBe(['partition  offset', '        1  0', '       12  123456789'].join('\n'));
  });

  it('draws a box on a terminal', () => {
    const text = renderTable(columns, rows, { tty: true, chalk: new Chalk({ level: 0 }) });
    expect(text).toContain('┌');
    expect(text).toContain('123456789');
    expect(text).not.toContain('\u001b[');
  });

  it('colours headers only when chalk has a level', () => {
    const text = renderTable(columns, rows, { tty: false, chalk: new Chalk({ level: 1 }) });
    expect(text.split('\n')[0]).toContain('\u001b[1m');
    expect(text.split('\n')[1]).toBe('        1  0');
  });
});

describe('human formats', () => {
  it('formats bytes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.00 KiB');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(1_048_575)).toBe('1.00 MiB');
    expect(formatBytes(1024n ** 3n)).toBe('1.00 GiB');
    expect(formatBytes(150 * 1024 * 1024)).toBe('150 MiB');
  });

  it('formats durations from microseconds to hours', () => {
    expect(formatDuration(0.25)).toBe('250 µs');
    expect(formatDuration(1.234)).toBe('1.23 ms');
    expect(formatDuration(12.34)).toBe('12.3 ms');
    expect(formatDuration(4560)).toBe('4.56 s');
    expect(formatDuration(123_000)).toBe('2m 03s');
    expect(formatDuration(3_720_000)).toBe('1h 02m');
  });

  it('groups counts', () => {
    expect(formatCount(1_048_576)).toBe('1,048,576');
    expect(formatCount(10n ** 12n)).toBe('1,000,000,000,000');
    // Grouped by hand for integers: the same text toLocaleString('en-US') gives, also for what it handles itself.
    for (const n of [
      0,
      7,
      -7,
      999,
      1000,
      -1000,
      12_345,
      999_999,
      1_000_000,
      -98_765_432,
      Number.MAX_SAFE_INTEGER,
      1234.5678,
      NaN,
      -Infinity,
      2 ** 60,
    ]) {
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
    }
    expect(formatCount(-(10n ** 20n) - 5n)).toBe((-(10n ** 20n) - 5n).toLocaleString('en-US'));
  });
});

/**
 * `crater produce` as a kcat user drives it (issue 16 items 1, 2, 5, 7): a closed pipe loses nothing, -p N,
 * -D DELIM, -Z, --file-per-record, a missing topic stops at once, and a MoonMQ peer (a broker that does not say it
 * is crater) is never sent the partition extension. Real broker in-process on port 0, the built binary as a child.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { jsonLines, spawnCrater, useCliBroker } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';

const server = useCliBroker();
let tmp: string;

const { crater } = server;

const { createTopic } = server;

/** Every record of `topic` as partition:value, read through a throwaway group. */
async function stored(topic: string): Promise<string[]> {
  const client = await connect({ broker: server.address });
  try {
    const out: string[] = [];
    for (;;) {
      const { records } = await client.fetch(topic, `check-${topic}`, { maxRecords: 1000 });
      if (records.length === 0) return out;
      for (const r of records) out.push(`${r.partition}:${r.value.toString('utf8')}`);
    }
  } finally {
    await client.deleteGroup(`check-${topic}`).catch(() => {});
    await client.close();
  }
}

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-produce-'));
});

afterAll(async () => {
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe('a closed pipe loses nothing', () => {
  it('produce --json | head -1: reports stop, one stderr line says so, every input record lands', async () => {
    await createTopic('pipe');
    const input = Array.from({ length: 5000 }, (_, i) => String(i + 1)).join('\n') + '\n';
    const child = spawnCrater(['produce', 'pipe', '--json'], { broker: server.address });
    child.child.stdin.end(input);
    const first = await new Promise<string>((resolve) => {
      let buf = '';
      child.child.stdout.on('data', (d: Buffer) => {
        buf += d.toString('utf8');
        const nl = buf.indexOf('\n');
        if (nl !== -1) {
          child.child.stdout.destroy();
          resolve(buf.slice(0, nl));
        }
      });
    });
    const { code, stderr } = await child.done;
    expect(JSON.parse(first)).toMatchObject({ index: 0, topic: 'pipe', partition: 1 });
    expect(code).toBe(0);
    expect(stderr).toMatch(/stdout closed after \d+ delivery reports; producing the rest of the input without reports/);
    expect(stderr).toMatch(/produced 5,000 of 5,000 records to pipe/);
    const values = await stored('pipe');
    expect(values).toHaveLength(5000);
    expect(values.at(-1)).toBe('1:5000');
  });
});

describe('addressing and record boundaries', () => {
  it('-p N puts every record in partition N whatever the key (a crater extension), with or without --batch', async () => {
    await createTopic('fixed', 3);
    const one = await crater(['produce', 'fixed', '-p', '3', '-K', ':', '--json'], 'a:1\nb:2\nc:3\n');
    expect(one.code, one.stderr).toBe(0);
    expect(jsonLines(one.stdout).map((d) => d.partition)).toEqual([3, 3, 3]);
    const batched = await crater(['produce', 'fixed', '-p', '2', '--batch', '10', '--json'], 'x\ny\n');
    expect(jsonLines(batched.stdout).map((d) => d.partition)).toEqual([2, 2]);
    expect((await stored('fixed')).sort()).toEqual(['2:x', '2:y', '3:1', '3:2', '3:3']);
  });

  it('-p N out of range fails each record with the broker error (exit 1), nothing lands', async () => {
    await createTopic('fixed-range', 2);
    const r = await crater(['produce', 'fixed-range', '-p', '3', '--json'], 'a\n');
    expect(r.code).toBe(1);
    expect(jsonLines(r.stdout)[0].error.code).toBe('ERR_BROKER');
    expect(await stored('fixed-range')).toEqual([]);
  });

  it('-D splits on a custom delimiter (escapes decoded), -Z keeps empty records as empty values', async () => {
    await createTopic('delim');
    const r = await crater(['produce', 'delim', '-D', '\\x1e', '-Z', '--json'], 'one\x1e\x1etwo\nstill two\x1e');
    expect(r.code, r.stderr).toBe(0);
    expect(await stored('delim')).toEqual(['1:one', '1:', '1:two\nstill two']);
    const skipped = await crater(['produce', 'delim', '-D', ';'], 'a;;b;');
    expect(skipped.stderr).toMatch(/produced 2 of 2 records/);
  });

  it('--file-per-record sends each file whole, newlines and all', async () => {
    await createTopic('files');
    const a = path.join(tmp, 'a.txt');
    const b = path.join(tmp, 'b.txt');
    await fs.writeFile(a, 'line 1\nline 2\n');
    await fs.writeFile(b, 'single');
    const r = await crater(['produce', 'files', a, b, '--file-per-record', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).map((d) => d.source)).toEqual([a, b]);
    expect(await stored('files')).toEqual(['1:line 1\nline 2\n', '1:single']);
  });

  it('a missing topic stops at the first record with a `crater topic create` hint, not one line per record', async () => {
    const r = await crater(
      ['produce', 'nowhere', '--json'],
      Array.from({ length: 1001 }, (_, i) => `r${i}`).join('\n'),
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('crater topic create nowhere');
    expect(JSON.parse(r.stdout).error.code).toBe('ERR_BROKER');
  });
});

describe('interrupts', () => {
  it('Ctrl-C stops reading input, prints what was produced and exits 130; what was read has landed', async () => {
    await createTopic('interrupted');
    const child = spawnCrater(['produce', 'interrupted', '--batch-size', '2'], { broker: server.address });
    child.child.stdin.write('one\ntwo\nthree\n');
    // Poll until the first full batch has landed; stdin stays open, so only the interrupt can end the run.
    await eventually(async () => (await stored('interrupted')).length >= 2, {
      timeoutMs: 30_000,
      intervalMs: 50,
      what: 'the first batch landing',
    });
    child.child.kill('SIGINT');
    const { code, stderr } = await child.done;
    expect(code).toBe(130);
    expect(stderr).toMatch(
      /interrupted: produced 3 of 3 records to interrupted .*; the rest of the input was not read/,
    );
    expect(await stored('interrupted')).toEqual(['1:one', '1:two', '1:three']);
  }, 60_000);
});

describe('against a MoonMQ broker (one that does not identify itself as crater)', () => {
  it('-p is refused with a clear error and nothing is sent; plain produce still works', async () => {
    await createTopic('moon', 2);
    server.broker.identity = { name: 'MoonMQ', version: 'v0.01' };
    try {
      const refused = await crater(['produce', 'moon', '-p', '1', '--json'], 'a\nb\n');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/-p\/--partition needs a crater broker; .* is MoonMQ, nothing was sent/);
      expect(JSON.parse(refused.stdout).error.code).toBe('ERR_USAGE');
      expect(await stored('moon')).toEqual([]);
      const plain = await crater(['produce', 'moon', '-Z'], 'a\n\n');
      expect(plain.code).toBe(0);
      expect((await stored('moon')).map((v) => v.slice(2)).sort()).toEqual(['', 'a']);
    } finally {
      server.broker.identity = { name: 'crater', version: '0.0.0' };
    }
  });
});

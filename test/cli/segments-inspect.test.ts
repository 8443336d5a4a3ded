/**
 * `crater segments inspect` through the built binary (`npm test` builds first, so dist/ and the manifest are current).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crater, repoRoot } from '../helpers/cli.js';

const fixture = path.join(repoRoot, 'fixtures', 'data-dir');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-cli-inspect-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A copy of the fixture's orders partition with one payload byte flipped in the first record. */
function corruptCopy(): { partition: string; log: string; before: Buffer } {
  const partition = path.join(dir, 'orders', 'partition-1');
  fs.cpSync(path.join(fixture, 'orders'), path.join(dir, 'orders'), { recursive: true });
  const log = path.join(partition, '00000000000000000000.log');
  const bytes = fs.readFileSync(log);
  bytes[30]! ^= 0xff;
  fs.writeFileSync(log, bytes);
  return { partition, log, before: bytes };
}

describe('crater segments inspect', () => {
  it('--json prints one document: the fixture summary, offsets as numbers, no findings, exit 0', async () => {
    const r = await crater(['segments', 'inspect', fixture, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.summary).toMatchObject({ partitions: 17, records: 10, transactional: 1, control: 1, findings: 0 });
    expect(doc.findings).toEqual([]);
    const orders = doc.partitions.find((p: { topic: string }) => p.topic === 'orders');
    expect(orders.segments.map((s: { base: unknown }) => s.base)).toEqual([0, 180]);
    expect(orders.segments[1].records[0]).toMatchObject({ offset: 180, producerId: 7, epoch: 3, transactional: true });
  });

  it('renders payloads in the chosen encodings', async () => {
    const r = await crater([
      'segments',
      'inspect',
      path.join(fixture, 'orders', 'partition-1'),
      '--json',
      '--level',
      'payload',
      '--key-encoding',
      'hex',
      '--value-encoding',
      'base64',
    ]);
    expect(r.code).toBe(0);
    const recs = JSON.parse(r.stdout).partitions[0].segments.flatMap((s: { records: unknown[] }) => s.records);
    expect(recs[0]).toMatchObject({
      key: Buffer.from('order-1').toString('hex'),
      value: Buffer.from('plain value').toString('base64'),
    });
    expect(recs[1].value).toBe(Buffer.from('gzip value, gzip value').toString('base64'));
    expect(recs[5].headers).toEqual([
      { name: 'trace-id', value: Buffer.from('abc123').toString('base64') },
      { name: 'source', value: Buffer.from('fixture').toString('base64') },
    ]);
  });

  it('--encoding hex renders keys, values and headers as hex; --key-encoding still wins for keys', async () => {
    const records = async (...flags: string[]) => {
      const partition = path.join(fixture, 'orders', 'partition-1');
      const r = await crater(['segments', 'inspect', partition, '--json', '--level', 'payload', ...flags]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).partitions[0].segments.flatMap((s: { records: unknown[] }) => s.records);
    };
    const hex = (text: string) => Buffer.from(text).toString('hex');
    const both = await records('--encoding', 'hex');
    expect(both[0]).toMatchObject({ key: hex('order-1'), value: hex('plain value') });
    expect(both[5].headers).toEqual([
      { name: 'trace-id', value: hex('abc123') },
      { name: 'source', value: hex('fixture') },
    ]);
    const keyUtf8 = await records('--encoding', 'hex', '--key-encoding', 'utf8');
    expect(keyUtf8[0]).toMatchObject({ key: 'order-1', value: hex('plain value') });
    const valueB64 = await records('--encoding', 'hex', '--value-encoding', 'base64');
    expect(valueB64[0]).toMatchObject({ key: hex('order-1'), value: Buffer.from('plain value').toString('base64') });
    const table = await crater([
      'segments',
      'inspect',
      path.join(fixture, 'orders', 'partition-1'),
      '--level',
      'payload',
      '--encoding',
      'hex',
    ]);
    expect(table.stdout).toContain(hex('order-1'));
    expect(table.stdout).toContain(hex('plain value'));
  });

  it('--verify exits 3 on a finding, 0 without --verify, and leaves the damaged file as it was', async () => {
    const { partition, log, before } = corruptCopy();
    const mtime = fs.statSync(log).mtimeMs;
    const verified = await crater(['segments', 'inspect', partition, '--json', '--verify']);
    expect(verified.code).toBe(3);
    const doc = JSON.parse(verified.stdout);
    expect(doc.findings).toEqual([{ kind: 'crc-mismatch', file: log, position: 0, message: 'payload CRC mismatch' }]);
    const plain = await crater(['segments', 'inspect', partition, '--json']);
    expect(plain.code).toBe(0);
    expect(fs.readFileSync(log)).toEqual(before);
    expect(fs.statSync(log).mtimeMs).toBe(mtime);
  });

  it('--jsonl prints one line per record, then findings, then a summary line', async () => {
    const { partition } = corruptCopy();
    const r = await crater(['segments', 'inspect', partition, '--jsonl', '--verify']);
    expect(r.code).toBe(3);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual([
      'record',
      'record',
      'record',
      'record',
      'record',
      'record',
      'finding',
      'summary',
    ]);
    expect(lines[0]).toMatchObject({ topic: 'orders', partition: 1, offset: 0, crcValid: false });
    expect(lines[7]).toMatchObject({ records: 6, findings: 1, findingsByKind: { 'crc-mismatch': 1 } });
  });

  it('prints aligned plain text in a pipe and the summary on stderr', async () => {
    const r = await crater(['segments', 'inspect', path.join(fixture, 'orders'), '--level', 'segment']);
    expect(r.code).toBe(0);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^TOPIC\s+P\s+BACKEND\s+BASE\s+RECORDS/);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(/^orders\s+1\s+segmented\s+180\s+3\s/);
    expect(r.stdout).not.toContain('\u001b[');
    expect(r.stderr).toContain('2 segment(s), 6 record(s)');
    expect(r.stderr).toContain('no findings');
  });

  it('documents read-only access, the JSON number rule and exit code 3 in --help', async () => {
    const r = await crater(['segments', 'inspect', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('read-only');
    expect(r.stdout).toMatch(/safe\s+integers/);
    expect(r.stdout).toMatch(/3\s+CORRUPT/);
  });

  it('rejects an unknown level as a usage error (exit 2)', async () => {
    const r = await crater(['segments', 'inspect', fixture, '--level', 'bytes']);
    expect(r.code).toBe(2);
  });
});

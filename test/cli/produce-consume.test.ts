/**
 * produce, consume and fetch through the built binary against one in-process broker (port 0, temp dir). `npm test`
 * builds first, so dist/ and the manifest are current.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { decodeBytes } from '../../src/cli/render/envelope.js';
import { jsonLines, spawnCrater, useCliBroker } from '../helpers/cli.js';

const server = useCliBroker();

const { crater } = server;

const { createTopic } = server;

const binaryKey = Buffer.from([0x00, 0xff, 0x0a, 0x0d, 0xc3, 0x28]);
const binaryValue = Buffer.from([0xde, 0xad, 0x00, 0xbe, 0xef]);
const envelopes = [
  {
    key: { base64: binaryKey.toString('base64') },
    value: { base64: binaryValue.toString('base64') },
    headers: [
      { name: 'h', value: { hex: '00ff' } },
      { name: 'h', value: { utf8: 'dup' } },
    ],
  },
  { key: null, value: { utf8: '' }, headers: [] },
  { key: { utf8: 'k' }, value: { utf8: 'line\nbreak ✓' }, headers: [{ name: 'empty', value: { utf8: '' } }] },
];

describe('produce → consume round trip', () => {
  it('keeps binary keys, values and headers byte for byte through the JSONL envelope, twice over', async () => {
    await createTopic('rt', 2);
    await createTopic('rt-copy', 2);
    const input = envelopes.map((e) => JSON.stringify(e)).join('\n') + '\n';
    const produced = await crater(['produce', 'rt', '--input', 'jsonl', '--json'], input);
    expect(produced.code).toBe(0);
    const reports = jsonLines(produced.stdout);
    expect(reports.map((r) => [r.index, r.line, r.topic, typeof r.offset, r.error])).toEqual([
      [0, 1, 'rt', 'number', undefined],
      [1, 2, 'rt', 'number', undefined],
      [2, 3, 'rt', 'number', undefined],
    ]);
    expect(produced.stderr).toMatch(/produced 3 of 3 records to rt/);

    const consumed = await crater(['consume', 'rt', '--from', 'beginning', '-e', '--json']);
    expect(consumed.code).toBe(0);
    const got = jsonLines(consumed.stdout);
    // Encodings may differ (hex in, base64 out); the bytes may not.
    const bytes = (f: unknown) => (f === null ? null : decodeBytes(f, 'test')!.toString('hex'));
    const canonical = (e: { key: unknown; value: unknown; headers: Array<{ name: string; value: unknown }> }) =>
      JSON.stringify({
        key: bytes(e.key),
        value: bytes(e.value),
        headers: e.headers.map((h) => [h.name, bytes(h.value)]),
      });
    expect(got.map(canonical).sort()).toEqual(envelopes.map(canonical).sort());
    expect(got.find((e) => e.key === null).value).toEqual({ utf8: '' });
    for (const e of got) {
      const report = reports.find((r) => r.partition === e.partition && r.offset === e.offset);
      expect(report).toBeDefined();
    }

    // The consumer's output is producer input as it stands.
    const copied = await crater(['produce', 'rt-copy', '--input', 'jsonl', '--batch', '10'], consumed.stdout);
    expect(copied.code).toBe(0);
    const client = await connect({ broker: server.address });
    try {
      const { records } = await client.fetch('rt-copy', 'verify', { maxRecords: 10, headers: true });
      const original = records.find((r) => r.value.equals(binaryValue));
      expect(original?.key.equals(binaryKey)).toBe(true);
      expect(original?.headers?.map((h) => [h.name, h.value.toString('hex')])).toEqual([
        ['h', '00ff'],
        ['h', Buffer.from('dup').toString('hex')],
      ]);
      expect(records.some((r) => r.value.length === 0 && r.key.length === 0)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('line input: -K splits key and value, -H headers keep order and duplicates, --format prints them', async () => {
    await createTopic('lines', 1);
    const produced = await crater(
      ['produce', 'lines', '-K', ':', '-H', 'src=cli', '-H', 'src=again'],
      'a:1\n\nnokey\nb:x:y\n',
    );
    expect(produced.code).toBe(0);
    expect(produced.stdout).toBe('');
    const consumed = await crater(['consume', 'lines', '--from', 'beginning', '-e', '-f', '%k=%s|%h|%K\\n']);
    expect(consumed.stdout).toBe('a=1|src=cli,src=again|1\n=nokey|src=cli,src=again|0\nb=x:y|src=cli,src=again|1\n');
  });

  it('reports exactly which records failed (malformed JSONL lines), sends the rest and exits 1', async () => {
    await createTopic('partial', 1);
    const input = '{"value":"ok1"}\n{not json\n{"value":{"hex":"zz"}}\n{"value":"ok2"}\n';
    const r = await crater(['produce', 'partial', '--input', 'jsonl', '--json'], input);
    expect(r.code).toBe(1);
    const reports = jsonLines(r.stdout);
    expect(reports.map((d) => [d.line, d.error?.code ?? 'ok'])).toEqual([
      [1, 'ok'],
      [2, 'ERR_USAGE'],
      [3, 'ERR_USAGE'],
      [4, 'ok'],
    ]);
    expect(r.stderr).toMatch(/2 failed.*stdin:2, stdin:3/);
    const consumed = await crater(['consume', 'partial', '--from', 'beginning', '-e']);
    expect(consumed.stdout).toBe('ok1\nok2\n');
  });

  it('splits a --batch larger than the frame limit into several PRODUCE_BATCH frames instead of failing', async () => {
    await createTopic('big', 1);
    // 20 values of 60 KiB: 1.2 MB in all, over the broker's 1 MiB frame limit.
    const lines = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(60 * 1024, 'v')).join('\n');
    // A long linger, so that only the frame limit cuts batches however stdin's chunks arrive.
    const r = await crater(['produce', 'big', '--batch', '100', '--linger', '10s', '--json'], lines);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).filter((d) => d.error === undefined)).toHaveLength(20);
    expect(r.stderr).toMatch(/produced 20 of 20 records to big in 2 requests/);
  });

  it('fails only the record over the 64 KiB value cap, naming its line; the others land (exit 1)', async () => {
    await createTopic('capped', 1);
    const r = await crater(
      ['produce', 'capped', '--batch', '10', '--json'],
      `small\n${'x'.repeat(70_000)}\nalso small\n`,
    );
    expect(r.code).toBe(1);
    expect(jsonLines(r.stdout).map((d) => [d.line, d.error?.code ?? 'ok'])).toEqual([
      [1, 'ok'],
      [2, 'ERR_USAGE'],
      [3, 'ok'],
    ]);
    expect(r.stderr).toMatch(/record 1 \(stdin:2\).*value is 70000 bytes/);
  });
});

describe('consume', () => {
  it('exits 4 (INCOMPLETE) when -e stops it before --max-records, after printing what there was', async () => {
    await createTopic('few', 2);
    await crater(['produce', 'few', '-K', ':'], 'a:1\nb:2\nc:3\n');
    const r = await crater(['consume', 'few', '--group', 'few-g', '-e', '-n', '10', '--json']);
    expect(r.code).toBe(4);
    expect(jsonLines(r.stdout)).toHaveLength(3);
    expect(r.stderr).toMatch(/incomplete: 3 of 10/);
    // The group committed past them: a second run finds nothing.
    const again = await crater(['consume', 'few', '--group', 'few-g', '-e', '--json']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
  });

  it('exits 4 when the idle timeout stops it first', async () => {
    await createTopic('idle', 1);
    const r = await crater(['consume', 'idle', '-n', '1', '--idle-timeout', '300ms']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/idle timeout/);
  });

  it('hands records past --max-records back to the group, and --from beginning with --group rewinds it', async () => {
    await createTopic('handback', 3);
    await crater(['produce', 'handback', '-K', ':'], 'a:1\nb:2\nc:3\nd:4\ne:5\nf:6\n');
    const first = await crater(['consume', 'handback', '--group', 'hb', '-n', '1', '--json']);
    expect(first.code).toBe(0);
    expect(jsonLines(first.stdout)).toHaveLength(1);
    const rest = await crater(['consume', 'handback', '--group', 'hb', '-e', '--json']);
    expect(jsonLines(rest.stdout)).toHaveLength(5);
    const rewound = await crater(['consume', 'handback', '--group', 'hb', '--from', 'beginning', '-e', '--json']);
    expect(rewound.code).toBe(0);
    expect(jsonLines(rewound.stdout)).toHaveLength(6);
  });

  it('--from beginning without --group uses a throwaway group and deletes it', async () => {
    const r = await crater(['consume', 'handback', '--from', 'beginning', '-e', '--json']);
    expect(jsonLines(r.stdout)).toHaveLength(6);
    const group = /as group (crater-cli-[0-9a-f]{8})/.exec(r.stderr)?.[1];
    expect(group).toBeDefined();
    const client = await connect({ broker: server.address });
    try {
      expect((await client.listGroups()).map((g) => g.groupId)).not.toContain(group);
    } finally {
      await client.close();
    }
  });

  it('exits quietly (0, nothing on stderr) when the reader of its output goes away (| head -1)', async () => {
    await createTopic('many', 1);
    const lines = Array.from({ length: 3000 }, (_, i) => `value-${i}-${'x'.repeat(100)}`).join('\n');
    expect((await crater(['produce', 'many', '--batch', '1000'], lines)).code).toBe(0);
    const run = spawnCrater(['consume', 'many', '--from', 'beginning', '--json'], { broker: server.address });
    const child = run.child;
    child.stdin.end();
    const firstLine = await new Promise<string>((resolve) => {
      let buf = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        buf += d;
        const nl = buf.indexOf('\n');
        if (nl !== -1) {
          child.stdout.destroy();
          resolve(buf.slice(0, nl));
        }
      });
    });
    const { code, stderr } = await run.done;
    expect(JSON.parse(firstLine).value).toEqual({ utf8: `value-0-${'x'.repeat(100)}` });
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  it('--follow receives pushed records (no headers in push frames) and stops at --max-records', async () => {
    const r = await crater(['consume', 'few', '--group', 'follow-g', '--follow', '-n', '2', '--json']);
    expect(r.code).toBe(0);
    const got = jsonLines(r.stdout);
    expect(got).toHaveLength(2);
    expect(got.every((e) => e.headers === null)).toBe(true);
  });
});

describe('fetch', () => {
  it('--legacy reports the legacy shape and N+1 frames; the default is one batch and 2 frames', async () => {
    await createTopic('shapes', 1);
    await crater(['produce', 'shapes'], 'a\nb\nc\n');
    const legacy = await crater(['fetch', 'shapes', '--group', 'fl', '--legacy', '--json']);
    expect(legacy.code).toBe(0);
    const doc = JSON.parse(legacy.stdout);
    expect([doc.shape, doc.frames, doc.records.length]).toEqual(['legacy', 4, 3]);
    expect(doc.records[0].headers).toBeNull();
    const batched = await crater(['fetch', 'shapes', '--group', 'fb', '--raw', '--json']);
    const b = JSON.parse(batched.stdout);
    expect([b.shape, b.frames, b.records.map((r: { value: { utf8: string } }) => r.value.utf8)]).toEqual([
      'batch',
      2,
      ['a', 'b', 'c'],
    ]);
    expect(b.rawFrames.map((f: { name: string }) => f.name)).toEqual(['RECORD_BATCH', 'OK']);
    expect(b.rawFrames[0].payload).toMatch(/^[0-9a-f]+$/);
    const human = await crater(['fetch', 'shapes', '--group', 'fh', '--legacy']);
    expect(human.stderr).toMatch(/reply shape: legacy, 4 frames, 3 records/);
  });
});

describe('connection failures', () => {
  it('a refused connection is one line naming the address, exit 1', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const r = await crater(['consume', 'rt', '-e'], undefined, { CRATER_BROKER: `127.0.0.1:${port}` });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`127.0.0.1:${port}`);
    expect(r.stderr).toMatch(/ECONNREFUSED/);
  });
});

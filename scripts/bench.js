#!/usr/bin/env node
// `npm run bench`: runs batch-vs-single and throughput with their defaults (plus throughput with 4 batches in
// flight, the second produce target) against the embedded broker, and writes bench-results/latest.json (the raw
// reports) and bench-results/latest.md (a table against the targets). Then the growth curves (`bench scale
// --startup`: records, value size, partitions, connections, and start-up on 10 MB / 100 MB / 1 GB data dirs) to
// bench-results/scale.json and scale.md (charts and tables); `npm run bench -- --no-scale` skips them. The
// measuring lives in src/bench/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBatchVsSingle, runScale, runThroughput } from '../dist/bench/index.js';
import { scaleMarkdown } from '../dist/cli/render/bench-scale.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'bench-results');
const step = (text) => process.stderr.write(`bench: ${text}\n`);

const commit = (() => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
})();

step('batch-vs-single (400 records, 4 partitions, acks=leader, 100-byte values, 5 repeats)');
const batchVsSingle = await runBatchVsSingle();
step('throughput (100,000 records, batches of 1,000, 1 in flight)');
const throughput = await runThroughput();
step('throughput (the same, 4 in flight)');
const throughput4 = await runThroughput({ inFlight: 4 });

const machine = {
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  cpus: os.cpus().length,
  cpu: os.cpus()[0]?.model ?? null,
};
const results = {
  date: new Date().toISOString(),
  commit,
  machine,
  batchVsSingle,
  throughput,
  throughputInFlight4: throughput4,
};

const n = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const ms = (x) => `${n(x, 2)} ms`;
const mib = (b) => `${n(b / 1048576, 1)} MiB`;
const check = (ok) => (ok ? 'yes' : '**no**');
const b = batchVsSingle;
const rows = [
  [
    'batch-vs-single: batch median wall (400 records)',
    `${ms(b.batch.wallMs.median)} (${ms(b.batch.wallMs.min)} – ${ms(b.batch.wallMs.max)})`,
    '≤ 5 ms',
    check(b.batch.wallMs.median <= 5),
  ],
  [
    'batch-vs-single: single median wall',
    `${ms(b.single.wallMs.median)} (${ms(b.single.wallMs.min)} – ${ms(b.single.wallMs.max)})`,
    '',
    '',
  ],
  ['batch-vs-single: speedup', `${n(b.speedup, 1)}x`, '≥ 50x', check(b.speedup >= 50)],
  ['batch-vs-single: fsyncs single / batch', `${b.single.fsyncs?.[0] ?? '–'} / ${b.batch.fsyncs?.[0] ?? '–'}`, '', ''],
  [
    'batch-vs-single: single latency p50 / p99',
    `${ms(b.single.latencyMs.p50)} / ${ms(b.single.latencyMs.p99)}`,
    '',
    '',
  ],
  [
    'produce 100k, batches of 1,000, 1 in flight',
    `${n(throughput.produce.recordsPerSec)} rec/s, ${n(throughput.produce.mbPerSec, 1)} MB/s`,
    '≥ 300,000 rec/s',
    check(throughput.produce.recordsPerSec >= 300_000),
  ],
  [
    'produce 100k, batches of 1,000, 4 in flight',
    `${n(throughput4.produce.recordsPerSec)} rec/s, ${n(throughput4.produce.mbPerSec, 1)} MB/s`,
    '≥ 600,000 rec/s',
    check(throughput4.produce.recordsPerSec >= 600_000),
  ],
  [
    'produce latency p50 / p99 / p99.9 / max (1 in flight)',
    ['p50', 'p99', 'p999', 'max'].map((k) => ms(throughput.produce.latencyMs[k])).join(' / '),
    '',
    '',
  ],
  [
    'fetch 100k, 1,000 per FETCH',
    `${n(throughput.fetch.recordsPerSec)} rec/s, ${n(throughput.fetch.mbPerSec, 1)} MB/s`,
    '≥ 1,000,000 rec/s',
    check(throughput.fetch.recordsPerSec >= 1_000_000),
  ],
  [
    'broker peak RSS during produce (1 / 4 in flight)',
    `${mib(throughput.produce.brokerPeakRssBytes)} / ${mib(throughput4.produce.brokerPeakRssBytes)}`,
    '≤ 200 MB',
    check(Math.max(throughput.produce.brokerPeakRssBytes, throughput4.produce.brokerPeakRssBytes) <= 200e6),
  ],
];
const md = [
  `# crater bench results`,
  '',
  `${results.date}, commit ${commit ?? 'unknown'}, Node ${machine.node}, ${machine.cpus} × ${machine.cpu ?? 'cpu'}, ${machine.platform}.`,
  'Embedded crater broker in a child process, loopback TCP, acks=leader, 4 partitions, 100-byte values, 8-byte keys.',
  '',
  '| measure | result | target | met |',
  '| --- | --- | --- | --- |',
  ...rows.map((r) => `| ${r.join(' | ')} |`),
  '',
  'Raw reports: latest.json. Reproduce: `npm run bench`, or `npx crater bench batch-vs-single` and `npx crater bench throughput [--in-flight 4]`.',
  '',
].join('\n');

fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
fs.writeFileSync(path.join(outDir, 'latest.md'), md);
process.stdout.write(md);

if (!process.argv.includes('--no-scale')) {
  const load = () =>
    os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(', ');
  const loadBefore = load();
  step('growth curves (bench scale --startup)');
  const scale = await runScale({ startup: {}, onProgress: (s) => step(`scale: ${s}`) });
  const loadAfter = load();
  const scaleResults = {
    date: new Date().toISOString(),
    commit,
    machine,
    loadAverage: { before: loadBefore, after: loadAfter },
    scale,
  };
  const scaleMd = [
    '# crater growth curves',
    '',
    `${scaleResults.date}, commit ${commit ?? 'unknown'}, Node ${machine.node}, ${machine.cpus} × ${machine.cpu ?? 'cpu'}, load average ${loadBefore} before, ${loadAfter} after.`,
    'Each point is `bench throughput` on a fresh embedded broker with one parameter moved from its defaults (4 partitions, 100-byte values, batches of 1,000, 1 connection, 1 in flight); the connections curve produces one record at a time per connection. Start-up: a one-partition topic of 1,000-byte values, started after a clean shutdown, then after a SIGKILL that followed about 1 MB of acknowledged records.',
    '',
    scaleMarkdown(scale),
    'Raw report: scale.json. Reproduce: `npm run bench`, or `npx crater bench scale --startup [--json]`.',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(outDir, 'scale.json'), `${JSON.stringify(scaleResults, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'scale.md'), scaleMd);
  process.stdout.write(scaleMd);
}

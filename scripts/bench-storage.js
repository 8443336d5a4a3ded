#!/usr/bin/env node
// Prints the storage benchmark's report (the measuring lives in src/bench/storage-bench.ts). Run after the build:
// `npm run bench:storage`. Pass --json for the raw report.
import { runStorageBench } from '../dist/bench/storage-bench.js';

const report = await runStorageBench();
if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const n = (x, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const row = (name, f) =>
    `${name.padEnd(22)} ${n(f.recordsPerSec).padStart(12)} rec/s ${n(f.mbPerSec, 1).padStart(9)} MB/s ` +
    `${n(f.seconds * 1000, 1).padStart(9)} ms ${String(f.fsyncs).padStart(6)} fsyncs`;
  console.log(
    `${n(report.records)} records of ${report.recordBytes} bytes on disk (${report.valueBytes}-byte values), ` +
      `${report.batchSize} per append, one fsync per batch; median of ${report.repeats} alternating runs`,
  );
  console.log(row('raw write + fsync', report.rawWrite));
  console.log(row('segmented append+sync', report.append));
  console.log(row('sequential read', report.read));
  console.log(`append / raw write: ${n(report.appendVsRaw * 100, 0)}%`);
  console.log('');
  console.log('group commit (append 1 record + sync per round):');
  for (const g of report.groupCommit) {
    console.log(
      `  ${g.policy.padEnd(7)} ${String(g.producers).padStart(2)} producer(s) ${n(g.syncsPerSec).padStart(9)} syncs/s ` +
        `${String(g.fsyncs).padStart(6)} fsyncs for ${g.syncs} syncs`,
    );
  }
}

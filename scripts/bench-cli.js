#!/usr/bin/env node
// `npm run bench:cli`: the end-to-end CLI figures of issue 18, each through real processes.
//
//   produce   `crater produce T FILE --batch 1000` of --records lines (100-byte values) into a 4-partition topic
//   consume   `crater consume T -e --json --from beginning > /dev/null` of the same records
//   version   `crater --version`, median wall of --version-runs spawns
//   idle      the broker's RSS with --idle-connections authenticated, idle connections (read from /proc)
//
// The broker is `crater broker start --port 0` in its own process (temp data dir, authentication on); produce and
// consume alternate --repeat times, each against a fresh topic, and are timed from spawn to exit (start-up
// included, as a user sees it); each run also reports the CLI's CPU time and, for produce, the broker's over the
// same run (from /proc). --only produce,consume,version,idle picks parts; --cpu-prof DIR runs the
// produce/consume processes under `node --cpu-prof`; --json prints one JSON document on stdout.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { connect } from '../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runJs = path.join(root, 'bin', 'run.js');
const { values: opts } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '1000' },
    'value-size': { type: 'string', default: '100' },
    repeat: { type: 'string', default: '3' },
    'version-runs': { type: 'string', default: '20' },
    'idle-connections': { type: 'string', default: '1000' },
    // The broker's default (600,000) makes 1,000 AUTHs take minutes of CPU; what is measured is the state after it.
    'pbkdf2-iterations': { type: 'string', default: '1000' },
    only: { type: 'string', default: 'produce,consume,version,idle' },
    'cpu-prof': { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const records = Number(opts.records);
const repeat = Number(opts.repeat);
const parts = new Set(opts.only.split(','));
const step = (text) => process.stderr.write(`bench-cli: ${text}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const USER = 'bench';
const PASSWORD = 'bench-secret';

function crater(args, input) {
  const r = spawnSync(process.execPath, [runJs, ...args], { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`crater ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** `crater broker start --port 0` with authentication and room for the idle connections; resolves at its address. */
async function startBroker(dataDir) {
  const hash = crater(['broker', 'hash-password', '--iterations', opts['pbkdf2-iterations']], PASSWORD).trim();
  const limit = String(Number(opts['idle-connections']) + 64);
  const args = ['broker', 'start', '--port', '0', '--data-dir', dataDir, '--username', USER, '--password-hash', hash];
  args.push('--max-connections', limit, '--max-connections-per-ip', limit, '--exit-on-stdin-close');
  const child = spawn(process.execPath, [runJs, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  let text = '';
  for await (const chunk of child.stdout) {
    text += chunk;
    const m = /CRATER_BROKER=(\S+)/.exec(text);
    if (m) return { child, address: m[1] };
  }
  throw new Error(`the broker exited before it listened (${child.exitCode})`);
}

async function stopBroker(broker) {
  broker.child.stdin.end();
  if (broker.child.exitCode === null) await once(broker.child, 'exit');
}

function rssBytes(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

/** The process's CPU time so far (user + system, ms), from /proc (Linux); null where there is no /proc. */
function procCpuMs(pid) {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in clock ticks.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** A preload that writes the process's CPU time (user + system, ms) to $CRATER_BENCH_CPU_FILE as it exits. */
function cpuPreload(dir) {
  const file = path.join(dir, 'cpu-report.cjs');
  const text = `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(process.env.CRATER_BENCH_CPU_FILE, String((u.user + u.system) / 1000)); });`;
  fs.writeFileSync(file, text);
  return file;
}

/**
 * One timed CLI process, from spawn to exit; stdout to /dev/null, stderr kept for the count it reports. Also reads
 * the CPU time the process used (less noisy than wall time on a busy machine).
 */
async function timed(dir, args, label) {
  const prof = opts['cpu-prof']
    ? ['--cpu-prof', `--cpu-prof-dir=${opts['cpu-prof']}`, `--cpu-prof-name=${label}.cpuprofile`]
    : [];
  const cpuFile = path.join(dir, `${label}.cpu`);
  const devNull = fs.openSync('/dev/null', 'w');
  const env = { ...process.env, CRATER_USERNAME: USER, CRATER_PASSWORD: PASSWORD, CRATER_BENCH_CPU_FILE: cpuFile };
  const started = performance.now();
  const node = [...prof, '--require', cpuPreload(dir)];
  const child = spawn(process.execPath, [...node, runJs, ...args], { stdio: ['ignore', devNull, 'pipe'], env });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const [code] = await once(child, 'exit');
  const ms = performance.now() - started;
  fs.closeSync(devNull);
  if (code !== 0) throw new Error(`crater ${args.join(' ')} exited ${code}: ${stderr}`);
  return { ms, cpuMs: Number(fs.readFileSync(cpuFile, 'utf8')), stderr };
}

function writeInput(file) {
  const value = 'x'.repeat(Number(opts['value-size']) - 8);
  const fd = fs.openSync(file, 'w');
  const chunk = 10_000;
  for (let i = 0; i < records; i += chunk) {
    let text = '';
    for (let j = i; j < Math.min(records, i + chunk); j++) text += `${String(j).padStart(8, '0')}${value}\n`;
    fs.writeSync(fd, text);
  }
  fs.closeSync(fd);
}

async function produceConsume(broker, dir, result) {
  const file = path.join(dir, 'input.txt');
  writeInput(file);
  const b = ['-b', broker.address];
  result.produce = { command: `crater produce T FILE --batch ${opts.batch}`, runs: [] };
  result.consume = { command: 'crater consume T -e --json --from beginning > /dev/null', runs: [] };
  for (let i = 0; i < repeat; i++) {
    const topic = `cli-bench-${i}`;
    crater(['topic', 'create', topic, '--partitions', '4', ...b, '--username', USER, '--password', PASSWORD]);
    if (parts.has('produce') || parts.has('consume')) {
      const brokerBefore = procCpuMs(broker.child.pid);
      const p = await timed(dir, ['produce', topic, file, '--batch', opts.batch, ...b], `produce-${i}`);
      const brokerAfter = procCpuMs(broker.child.pid);
      // The broker's CPU over the same run: which side bounds the figure (both share the machine's cores).
      const brokerCpuMs = brokerBefore === null || brokerAfter === null ? null : brokerAfter - brokerBefore;
      result.produce.runs.push({ ms: p.ms, cpuMs: p.cpuMs, brokerCpuMs, recordsPerSec: (records / p.ms) * 1000 });
      step(`produce run ${i + 1}: ${Math.round((records / p.ms) * 1000).toLocaleString('en-US')} records/s`);
    }
    if (parts.has('consume')) {
      const c = await timed(dir, ['consume', topic, '-e', '--json', '--from', 'beginning', ...b], `consume-${i}`);
      const got = Number(/consumed (\d+)/.exec(c.stderr)?.[1] ?? -1);
      if (got !== records) throw new Error(`consume read ${got} of ${records} records: ${c.stderr}`);
      result.consume.runs.push({ ms: c.ms, cpuMs: c.cpuMs, recordsPerSec: (records / c.ms) * 1000 });
      step(`consume run ${i + 1}: ${Math.round((records / c.ms) * 1000).toLocaleString('en-US')} records/s`);
    }
  }
  for (const k of ['produce', 'consume']) {
    if (result[k].runs.length === 0) delete result[k];
    else {
      result[k].medianRecordsPerSec = median(result[k].runs.map((r) => r.recordsPerSec));
      result[k].medianCpuMs = median(result[k].runs.map((r) => r.cpuMs));
      if (k === 'produce' && result[k].runs.every((r) => r.brokerCpuMs !== null))
        result[k].medianBrokerCpuMs = median(result[k].runs.map((r) => r.brokerCpuMs));
    }
  }
}

function versionStartup() {
  const runs = [];
  for (let i = 0; i < Number(opts['version-runs']); i++) {
    const started = performance.now();
    const r = spawnSync(process.execPath, [runJs, '--version'], { encoding: 'utf8' });
    runs.push(performance.now() - started);
    if (r.status !== 0) throw new Error(`crater --version exited ${r.status}`);
  }
  const bare = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    bare.push(performance.now() - started);
  }
  return { command: 'crater --version', medianMs: median(runs), runsMs: runs, bareNodeMedianMs: median(bare) };
}

async function idleConnections(broker) {
  const n = Number(opts['idle-connections']);
  const before = rssBytes(broker.child.pid);
  const clients = [];
  for (let i = 0; i < n; i += 50) {
    const batch = Array.from({ length: Math.min(50, n - i) }, () =>
      connect({ broker: broker.address, username: USER, password: PASSWORD }),
    );
    clients.push(...(await Promise.all(batch)));
  }
  // Idle: nothing more is sent; the broker has answered every AUTH, so what it holds now is per connection.
  const after = rssBytes(broker.child.pid);
  await Promise.all(clients.map((c) => c.close()));
  return {
    connections: n,
    brokerRssBytesBefore: before,
    brokerRssBytes: after,
    perConnectionBytes: (after - before) / n,
  };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-bench-cli-'));
const result = { date: new Date().toISOString(), records, loadAverage: os.loadavg(), node: process.version };
try {
  if (parts.has('version')) {
    step('crater --version');
    result.version = versionStartup();
  }
  if (parts.has('idle') || parts.has('produce') || parts.has('consume')) {
    const broker = await startBroker(path.join(dir, 'data'));
    try {
      if (parts.has('idle')) {
        step(`${opts['idle-connections']} idle authenticated connections`);
        result.idle = await idleConnections(broker);
      }
      if (parts.has('produce') || parts.has('consume')) await produceConsume(broker, dir, result);
    } finally {
      await stopBroker(broker);
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
result.loadAverageAfter = os.loadavg();

if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  const n = (x) => Math.round(x).toLocaleString('en-US');
  for (const k of ['produce', 'consume']) {
    const r = result[k];
    const broker = r?.medianBrokerCpuMs === undefined ? '' : `, broker CPU ${n(r.medianBrokerCpuMs)} ms`;
    if (r)
      process.stdout.write(
        `${k}: ${n(r.medianRecordsPerSec)} records/s, CLI CPU ${n(r.medianCpuMs)} ms${broker} (medians)\n`,
      );
  }
  if (result.version)
    process.stdout.write(
      `--version: ${result.version.medianMs.toFixed(0)} ms (median; bare node ${result.version.bareNodeMedianMs.toFixed(0)} ms)\n`,
    );
  if (result.idle)
    process.stdout.write(
      `idle: ${(result.idle.brokerRssBytes / 1048576).toFixed(1)} MiB broker RSS with ${result.idle.connections} connections\n`,
    );
}

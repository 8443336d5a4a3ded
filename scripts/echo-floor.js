#!/usr/bin/env node
// The machine's ceiling for many connections each awaiting one small request at a time, with no broker work at
// all: N loopback TCP connections to a bare echo server in its own process (dist/bench/echo-child.js, the peer of
// bench batch-vs-single's round-trip floor), each sending a request-sized message and waiting for it to come back,
// for a few seconds. `crater bench throughput --connections N --batch-size 1` cannot beat its round trips/s, since
// every record is such a round trip plus the broker's work and an fsync shared by group commit. Prints round trips/s
// and the CPU time per round trip of this (client) process. Needs a build.
// Usage: node scripts/echo-floor.js [--connections 256] [--seconds 3] [--bytes 140] [--json]
import { fork } from 'node:child_process';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '256' },
    seconds: { type: 'string', default: '3' },
    bytes: { type: 'string', default: '140' },
    json: { type: 'boolean', default: false },
  },
});
const connections = Number(values.connections);
const bytes = Number(values.bytes);
const ms = Number(values.seconds) * 1000;
if (![connections, bytes].every((v) => Number.isInteger(v) && v > 0) || !(ms > 0 && Number.isFinite(ms))) {
  console.error('--connections and --bytes must be positive integers, --seconds a positive number');
  process.exit(2);
}

const child = fork(new URL('../dist/bench/echo-child.js', import.meta.url), [], {
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});
const port = await new Promise((resolve, reject) => {
  child.once('message', (m) => resolve(m.port));
  child.once('exit', (code) => reject(new Error(`the echo child exited (${code}) before listening`)));
});
const sockets = await Promise.all(
  Array.from(
    { length: connections },
    () =>
      new Promise((resolve, reject) => {
        const s = net.connect(port, '127.0.0.1', () => resolve(s)).once('error', reject);
        s.setNoDelay(true);
      }),
  ),
);

const message = Buffer.alloc(bytes, 0x5a);
let roundTrips = 0;
let stopping = false;
const started = performance.now();
const cpu = process.cpuUsage();
const loops = sockets.map(
  (s) =>
    new Promise((resolve) => {
      let got = 0;
      s.on('data', (chunk) => {
        got += chunk.length;
        if (got < bytes) return;
        got -= bytes;
        roundTrips++;
        if (stopping) resolve();
        else s.write(message);
      });
      s.write(message);
    }),
);
setTimeout(() => (stopping = true), ms);
await Promise.all(loops);
const wallMs = performance.now() - started;
const used = process.cpuUsage(cpu);
for (const s of sockets) s.destroy();
child.disconnect();

const report = {
  connections,
  bytes,
  wallMs,
  roundTrips,
  roundTripsPerSec: (roundTrips * 1000) / wallMs,
  clientCpuUsPerRoundTrip: (used.user + used.system) / roundTrips,
};
if (values.json) console.log(JSON.stringify(report, null, 2));
else
  console.log(
    `${connections} connections, ${bytes} B each way: ${Math.round(report.roundTripsPerSec)} round trips/s, ` +
      `${report.clientCpuUsPerRoundTrip.toFixed(1)} µs of client CPU per round trip`,
  );

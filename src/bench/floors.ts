/**
 * The two floors a record produced one at a time cannot go below, measured beside the modes they bound:
 *
 *   rtt    one loopback TCP round trip: a 1-byte message to an echo server on 127.0.0.1 and back, awaited, Nagle off
 *          (the server runs in this process, so it also counts one event-loop wake on each side, as a broker's would);
 *   fsync  one fsync of a file just appended to (a record-sized write), in the directory the broker stores into
 *          (its data dir when embedded), so it is the broker's file system's flush.
 *
 * `perRecordMs` is rtt p50 + fsync p50: what an awaited, durable, one-record produce costs at the least.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Percentiles, percentiles } from './stats.js';

export interface Floors {
  rttMs: Percentiles;
  fsyncMs: Percentiles;
  /** rttMs.p50 + fsyncMs.p50. */
  perRecordMs: number;
}

export async function measureFloors(dir: string | undefined, samples: number, recordBytes: number): Promise<Floors> {
  const rttMs = await measureRtt(samples);
  const fsyncMs = await measureFsync(dir ?? os.tmpdir(), samples, recordBytes);
  return { rttMs, fsyncMs, perRecordMs: rttMs.p50 + fsyncMs.p50 };
}

async function measureRtt(samples: number): Promise<Percentiles> {
  const server = net.createServer((s) => {
    s.setNoDelay(true);
    s.on('data', (d) => s.write(d));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  try {
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const one = Buffer.from([1]);
    const roundTrip = (): Promise<void> =>
      new Promise((resolve) => {
        socket.once('data', () => resolve());
        socket.write(one);
      });
    for (let i = 0; i < Math.min(50, samples); i++) await roundTrip();
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      await roundTrip();
      times.push(performance.now() - t0);
    }
    return percentiles(times);
  } finally {
    socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function measureFsync(dir: string, samples: number, recordBytes: number): Promise<Percentiles> {
  const file = path.join(await fs.mkdtemp(path.join(dir, 'fsync-floor-')), 'probe');
  const fh = await fs.open(file, 'w');
  try {
    const buf = Buffer.alloc(Math.max(1, recordBytes), 0x5a);
    let pos = 0;
    const times: number[] = [];
    for (let i = 0; i < samples + 10; i++) {
      await fh.write(buf, 0, buf.length, pos);
      pos += buf.length;
      const t0 = performance.now();
      await fh.sync();
      if (i >= 10) times.push(performance.now() - t0);
    }
    return percentiles(times);
  } finally {
    await fh.close();
    await fs.rm(path.dirname(file), { recursive: true, force: true });
  }
}

/**
 * The floors of `bench batch-vs-single` (src/bench/floors.ts): the round trip's echo peer is a process of its own
 * (dist/bench/echo-child.js: `npm test` builds first), as the bench broker is. No timing assertions.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { FloorSampler, startEchoPeer } from '../../src/bench/floors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('bench floors', () => {
  it('the round-trip peer echoes from another process and is gone once stopped', async () => {
    const peer = await startEchoPeer();
    expect(peer.pid).not.toBe(process.pid);
    expect(alive(peer.pid)).toBe(true);
    const socket = net.connect(peer.port, '127.0.0.1');
    try {
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      const echoed = new Promise<Buffer>((resolve) => socket.once('data', resolve));
      socket.write(Buffer.from('ping'));
      expect((await echoed).toString()).toBe('ping');
    } finally {
      socket.destroy();
      await peer.stop();
    }
    expect(alive(peer.pid)).toBe(false);
  });

  it('measures every sample of both floors, their sum per record, and leaves no peer behind', async () => {
    const sampler = await FloorSampler.open(undefined, { samples: 20, recordBytes: 137 });
    let floors;
    try {
      await sampler.sampleRound(0, 1);
      floors = sampler.result();
    } finally {
      await sampler.close();
    }
    expect(floors.rttMs.count).toBe(20);
    expect(floors.fsyncMs.count).toBe(20);
    expect(floors.perRecordMs).toBe(floors.rttMs.p50 + floors.fsyncMs.p50);
    // Means of positive samples: above zero, below the sum of the maxima.
    expect(floors.perRecordMeanMs).toBeGreaterThan(0);
    expect(floors.perRecordMeanMs).toBeLessThanOrEqual(floors.rttMs.max + floors.fsyncMs.max);
    expect(floors.batch).toBeUndefined();
  });

  it('a sampler spread over rounds takes exactly the planned samples in all, the batch floor a quarter as many', async () => {
    const sampler = await FloorSampler.open(undefined, {
      samples: 10,
      recordBytes: 137,
      batch: { files: 2, bytesPerFile: 300 },
    });
    try {
      for (let k = 0; k < 3; k++) await sampler.sampleRound(k, 3);
      const floors = sampler.result();
      expect(floors.rttMs.count).toBe(10);
      expect(floors.fsyncMs.count).toBe(10);
      expect(floors.batch).toMatchObject({ files: 2, bytesPerFile: 300 });
      expect(floors.batch!.fsyncMs.count).toBe(3);
      expect(floors.batch!.ms).toBe(floors.rttMs.p50 + floors.batch!.fsyncMs.p50);
    } finally {
      await sampler.close();
    }
  });
});

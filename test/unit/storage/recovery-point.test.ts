import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordToStore } from '../../../src/storage/partition-log.js';
import { encodeRecord } from '../../../src/storage/record.js';
import { RECOVERY_POINT_FILE, readRecoveryPoint } from '../../../src/storage/recovery-point.js';
import { recoveryScannedBytes } from '../../../src/storage/recovery.js';
import { stem, useTempPartition } from '../../helpers/temp-partition.js';

const T0 = 1_700_000_000_000n;
const part = useTempPartition('crater-rpoint-');

function recs(n: number, size = 200, fill = 1): RecordToStore[] {
  return Array.from({ length: n }, (_, i) => ({
    attrs: 0,
    timestamp: T0 + BigInt(i),
    key: Buffer.from(`k${i}`),
    value: Buffer.alloc(size, fill),
  }));
}

const logFile = (): string => path.join(part.dir, `${stem(0)}.log`);
const marker = (): string => path.join(part.dir, '.clean-shutdown');

/** What a SIGKILL leaves after the last record was only partly written: a record cut in the middle. */
function tearTail(): number {
  const torn = encodeRecord(recs(1, 300, 9)[0]!).subarray(0, 150);
  fs.appendFileSync(logFile(), torn);
  return torn.length;
}

describe('crater recovery point', () => {
  it('a clean shutdown then a restart reads no log bytes; a MoonMQ-written dir (no point) is read in full', async () => {
    const log = await part.openLog();
    log.append(recs(500));
    const leo = log.logEndOffset;
    await log.close();
    expect(readRecoveryPoint(part.dir)).toEqual({ checkpoint: Number(leo), base: 0, offset: Number(leo) });
    const before = recoveryScannedBytes();
    const again = await part.openLog();
    expect(again.recovery.cleanShutdown).toBe(true);
    expect(again.recovery.scannedBytes).toBe(0);
    expect(recoveryScannedBytes() - before).toBe(0);
    expect(again.read(0n, { maxRecords: 1000 })).toHaveLength(500);
    await again.close();
    fs.rmSync(path.join(part.dir, RECOVERY_POINT_FILE));
    const moonmq = await part.openLog();
    expect(moonmq.recovery.cleanShutdown).toBe(true);
    expect(moonmq.recovery.scannedBytes).toBe(Number(leo));
  });

  it('removes .clean-shutdown at open, so a crash after it recovers the torn tail and reads only what followed', async () => {
    const first = await part.openLog();
    first.append(recs(300));
    const leo = Number(first.logEndOffset);
    await first.close();
    const running = await part.openLog();
    expect(fs.existsSync(marker())).toBe(false);
    running.append(recs(20, 200, 2));
    await running.sync();
    const acked = Number(running.logEndOffset);
    const torn = tearTail(); // the process dies here: no close, no marker
    const recovered = await part.openLog();
    expect(recovered.recovery.cleanShutdown).toBe(false);
    expect(recovered.recovery.verified).toEqual([
      expect.objectContaining({ base: 0, from: leo, validSize: acked, truncatedBytes: torn }),
    ]);
    expect(recovered.recovery.scannedBytes).toBe(acked - leo + torn);
    expect(fs.statSync(logFile()).size).toBe(acked);
    expect(recovered.read(0n, { maxRecords: 1000 })).toHaveLength(320);
  });

  it('while running, moves the point after fsyncs, so a crash scans the interval plus the unflushed tail', async () => {
    const log = await part.openLog({ recoveryPointIntervalBytes: 4096 });
    let point = 0;
    for (let i = 0; i < 10; i++) {
      log.append(recs(10));
      await log.sync();
      point = readRecoveryPoint(part.dir)?.offset ?? 0;
    }
    const durable = Number(log.durableEndOffset);
    expect(durable - point).toBeLessThan(4096);
    expect(point).toBeGreaterThan(0);
    log.append(recs(5, 200, 3)); // appended, never fsynced
    const torn = tearTail();
    const whole = fs.statSync(logFile()).size;
    const recovered = await part.openLog();
    expect(recovered.recovery.verified[0]).toMatchObject({ from: point, truncatedBytes: torn });
    expect(recovered.recovery.scannedBytes).toBe(whole - point);
    expect(recovered.recovery.scannedBytes).toBeLessThan(whole / 2);
  });

  it('truncateTo below the point moves the point back with it', async () => {
    const log = await part.openLog({ recoveryPointIntervalBytes: 1 });
    const { offsets } = log.append(recs(10));
    await log.sync();
    expect(readRecoveryPoint(part.dir)?.offset).toBe(Number(log.logEndOffset));
    log.truncateTo(offsets[4]!);
    expect(readRecoveryPoint(part.dir)?.offset).toBe(Number(offsets[4]!));
  });

  it('a point that is not a record boundary is no reason to cut: the segment is scanned from its start', async () => {
    const log = await part.openLog();
    log.append(recs(10));
    const leo = Number(log.logEndOffset);
    await log.close();
    fs.rmSync(marker());
    fs.writeFileSync(path.join(part.dir, RECOVERY_POINT_FILE), `${leo} 0 17\n`);
    const again = await part.openLog();
    expect(again.recovery.verified[0]).toMatchObject({ from: 0, validSize: leo, truncatedBytes: 0 });
    expect(again.recovery.scannedBytes).toBe(leo - 17 + leo);
    expect(again.read(0n, { maxRecords: 100 })).toHaveLength(10);
  });

  it('ignores a point whose checkpoint MoonMQ has since rewritten (a roll or a clean close of its own)', async () => {
    const log = await part.openLog();
    log.append(recs(10));
    const leo = Number(log.logEndOffset);
    await log.close();
    fs.appendFileSync(logFile(), encodeRecord(recs(1, 50, 4)[0]!)); // MoonMQ appended, then closed cleanly:
    fs.writeFileSync(path.join(part.dir, 'recovery-checkpoint'), String(fs.statSync(logFile()).size));
    const again = await part.openLog();
    expect(again.recovery.recoveryPoint).toBeUndefined();
    expect(again.recovery.verified[0]).toMatchObject({ from: 0 });
    expect(again.recovery.scannedBytes).toBe(fs.statSync(logFile()).size);
    expect(again.read(0n, { maxRecords: 100 })).toHaveLength(11);
    expect(leo).toBeLessThan(fs.statSync(logFile()).size);
  });
});

/** The model check of `bench producer`: with the seed's assumptions met it is the seed's prediction; else it says so. */
import { describe, expect, it } from 'vitest';
import { type Measured, checkModel } from '../../../src/bench/producer-figures.js';
import { predict } from '../../../src/bench/producer-model.js';

const input = {
  producers: 10,
  topics: 1,
  partitions: 20,
  clientPartitions: false,
  rateBytesPerSec: 20_000_000,
  batchBytes: 60_000,
  lingerMs: 5,
  recordBytes: 108,
};

function measured(over: Partial<Measured>): Measured {
  const spread = { avg: 0, p50: 0, p99: 0, max: 0 };
  return {
    acked: 0,
    failed: 0,
    uncertain: 0,
    wallMs: 5_000,
    recordsPerSec: 0,
    mbPerSec: 20,
    requestsPerSec: 0,
    meanBatchBytes: 10_108,
    batchFrameBytes: spread,
    batchRecords: { avg: 0, max: 0 },
    queueTimeMs: { ...spread, p50: 5 },
    maxSettleMs: 0,
    eventLoopDelayMs: { p50: 0, p99: 0 },
    arrivalBurstRecords: 1,
    meanWakeupRecords: 1,
    ...over,
  };
}

describe('checkModel', () => {
  it('is the seed prediction under smooth arrivals, an exact timer and a load that kept up', () => {
    const check = checkModel(input, measured({}));
    expect(check.keptUp).toBe(true);
    expect(check.effective.meanBatchBytes).toBeCloseTo(predict(input).meanBatchBytes, 6);
    expect(check.effectiveRatio).toBeCloseTo(1, 6);
  });

  it('counts the opening burst and the late timer', () => {
    const check = checkModel(input, measured({ meanWakeupRecords: 10, eventLoopDelayMs: { p50: 5, p99: 9 } }));
    expect(check.effectiveLingerMs).toBe(10);
    expect(check.effective.meanBatchBytes).toBeCloseTo(10 * 108 + 2_000_000 * 0.01, 6);
  });

  it('says the model does not apply when the load fell behind or batches queued for slots', () => {
    expect(checkModel(input, measured({ mbPerSec: 4 })).keptUp).toBe(false);
    expect(checkModel(input, measured({ queueTimeMs: { avg: 400, p50: 400, p99: 900, max: 900 } })).keptUp).toBe(false);
  });
});

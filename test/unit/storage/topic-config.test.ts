import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_CLEANER_INTERVAL_SECONDS,
  DEFAULT_COMMITLOG_MAX_SEGMENT_SIZE,
  DEFAULT_INTERNAL_MAX_SEGMENT_SIZE,
  DEFAULT_MAX_LOG_BYTES,
  DEFAULT_RETENTION_SECONDS,
  DEFAULT_SEGMENTED_MAX_SEGMENT_SIZE,
  formatPercentF,
  formatTopicConfig,
  parseTopicConfig,
  readTopicConfig,
  readTopicConfigEntries,
  resolveTopicConfig,
  writeTopicConfig,
} from '../../../src/storage/topic-config.js';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-topiccfg-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('topic.config', () => {
  it('exports the spec defaults', () => {
    expect(DEFAULT_SEGMENTED_MAX_SEGMENT_SIZE).toBe(1_073_741_824);
    expect(DEFAULT_COMMITLOG_MAX_SEGMENT_SIZE).toBe(67_108_864);
    expect(DEFAULT_INTERNAL_MAX_SEGMENT_SIZE).toBe(8_388_608);
    expect(DEFAULT_RETENTION_SECONDS).toBe(604_800);
    expect(DEFAULT_CLEANER_INTERVAL_SECONDS).toBe(3600);
    expect(DEFAULT_MAX_LOG_BYTES).toBe(0);
    expect(resolveTopicConfig({})).toEqual({
      maxSegmentSize: 1_073_741_824,
      retentionSeconds: 604_800,
      cleanerIntervalSeconds: 3600,
      maxLogBytes: 0,
      backend: 'segmented',
      cleanupPolicy: 'delete',
    });
    expect(resolveTopicConfig({}, true)).toMatchObject({ backend: 'commitlog', maxSegmentSize: 8_388_608 });
  });

  it("writes an internal topic's sidecar byte for byte as MoonMQ does", () => {
    expect(writeTopicConfig(dir, { maxSegmentSize: 8_388_608, backend: 'commitlog', cleanupPolicy: 'compact' })).toBe(
      true,
    );
    expect(fs.readFileSync(path.join(dir, 'topic.config'), 'utf8')).toBe(
      'max_segment_size=8388608\nbackend=commitlog\ncleanup_policy=compact\n',
    );
    expect(fs.readdirSync(dir)).toEqual(['topic.config']);
  });

  it('lists numeric keys first in a fixed order, then string keys, with %.f numbers', () => {
    const text = formatTopicConfig({
      cleanupPolicy: 'compact',
      maxLogBytes: 1e21,
      backend: 'commitlog',
      cleanerIntervalSeconds: 60.5,
      retentionSeconds: 86_400,
      maxSegmentSize: 1_048_576,
    });
    expect(text).toBe(
      'max_segment_size=1048576\nretention=86400\ncleaner_interval=60\nmax_log_bytes=1000000000000000000000\n' +
        'backend=commitlog\ncleanup_policy=compact\n',
    );
    expect([formatPercentF(2.5), formatPercentF(3.5), formatPercentF(2.4), formatPercentF(0)]).toEqual([
      '2',
      '4',
      '2',
      '0',
    ]);
  });

  it('omits defaults and backend=segmented, and writes no file (removing a stale one) when nothing is left', () => {
    expect(formatTopicConfig({ backend: 'segmented', retentionSeconds: 604_800, cleanupPolicy: 'delete' })).toBe('');
    expect(formatTopicConfig({ backend: 'segmented', retentionSeconds: 3600 })).toBe('retention=3600\n');
    fs.writeFileSync(path.join(dir, 'topic.config'), 'retention=5\n');
    expect(writeTopicConfig(dir, { maxSegmentSize: DEFAULT_SEGMENTED_MAX_SEGMENT_SIZE })).toBe(false);
    expect(fs.existsSync(path.join(dir, 'topic.config'))).toBe(false);
  });

  it('reads back what it writes', () => {
    const config = {
      maxSegmentSize: 4096,
      retentionSeconds: 10,
      backend: 'commitlog',
      cleanupPolicy: 'compact',
    } as const;
    writeTopicConfig(dir, config);
    expect(readTopicConfig(dir)).toEqual(config);
    expect(readTopicConfigEntries(dir)).toEqual({
      max_segment_size: '4096',
      retention: '10',
      backend: 'commitlog',
      cleanup_policy: 'compact',
    });
  });

  it('ignores blank lines, comments, unknown keys and values that do not parse (those options keep defaults)', () => {
    const text = [
      '# written by hand',
      '',
      'retention=3600',
      'colour=blue',
      'max_segment_size=lots',
      'cleaner_interval=-5',
      'backend=cassette',
      'cleanup_policy = compact ',
      'no equals sign',
      '=orphan',
    ].join('\n');
    expect(parseTopicConfig(text)).toEqual({ retentionSeconds: 3600, cleanupPolicy: 'compact' });
  });

  it('treats a missing sidecar as an empty config and an unreadable one as a StorageError', () => {
    expect(readTopicConfig(dir)).toEqual({});
    fs.mkdirSync(path.join(dir, 'topic.config'));
    expect(() => readTopicConfig(dir)).toThrow(expect.objectContaining({ code: 'ERR_STORAGE' }));
  });
});

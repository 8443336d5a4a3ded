/**
 * The parts of the error report behind --verbose and the topic hint (cli/error-report.ts), and the broker-start
 * helpers (cli/broker-run.ts): the cause chain, the verbose block per cause, the ERR 5 hint, the stderr logger's
 * line format, the throwaway data dir and the pid file.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stderrLogger, temporaryDataDir, writePidFile } from '../../../src/cli/broker-run.js';
import { causesOf, verboseReport, withTopicHint } from '../../../src/cli/error-report.js';
import { BrokerError, UsageError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/error-codes.js';
import { inProcess } from '../../helpers/in-process-cli.js';

describe('the cause chain', () => {
  it('lists causes outermost first, and stops at a cycle and after 8 links', () => {
    const root = Object.assign(new Error('disk'), { code: 'EIO' });
    const mid = new Error('write failed', { cause: root });
    const top = new Error('produce failed', { cause: mid });
    expect(causesOf(top)).toEqual([mid, root]);
    expect(causesOf('a string')).toEqual([]);
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(causesOf(a)).toEqual([b]);
    let deep = new Error('0');
    for (let i = 1; i <= 12; i++) deep = new Error(String(i), { cause: deep });
    expect(causesOf(deep)).toHaveLength(8);
  });

  it('--verbose prints the stack, then one "Caused by [CODE]" block per cause with its own stack', () => {
    const root = Object.assign(new Error('disk'), { code: 'EIO' });
    const top = new UsageError('bad input');
    top.cause = root;
    const report = verboseReport(top, 'Error [ERR_USAGE]').split('\n');
    expect(report[0]).toMatch(/^Error \[ERR_USAGE\]: \w*Error: bad input$/);
    const caused = report.findIndex((l) => l.startsWith('Caused by [EIO]: Error: disk'));
    expect(caused).toBeGreaterThan(1);
    expect(report[caused + 1]).toMatch(/^ {4}at /);
    expect(verboseReport('plain', 'Error [ERR_FAILURE]')).toBe('Error [ERR_FAILURE]: plain');
  });
});

describe('withTopicHint', () => {
  it('adds how to create a missing topic, keeping the broker error as the cause; other errors pass through', () => {
    const missing = new BrokerError(ErrorCode.TOPIC_MISSING, 'ERR_TOPIC_MISSING', "topic 'orders' does not exist");
    const hinted = withTopicHint(missing, 'orders') as BrokerError;
    expect(hinted).toBeInstanceOf(BrokerError);
    expect(hinted.errorCode).toBe(ErrorCode.TOPIC_MISSING);
    expect(hinted.message).toBe(
      "ERR_TOPIC_MISSING (5): topic 'orders' does not exist; create it with `crater topic create orders`",
    );
    expect(hinted.cause).toBe(missing);
    const other = new BrokerError(7, 'ERR_INTERNAL', 'boom');
    expect(withTopicHint(other, 'orders')).toBe(other);
    const plain = new Error('x');
    expect(withTopicHint(plain, 'orders')).toBe(plain);
  });
});

describe('broker start helpers', () => {
  const made: string[] = [];
  afterEach(async () => {
    for (const p of made.splice(0)) await fs.rm(p, { recursive: true, force: true });
  });

  it('the logger writes one line per event, with key=value fields, and debug only when verbose', async () => {
    const quiet = await inProcess(async () => {
      const log = stderrLogger();
      log.debug('hidden');
      log.info('listening', { port: 9092, host: '127.0.0.1' });
      log.warn('slow fsync', { ms: 12.5 });
      log.error('failed', { cause: { code: 'EIO' } });
    });
    const lines = quiet.stderr.trimEnd().split('\n');
    expect(quiet.stdout).toBe('');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z info listening port=9092 host=127\.0\.0\.1$/);
    expect(lines[1]).toMatch(/ warn slow fsync ms=12\.5$/);
    expect(lines[2]).toMatch(/ error failed cause=\{"code":"EIO"\}$/);
    const verbose = await inProcess(async () => stderrLogger(true).debug('shown'));
    expect(verbose.stderr).toMatch(/ debug shown\n$/);
  });

  it('a temporary data dir is removed unless kept; the pid file holds our pid until removed', async () => {
    const gone = await temporaryDataDir();
    await fs.writeFile(path.join(gone.dir, 'x'), 'y');
    await gone.remove();
    await expect(fs.stat(gone.dir)).rejects.toMatchObject({ code: 'ENOENT' });
    const kept = await temporaryDataDir(true);
    made.push(kept.dir);
    await kept.remove();
    expect((await fs.stat(kept.dir)).isDirectory()).toBe(true);
    const file = path.join(kept.dir, 'broker.pid');
    const pid = await writePidFile(file);
    expect(await fs.readFile(file, 'utf8')).toBe(`${process.pid}\n`);
    await pid.remove();
    await expect(fs.stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(path.dirname(gone.dir)).toBe(os.tmpdir());
  });
});

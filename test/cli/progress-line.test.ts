/**
 * Issue 16 item 7: produce and consume draw a progress line (records and rate) on stderr when it is a terminal, and
 * nothing extra when stderr is a pipe. The terminal is a real pseudo-terminal (test/helpers/pty.ts); stdout stays a
 * pipe, so records and progress never share a screen. Real broker in-process on port 0, the built binary as a child.
 */
import { describe, expect, it } from 'vitest';
import { spawnCrater, useCliBroker } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { ptyAvailable, spawnCraterOnPty } from '../helpers/pty.js';

const server = useCliBroker();

const RATE = /\d[\d,]* records\/s/;

describe.skipIf(!ptyAvailable())('progress line', () => {
  it('consume shows "consuming T: N records, R records/s" on a terminal stderr, records on the stdout pipe', async () => {
    await server.createTopic('progress-consume');
    const seed = spawnCrater(['produce', 'progress-consume'], { broker: server.address });
    seed.child.stdin.end('a\nb\nc\n');
    expect((await seed.done).code).toBe(0);

    const run = spawnCraterOnPty(['consume', 'progress-consume', '--from', 'beginning'], { broker: server.address });
    await eventually(() => /consuming progress-consume: 3 records, /.test(run.seen().terminal), {
      timeoutMs: 15_000,
      what: () => `the progress line with 3 records on the terminal; it showed ${JSON.stringify(run.seen().terminal)}`,
    });
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('a\nb\nc\n');
    expect(r.stderr).toMatch(RATE);
    expect(r.stderr).toContain('consumed 3 records from progress-consume');
  });

  it('consume in a pipe writes only the closing summary on stderr, no progress line', async () => {
    await server.createTopic('progress-consume-pipe');
    const seed = spawnCrater(['produce', 'progress-consume-pipe'], { broker: server.address });
    seed.child.stdin.end('a\nb\nc\n');
    expect((await seed.done).code).toBe(0);

    const run = spawnCrater(['consume', 'progress-consume-pipe', '--from', 'beginning'], { broker: server.address });
    run.child.stdin.end();
    let stdout = '';
    run.child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    await eventually(() => stdout === 'a\nb\nc\n', { timeoutMs: 15_000, what: 'the 3 records on stdout' });
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.stderr).not.toContain('consuming progress-consume-pipe');
    expect(r.stderr).not.toMatch(RATE);
    expect(r.stderr).toContain('consumed 3 records from progress-consume-pipe');
  });

  it('produce shows "producing to T: N records, R records/s" on a terminal stderr while input flows', async () => {
    await server.createTopic('progress-produce');
    const run = spawnCraterOnPty(['produce', 'progress-produce'], { broker: server.address });
    // Deliveries are counted as the next record is read, so the input keeps flowing, a line per poll, until the
    // terminal shows a count.
    let sent = 0;
    await eventually(
      () => {
        run.child.stdin.write(`r${(sent += 1)}\n`);
        return /producing to progress-produce: [1-9][\d,]* records, /.test(run.seen().terminal);
      },
      {
        timeoutMs: 15_000,
        intervalMs: 50,
        what: () => `a progress line with a count on the terminal; it showed ${JSON.stringify(run.seen().terminal)}`,
      },
    );
    run.child.stdin.end();
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(RATE);
    expect(r.stderr).toContain(`produced ${sent} of ${sent} records to progress-produce`);
  });

  it('produce in a pipe writes only the closing summary on stderr, no progress line', async () => {
    await server.createTopic('progress-produce-pipe');
    const run = spawnCrater(['produce', 'progress-produce-pipe'], { broker: server.address });
    run.child.stdin.end('a\nb\nc\n');
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('producing to progress-produce-pipe');
    expect(r.stderr).not.toMatch(RATE);
    expect(r.stderr).toContain('produced 3 of 3 records to progress-produce-pipe');
  });
});

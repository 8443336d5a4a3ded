import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chalkFor, colorLevel, createSpinner, spinnerAllowed } from '../../../src/cli/terminal.js';

const tty = { isTTY: true, columns: 80 };
const pipe = { isTTY: false };

describe('colorLevel', () => {
  it('colours a TTY and not a pipe by default', () => {
    expect(colorLevel(tty, {})).toBe(1);
    expect(colorLevel(pipe, {})).toBe(0);
    expect(colorLevel({}, {})).toBe(0);
  });

  it('any non-empty NO_COLOR disables colour, even over FORCE_COLOR', () => {
    expect(colorLevel(tty, { NO_COLOR: '1' })).toBe(0);
    expect(colorLevel(tty, { NO_COLOR: 'false' })).toBe(0);
    expect(colorLevel(tty, { NO_COLOR: 'yes', FORCE_COLOR: '3' })).toBe(0);
  });

  it('an empty NO_COLOR is ignored', () => {
    expect(colorLevel(tty, { NO_COLOR: '' })).toBe(1);
  });

  it('FORCE_COLOR sets the level for pipes and TTYs alike, clamped to 0..3', () => {
    expect(colorLevel(pipe, { FORCE_COLOR: '0' })).toBe(0);
    expect(colorLevel(tty, { FORCE_COLOR: '0' })).toBe(0);
    expect(colorLevel(pipe, { FORCE_COLOR: '1' })).toBe(1);
    expect(colorLevel(pipe, { FORCE_COLOR: '2' })).toBe(2);
    expect(colorLevel(pipe, { FORCE_COLOR: '3' })).toBe(3);
    expect(colorLevel(pipe, { FORCE_COLOR: '9' })).toBe(3);
    expect(colorLevel(pipe, { FORCE_COLOR: '' })).toBe(1);
    expect(colorLevel(pipe, { FORCE_COLOR: 'true' })).toBe(1);
    expect(colorLevel(tty, { FORCE_COLOR: 'false' })).toBe(0);
  });

  it('reads the depth a TTY advertises, and TERM=dumb means none', () => {
    expect(colorLevel(tty, { TERM: 'xterm-256color' })).toBe(2);
    expect(colorLevel(tty, { COLORTERM: 'truecolor' })).toBe(3);
    expect(colorLevel(tty, { TERM: 'dumb' })).toBe(0);
  });

  it('chalkFor builds a chalk at that level (chalk alone would ignore NO_COLOR)', () => {
    expect(chalkFor(tty, { NO_COLOR: '1', FORCE_COLOR: '1' }).red('x')).toBe('x');
    expect(chalkFor(pipe, { FORCE_COLOR: '1' }).red('x')).toBe('\u001b[31mx\u001b[39m');
  });
});

describe('spinner policy', () => {
  it('spins only on a TTY with a positive column count', () => {
    expect(spinnerAllowed({ isTTY: true, columns: 80 })).toBe(true);
    expect(spinnerAllowed({ isTTY: true, columns: 0 })).toBe(false);
    expect(spinnerAllowed({ isTTY: true })).toBe(false);
    expect(spinnerAllowed({ isTTY: false, columns: 80 })).toBe(false);
  });

  it('the stand-in spinner has the same methods and writes nothing', async () => {
    const stream = new PassThrough();
    let written = '';
    stream.on('data', (d: Buffer) => (written += d.toString()));
    const spinner = await createSpinner('loading', { stream: stream as unknown as NodeJS.WriteStream, env: {} });
    expect(spinner.start().isSpinning).toBe(true);
    spinner.text = 'still loading';
    expect(spinner.text).toBe('still loading');
    expect(spinner.succeed('done').isSpinning).toBe(false);
    spinner.start().fail('failed');
    expect(spinner.stop().isSpinning).toBe(false);
    expect(written).toBe('');
  });
});

/**
 * The one place that decides colour and spinners. chalk 5 ignores NO_COLOR and ora loops forever on a pty that
 * reports 0 columns, so neither library is left to decide for itself.
 */
import { Chalk, type ChalkInstance } from 'chalk';

export type ColorLevel = 0 | 1 | 2 | 3;

/** The parts of a stream the policy looks at (a tty.WriteStream, a plain pipe, or a test double). */
export interface TerminalStream {
  isTTY?: boolean | undefined;
  columns?: number | undefined;
}

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * NO_COLOR (any non-empty value) wins over everything; then FORCE_COLOR (0..3, "true"/"false", empty = 1) wins
 * over the TTY check; then a TTY gets colour unless TERM=dumb, at the depth TERM/COLORTERM advertise.
 */
export function colorLevel(stream: TerminalStream, env: Env = process.env): ColorLevel {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '' || force === 'true') return 1;
    if (force === 'false') return 0;
    const n = Number.parseInt(force, 10);
    if (Number.isInteger(n)) return Math.max(0, Math.min(3, n)) as ColorLevel;
  }
  if (stream.isTTY !== true) return 0;
  if (env.TERM === 'dumb') return 0;
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  if (env.TERM !== undefined && /-256(color)?$/i.test(env.TERM)) return 2;
  return 1;
}

export function chalkFor(stream: TerminalStream, env: Env = process.env): ChalkInstance {
  return new Chalk({ level: colorLevel(stream, env) });
}

/** A spinner is drawn only on an interactive stderr of known, non-zero width. */
export function spinnerAllowed(stream: TerminalStream = process.stderr): boolean {
  return stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0;
}

/** The part of ora's API crater uses; the no-op version has the same shape so commands never branch. */
export interface Spinner {
  text: string;
  readonly isSpinning: boolean;
  start(text?: string): Spinner;
  stop(): Spinner;
  succeed(text?: string): Spinner;
  fail(text?: string): Spinner;
}

class SilentSpinner implements Spinner {
  text: string;
  isSpinning = false;

  constructor(text: string) {
    this.text = text;
  }

  start(text?: string): Spinner {
    if (text !== undefined) this.text = text;
    this.isSpinning = true;
    return this;
  }

  stop(): Spinner {
    this.isSpinning = false;
    return this;
  }

  succeed(text?: string): Spinner {
    if (text !== undefined) this.text = text;
    return this.stop();
  }

  fail(text?: string): Spinner {
    if (text !== undefined) this.text = text;
    return this.stop();
  }
}

export interface SpinnerOptions {
  stream?: NodeJS.WriteStream;
  env?: Env;
}

/**
 * A spinner on stderr, or a silent stand-in. ora is imported here, not at the top, so commands that never spin
 * (and `crater --version`) do not pay for loading it.
 */
export async function createSpinner(text: string, options: SpinnerOptions = {}): Promise<Spinner> {
  const stream = options.stream ?? process.stderr;
  const env = options.env ?? process.env;
  if (!spinnerAllowed(stream)) return new SilentSpinner(text);
  const { default: ora } = await import('ora');
  const chalk = chalkFor(stream, env);
  const spinner = ora({ text, stream, isEnabled: true, color: chalk.level > 0 ? 'cyan' : false, discardStdin: false });
  const wrapped: Spinner = {
    get text() {
      return spinner.text;
    },
    set text(value: string) {
      spinner.text = value;
    },
    get isSpinning() {
      return spinner.isSpinning;
    },
    start(t?: string) {
      spinner.start(t);
      return wrapped;
    },
    stop() {
      spinner.stop();
      return wrapped;
    },
    succeed(t?: string) {
      spinner.stopAndPersist({ symbol: chalk.green('✔'), text: t ?? spinner.text });
      return wrapped;
    },
    fail(t?: string) {
      spinner.stopAndPersist({ symbol: chalk.red('✖'), text: t ?? spinner.text });
      return wrapped;
    },
  };
  return wrapped;
}

/** How often a progress line is redrawn at most (formatting it per record would cost more than the record). */
export const PROGRESS_MS = 100;

/**
 * `draw` at most once per `ms`, with one trailing call: the last update of a burst is drawn even when nothing
 * follows it (a progress line must not stop short of the records it already handled).
 */
export function throttled(draw: () => void, ms: number = PROGRESS_MS): () => void {
  let drawn = -Infinity;
  let trailing: NodeJS.Timeout | undefined;
  const run = (): void => {
    trailing = undefined;
    drawn = performance.now();
    draw();
  };
  return () => {
    const wait = drawn + ms - performance.now();
    if (wait <= 0) run();
    else trailing ??= setTimeout(run, wait).unref();
  };
}

/**
 * The one poll-until-deadline helper: tests wait for a condition by polling it up to a deadline, never by sleeping
 * a fixed time. The timer between polls is always cleared by the time the promise settles.
 */

export interface PollOptions {
  /** How long to keep polling; default 5 s. */
  timeoutMs?: number;
  /** Pause between polls; default 10 ms. */
  intervalMs?: number;
  /** What the error says was not reached; default "condition". */
  what?: string | (() => string);
}

function describe(what: PollOptions['what']): string {
  if (what === undefined) return 'condition';
  return typeof what === 'function' ? what() : what;
}

/** Polls `probe` until it returns something other than undefined, and returns that; throws past the deadline. */
export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  options: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 5_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${describe(options.what)} not met before the deadline`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 10));
  }
}

/** Polls `check` until it returns true; throws past the deadline. A number is taken as `timeoutMs`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  options: PollOptions | number = {},
): Promise<void> {
  const opts = typeof options === 'number' ? { timeoutMs: options } : options;
  await until(async () => ((await check()) ? true : undefined), opts);
}

/**
 * Line-at-a-time output for streams (`consume`, `segments inspect` record listings): each write waits for 'drain'
 * when the stream's buffer is full, so a slow reader slows the producer of lines instead of growing memory; once
 * the reader has gone (EPIPE, or the stream was destroyed) every later write resolves `false` and the caller stops.
 * JsonlWriter writes one JSON document per line with the bigint rule of json.ts.
 */
import type { Writable } from 'node:stream';
import { stringifyJson } from './json.js';

export class LineWriter {
  readonly #stream: Writable;
  #closed = false;
  #error: Error | undefined;
  #waiters: Array<() => void> = [];
  readonly #onError = (err: NodeJS.ErrnoException): void => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') this.#error ??= err;
    this.#markClosed();
  };
  readonly #onClose = (): void => this.#markClosed();
  readonly #onDrain = (): void => this.#wake();

  constructor(stream: Writable = process.stdout) {
    this.#stream = stream;
    stream.on('error', this.#onError);
    stream.on('close', this.#onClose);
    stream.on('drain', this.#onDrain);
    if (stream.destroyed || stream.writableEnded) this.#closed = true;
  }

  /** False once the reader has gone; lines written after that are dropped. */
  get open(): boolean {
    return !this.#closed;
  }

  /**
   * Resolves true when the line was handed to the stream, false when the reader has gone; rejects with the stream's
   * error when it failed for another reason (a full disk behind `> file`).
   */
  async writeLine(text: string): Promise<boolean> {
    return this.writeChunk(`${text}\n`);
  }

  /**
   * Like writeLine, for output that is already whole lines (many at once: one write instead of one per line).
   * `written` is called once the stream is done with `data` (so its buffer may be reused), also when it failed.
   */
  async writeChunk(data: Buffer | string, written?: () => void): Promise<boolean> {
    if (!this.#closed) {
      const ok = this.#stream.write(data, written);
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- write() can close the stream synchronously (EPIPE); TypeScript keeps the narrowing across calls (TypeScript#9998)
      if (!ok && !this.#closed) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    if (this.#error) throw this.#error;
    return !this.#closed;
  }

  /** Stops listening to the stream; it does not end it (stdout belongs to the process). */
  detach(): void {
    this.#stream.off('error', this.#onError);
    this.#stream.off('close', this.#onClose);
    this.#stream.off('drain', this.#onDrain);
    this.#wake();
  }

  #markClosed(): void {
    this.#closed = true;
    this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}

export class JsonlWriter extends LineWriter {
  /** One value as one line of JSON; same result as writeLine. */
  async write(value: unknown): Promise<boolean> {
    return this.writeLine(stringifyJson(value));
  }
}

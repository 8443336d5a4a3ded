/**
 * What the network commands share besides their flags: turning the connection flags into client options, opening
 * a client, and writing raw bytes to stdout with backpressure. The client library is imported lazily so that
 * loading a command (for `--help`, `--version`) does not load it.
 */
import type { Client, ConnectOptions } from '../client/index.js';
import { ConnectionError } from '../errors.js';
import { type HostPort, formatHostPort } from './flags.js';

export interface ConnectionFlagValues {
  broker: HostPort;
  username?: string | undefined;
  password?: string | undefined;
  timeout: number;
}

export function connectOptions(flags: ConnectionFlagValues): ConnectOptions {
  return {
    broker: formatHostPort(flags.broker),
    username: flags.username,
    password: flags.password,
    timeoutMs: flags.timeout,
  };
}

/** Connects, greets and authenticates; a refused connection is a ConnectionError naming the address (exit 1). */
export async function openClient(flags: ConnectionFlagValues): Promise<Client> {
  return openClientWith(flags);
}

/** openClient with further client options (a larger request frame for produce). */
export async function openClientWith(flags: ConnectionFlagValues, extra: Partial<ConnectOptions> = {}): Promise<Client> {
  const { connect } = await import('../client/index.js');
  try {
    return await connect({ ...connectOptions(flags), ...extra });
  } catch (error) {
    throw withRefusedHint(error, formatHostPort(flags.broker));
  }
}

/** The socket error behind a ConnectionError, classified by its errno code (never by message text). */
function socketCode(error: unknown): string | undefined {
  const cause = error instanceof ConnectionError ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : undefined;
}

/** A refused connection says what to do about it: start a broker, or point at the right one. */
export function withRefusedHint(error: unknown, address: string): unknown {
  if (socketCode(error) !== 'ECONNREFUSED') return error;
  const hint = `is a broker running at ${address}? start one with \`crater broker start\`, or set CRATER_BROKER / --broker`;
  return new ConnectionError(`${(error as Error).message}; ${hint}`, { cause: (error as Error).cause });
}

/**
 * Writes bytes to `stream`, waiting for 'drain' when its buffer is full. Resolves false once the reader has gone or
 * `signal` aborted (the base command aborts it on EPIPE), so a loop feeding it stops instead of waiting forever.
 */
export async function writeBytes(stream: NodeJS.WritableStream & { destroyed?: boolean }, bytes: Buffer | string, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || stream.destroyed) return false;
  if (stream.write(bytes)) return true;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    signal.addEventListener('abort', done);
  });
  return !signal.aborted && !stream.destroyed;
}

/** Resolves after `ms`, or at once when `signal` aborts; the timer never outlives the wait. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** Runs `fn` with a connected client and closes it afterwards, whatever happens. */
export async function withClient<T>(flags: ConnectionFlagValues, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = await openClient(flags);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

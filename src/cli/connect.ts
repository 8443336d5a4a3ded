/**
 * What the network commands share besides their flags: turning the connection flags into client options, opening
 * a client, and writing raw bytes to stdout with backpressure. The client library is imported lazily so that
 * loading a command (for `--help`, `--version`) does not load it.
 */
import type { Backend } from '../client/backend.js';
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

/**
 * Connects to the backend the address names (kafka://... is Apache Kafka, anything else MoonMQ's protocol, which
 * greets and authenticates); a refused connection is a ConnectionError naming the address and saying what to do
 * (exit 1). On Kafka one stderr line says so, since partitions and offsets are then Kafka's (0-based, record counts).
 */
export async function openClient(flags: ConnectionFlagValues, extra: Partial<ConnectOptions> = {}): Promise<Backend> {
  const { connectBackend } = await import('../client/connect-backend.js');
  let backend: Backend;
  try {
    backend = await connectBackend({ ...connectOptions(flags), ...extra });
  } catch (error) {
    throw withRefusedHint(error, formatHostPort(flags.broker));
  }
  if (backend.kind === 'kafka' && !announced) {
    // Once per process: a command that opens side connections (a reset, a --from) says it once.
    announced = true;
    process.stderr.write(`backend: kafka ${backend.address} (partitions from 0, offsets are record counts)\n`);
  }
  return backend;
}

let announced = false;

/** openClient with further client options (a larger request frame for produce). */
export function openClientWith(flags: ConnectionFlagValues, extra: Partial<ConnectOptions> = {}): Promise<Backend> {
  return openClient(flags, extra);
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

export { moonmqOnly } from '../client/connect-backend.js';

/**
 * Writes bytes to `stream`, waiting for 'drain' when its buffer is full. Resolves false once the reader has gone or
 * `signal` aborted (the base command aborts it on EPIPE), so a loop feeding it stops instead of waiting forever.
 */
export async function writeBytes(
  stream: NodeJS.WritableStream & { destroyed?: boolean },
  bytes: Buffer | string,
  signal: AbortSignal,
): Promise<boolean> {
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
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `aborted`/`destroyed` are changed during the await above; TypeScript keeps the narrowing across it (TypeScript#9998)
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
/** openClient for a command that needs MoonMQ's protocol (share groups, the batch consumer); names the backend otherwise. */
export async function openMoonmqClient(flags: ConnectionFlagValues, what: string): Promise<Client> {
  const { moonmqOnly } = await import('../client/connect-backend.js');
  const backend = await openClient(flags);
  try {
    return moonmqOnly(backend, what);
  } catch (err) {
    await backend.close();
    throw err;
  }
}

/** withClient on MoonMQ's protocol only (see openMoonmqClient). */
export async function withMoonmqClient<T>(
  flags: ConnectionFlagValues,
  what: string,
  fn: (client: Client) => Promise<T>,
): Promise<T> {
  const client = await openMoonmqClient(flags, what);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

export async function withClient<T>(flags: ConnectionFlagValues, fn: (client: Backend) => Promise<T>): Promise<T> {
  const client = await openClient(flags);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

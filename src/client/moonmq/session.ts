/**
 * An authenticated connection: HELLO, IDENTIFY_CLIENT, AUTH (wire.md §1 state machine). AUTH is sent in open mode
 * too, because the greeted state allows no data op; an open broker accepts any credentials, so they default to "".
 * The broker's IDENTIFY_ACK name decides which extensions the client may use (extensions.md §1).
 */
import { BrokerError, DecodeError } from '../../errors.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { Caps } from '../../protocol/limits.js';
import { AuthOkReply, AuthRequest } from '../../protocol/messages/auth.js';
import { HelloRequest, WelcomeReply } from '../../protocol/messages/hello.js';
import { IdentifyAckReply, IdentifyClientRequest } from '../../protocol/messages/identify.js';
import { Isolation, type IsolationLevel, type IsolationName } from '../../protocol/opcodes.js';
import { PROTOCOL_VERSION } from '../../protocol/limits.js';
import { Connection, type ConnectionOptions } from './connection.js';
import { validateString } from '../validate.js';

/** The name a crater broker answers IDENTIFY_CLIENT with; anything else supports no extension. */
export const CRATER_SERVER_NAME = 'crater';
export const CLIENT_NAME = 'crater-client';
export const CLIENT_VERSION = '0.1.0';

export interface ConnectOptions extends ConnectionOptions {
  /** `host:port`, `[v6]:port` or a bare host (port 9092). */
  broker: string;
  username?: string;
  password?: string;
  clientName?: string;
  clientVersion?: string;
  /** Shorthand for requestTimeoutMs (and the connect timeout when that is not given). */
  timeoutMs?: number;
}

export interface ServerIdentity {
  /** IDENTIFY_ACK's server_name; undefined when the broker does not answer IDENTIFY_CLIENT. */
  name: string | undefined;
  version: string | undefined;
  isCrater: boolean;
}

export interface Session {
  conn: Connection;
  server: ServerIdentity;
}

export type { IsolationName };

export function isolationByte(isolation: IsolationName | IsolationLevel | undefined): IsolationLevel | undefined {
  if (isolation === undefined) return undefined;
  if (isolation === 'read_committed' || isolation === Isolation.READ_COMMITTED) return Isolation.READ_COMMITTED;
  return Isolation.READ_UNCOMMITTED;
}

export function connectionOptions(options: ConnectOptions): ConnectionOptions {
  return {
    ...options,
    requestTimeoutMs: options.requestTimeoutMs ?? options.timeoutMs,
    connectTimeoutMs: options.connectTimeoutMs ?? options.timeoutMs,
  };
}

/** Opens and authenticates one connection; on any failure the socket is closed and the error rethrown. */
export async function openSession(options: ConnectOptions): Promise<Session> {
  const username = options.username ?? '';
  const password = options.password ?? '';
  const name = options.clientName ?? CLIENT_NAME;
  const version = options.clientVersion ?? CLIENT_VERSION;
  validateString('username', username, Caps.username);
  validateString('password', password, Caps.password);
  validateString('client name', name, Caps.clientName);
  validateString('client version', version, Caps.clientVersion);

  const conn = await Connection.open(options.broker, connectionOptions(options));
  try {
    const welcome = await conn.request(HelloRequest, { version: PROTOCOL_VERSION }, WelcomeReply);
    if (welcome.version !== PROTOCOL_VERSION) {
      throw new DecodeError('version', 0, `broker ${conn.label} speaks protocol v${welcome.version}, not v1`);
    }
    const server = await identify(conn, name, version);
    await conn.request(AuthRequest, { username, password }, AuthOkReply);
    return { conn, server };
  } catch (error) {
    conn.destroy();
    throw error;
  }
}

async function identify(conn: Connection, name: string, version: string): Promise<ServerIdentity> {
  try {
    const ack = await conn.request(IdentifyClientRequest, { name, version }, IdentifyAckReply);
    return { name: ack.serverName, version: ack.serverVersion, isCrater: ack.serverName === CRATER_SERVER_NAME };
  } catch (error) {
    // A broker that predates IDENTIFY_CLIENT says UNKNOWN_OP; it supports no extension but is otherwise usable.
    if (error instanceof BrokerError && error.errorCode === ErrorCode.UNKNOWN_OP) {
      return { name: undefined, version: undefined, isCrater: false };
    }
    throw error;
  }
}

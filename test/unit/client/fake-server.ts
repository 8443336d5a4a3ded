/**
 * A raw-frame TCP peer for unit tests of the client transport: it decodes what the client sends and lets each test
 * script the replies byte for byte. It is not a broker and is never used by integration tests.
 */
import net from 'node:net';
import type { Connection } from '../../../src/client/moonmq/connection.js';
import { FrameDecoder, type Frame } from '../../../src/protocol/frame-decoder.js';

export interface FakeServer {
  port: number;
  /** Every frame received, in order, across connections. */
  frames: Frame[];
  sockets: net.Socket[];
  close(): Promise<void>;
}

export type FrameHandler = (socket: net.Socket, frame: Frame) => void;

export async function startFakeServer(onFrame: FrameHandler = () => {}): Promise<FakeServer> {
  const frames: Frame[] = [];
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    const decoder = new FrameDecoder();
    socket.on('data', (chunk) => {
      for (const frame of decoder.push(chunk)) {
        frames.push(frame);
        onFrame(socket, frame);
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    frames,
    sockets,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The afterEach of a transport test: destroys the connection, waits for its close, then closes the fake peer. */
export async function closeBoth(conn: Connection | undefined, server: FakeServer | undefined): Promise<void> {
  conn?.destroy();
  if (conn && !conn.closed) await new Promise<void>((resolve) => conn.onClose(() => resolve()));
  await server?.close();
}

export { eventually as until } from '../../helpers/eventually.js';

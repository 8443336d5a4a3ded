/**
 * A TCP proxy in front of a test broker: when `armedOp` is set it cuts both sides at the first reply frame of that
 * op instead of passing it on (a reply lost after the broker acted), and while `holding` it swallows replies (a
 * broker that stopped answering). Every socket and the listener close with close().
 */
import net from 'node:net';
import { FrameDecoder } from '../../src/protocol/frame-decoder.js';

export class DroppingProxy {
  private readonly server = net.createServer((socket) => this.accept(socket));
  private readonly sockets = new Set<net.Socket>();
  armedOp: number | undefined;
  holding = false;
  dropped = 0;

  private constructor(private readonly target: number) {}

  static async start(target: number): Promise<DroppingProxy> {
    const p = new DroppingProxy(target);
    await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
    return p;
  }

  get address(): string {
    return `127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  private accept(socket: net.Socket): void {
    const upstream = net.connect(this.target, '127.0.0.1');
    const decoder = new FrameDecoder(16 * 1_048_576);
    for (const s of [socket, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    socket.on('data', (d) => upstream.write(d));
    upstream.on('data', (d: Buffer) => {
      const frames = decoder.push(d);
      if (this.armedOp !== undefined && frames.some((f) => f.op === this.armedOp)) {
        this.armedOp = undefined;
        this.dropped++;
        socket.destroy();
        upstream.destroy();
        return;
      }
      if (!this.holding) socket.write(d);
    });
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

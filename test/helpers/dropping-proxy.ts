/**
 * A TCP proxy in front of a test broker: when `armedOp` is set it cuts both sides at the first reply frame of that
 * op instead of passing it on (a reply lost after the broker acted), and while `holding` it swallows replies (a
 * broker that stopped answering). Every socket and the listener close with close().
 */
import net from 'node:net';
import { type Frame, FrameDecoder } from '../../src/protocol/frame-decoder.js';

/** A frame's bytes again: u32 length · u8 op · 16-byte correl · payload (wire.md §1). */
function encodeFrame(f: Frame): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(1 + f.correl.length + f.payload.length, 0);
  head.writeUInt8(f.op, 4);
  return Buffer.concat([head, f.correl, f.payload]);
}

export class DroppingProxy {
  private readonly server = net.createServer((socket) => this.accept(socket));
  private readonly sockets = new Set<net.Socket>();
  armedOp: number | undefined;
  /** Replies of `armedOp` passed on before the one that is cut (0: the first is cut). */
  armedSkip = 0;
  holding = false;
  dropped = 0;
  /** Reply frames swallowed while holding. */
  held = 0;

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
      const cut = this.armedOp === undefined ? -1 : this.cutAt(frames);
      if (cut >= 0) {
        this.armedOp = undefined;
        this.dropped++;
        // The replies before the cut one still reach the client: the connection drops right after them.
        if (!this.holding) for (const f of frames.slice(0, cut)) socket.write(encodeFrame(f));
        socket.destroy();
        upstream.destroy();
        return;
      }
      // Frame by frame, so that a cut can pass on exactly the replies before it.
      if (this.holding) this.held += frames.length;
      else for (const f of frames) socket.write(encodeFrame(f));
    });
    socket.on('close', () => upstream.destroy());
    upstream.on('close', () => socket.destroy());
  }

  /** The index in `frames` of the reply to cut at, or −1 (counting down armedSkip past earlier matches). */
  private cutAt(frames: readonly Frame[]): number {
    for (let i = 0; i < frames.length; i++) {
      if (frames[i]!.op !== this.armedOp) continue;
      if (this.armedSkip === 0) return i;
      this.armedSkip--;
    }
    return -1;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

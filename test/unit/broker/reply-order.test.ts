import { describe, expect, it } from 'vitest';
import { MAX_DEFERRED_REPLIES, ReplyOrder } from '../../../src/broker/reply-order.js';

/** A connection's side of ReplyOrder: what reached the socket, in order, and the ERROR replies of failed work. */
function harness() {
  const written: string[] = [];
  let closed = false;
  const order: ReplyOrder = new ReplyOrder({
    writeNow: (buf) => written.push(buf.toString()),
    replyFailed: (err, op, correl) => written.push(`error ${op} ${correl.toString()}: ${(err as Error).message}`),
    isClosed: () => closed,
  });
  /** What the connection's write() does: hold while replies are outstanding, else write. */
  const write = (text: string): void => {
    if (order.holding) order.hold(Buffer.from(text));
    else written.push(text);
  };
  return { order, written, write, close: () => (closed = true) };
}

function gate<T = void>(): { promise: Promise<T>; open(value: T): void; fail(err: Error): void } {
  let open!: (value: T) => void;
  let fail!: (err: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

describe('ReplyOrder', () => {
  it('writes replies in request order when their work finishes out of order, held frames in their place', async () => {
    const { order, written, write } = harness();
    const a = gate<string>();
    const b = gate<string>();
    write('first');
    expect(order.after(a.promise, (v) => write(`reply ${v}`), 3, Buffer.from('c1'))).toBeUndefined();
    write('held-1');
    void order.after(b.promise, (v) => write(`reply ${v}`), 3, Buffer.from('c2'));
    write('held-2');
    expect(order.heldBytes).toBe('held-1'.length + 'held-2'.length);
    b.open('b');
    await b.promise;
    expect(written).toEqual(['first']);
    a.open('a');
    await order.drained;
    expect(written).toEqual(['first', 'reply a', 'held-1', 'reply b', 'held-2']);
    expect(order.heldBytes).toBe(0);
    expect(order.holding).toBe(false);
    expect(order.settled()).toBeUndefined();
  });

  it('turns failed work, and a reply that throws, into the request ERROR without stalling the ones behind', async () => {
    const { order, written, write } = harness();
    const a = gate();
    const b = gate();
    void order.after(a.promise, () => write('never'), 3, Buffer.from('c1'));
    void order.after(
      b.promise,
      () => {
        throw new Error('encode failed');
      },
      3,
      Buffer.from('c2'),
    );
    write('held');
    a.fail(new Error('fsync failed'));
    b.open();
    await order.drained;
    expect(written).toEqual(['error 3 c1: fsync failed', 'error 3 c2: encode failed', 'held']);
  });

  it('drops held frames once the connection is closed, still running the deferred replies', async () => {
    const { order, written, write, close } = harness();
    const a = gate();
    void order.after(a.promise, () => written.push('reply'), 3, Buffer.from('c1'));
    write('held');
    close();
    a.open();
    await order.drained;
    expect(written).toEqual(['reply']);
  });

  it('makes dispatch wait past MAX_DEFERRED_REPLIES until that reply is out', async () => {
    const { order, written } = harness();
    const gates = Array.from({ length: MAX_DEFERRED_REPLIES + 1 }, () => gate());
    const waits = gates.map((g, i) => order.after(g.promise, () => written.push(`r${i}`), 3, Buffer.from('c')));
    expect(waits.slice(0, MAX_DEFERRED_REPLIES).every((w) => w === undefined)).toBe(true);
    const last = waits[MAX_DEFERRED_REPLIES]!;
    let released = false;
    void last.then(() => (released = true));
    for (const g of gates.slice(1)) g.open();
    await gates[MAX_DEFERRED_REPLIES]!.promise;
    expect(released).toBe(false);
    expect(written).toEqual([]);
    gates[0]!.open();
    await last;
    expect(written.length).toBe(MAX_DEFERRED_REPLIES + 1);
    expect(written.at(-1)).toBe(`r${MAX_DEFERRED_REPLIES}`);
  });
});

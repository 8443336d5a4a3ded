import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { AuthRequest } from '../../src/protocol/messages/auth.js';
import { HeartbeatRequest } from '../../src/protocol/messages/control.js';
import { HelloRequest, WelcomeReply } from '../../src/protocol/messages/hello.js';
import { IdentifyAckReply, IdentifyClientRequest } from '../../src/protocol/messages/identify.js';
import { Op } from '../../src/protocol/opcodes.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

describe('broker handshake and state machine', () => {
  it('HELLO, IDENTIFY_CLIENT and AUTH in open mode reach the authenticated state', async () => {
    await env.start();
    const c = await env.rawConnection();
    const welcome = await c.request(HelloRequest, { version: 1 });
    expect(c.decode(WelcomeReply, welcome)).toEqual({ version: 1 });
    const ident = await c.request(IdentifyClientRequest, { name: 'test', version: '1' });
    expect(c.decode(IdentifyAckReply, ident)).toEqual({ serverName: 'crater', serverVersion: '0.1.0' });
    const ok = await c.request(AuthRequest, { username: 'anyone', password: 'anything' });
    expect(ok.op).toBe(Op.AUTH_OK);
    expect(ok.payload.length).toBe(0);
    const topics = await c.requestFrame(Op.LIST_TOPICS);
    expect(topics.op).toBe(Op.TOPIC_LIST);
  });

  it('HELLO with version 2 closes with ERR 8 and the zero correl', async () => {
    await env.start();
    const c = await env.rawConnection();
    c.send(HelloRequest, { version: 2 });
    const err = await c.waitFor((f) => f.op === Op.ERROR);
    expect(err.correl.equals(Buffer.alloc(16))).toBe(true);
    expect(c.error(err)).toEqual({ code: ErrorCode.BAD_PROTOCOL, message: 'expected v1 got v2' });
    await c.waitClosed();
  });

  it('HELLO shorter than 4 bytes closes with ERR 1', async () => {
    await env.start();
    const c = await env.rawConnection();
    c.sendFrame(Op.HELLO, Buffer.from([0, 1]));
    const err = await c.waitFor((f) => f.op === Op.ERROR);
    expect(c.error(err)?.code).toBe(ErrorCode.BAD_FRAME);
    await c.waitClosed();
  });

  it('a data op before HELLO or AUTH is ERR 1 with the request correl and the connection stays open', async () => {
    await env.start();
    const c = await env.rawConnection();
    const early = await c.requestFrame(Op.LIST_TOPICS);
    expect(c.error(early)).toEqual({ code: ErrorCode.BAD_FRAME, message: 'op 0x08 not allowed in state new' });
    await c.request(HelloRequest, { version: 1 });
    const greeted = await c.requestFrame(Op.LIST_TOPICS);
    expect(c.error(greeted)).toEqual({ code: ErrorCode.BAD_FRAME, message: 'op 0x08 not allowed in state greeted' });
    const again = await c.request(HelloRequest, { version: 1 });
    expect(c.error(again)?.message).toBe('op 0x01 not allowed in state greeted');
    await c.request(AuthRequest, { username: 'u', password: 'p' });
    const second = await c.request(AuthRequest, { username: 'u', password: 'p' });
    expect(c.error(second)?.message).toBe('op 0x02 not allowed in state authenticated');
    expect(c.closed).toBe(false);
  });

  it('an unknown op (and retired PING) is ERR 2 "op 0xNN" and the connection stays open', async () => {
    await env.start();
    const c = await env.raw();
    expect(c.error(await c.requestFrame(0x09))).toEqual({ code: ErrorCode.UNKNOWN_OP, message: 'op 0x09' });
    expect(c.error(await c.requestFrame(0x7f))).toEqual({ code: ErrorCode.UNKNOWN_OP, message: 'op 0x7f' });
    expect(c.error(await c.requestFrame(0x86))).toEqual({ code: ErrorCode.UNKNOWN_OP, message: 'op 0x86' });
    expect((await c.requestFrame(Op.LIST_TOPICS)).op).toBe(Op.TOPIC_LIST);
  });

  it('HEARTBEAT_REQ is answered with the same correl in every state; GOODBYE closes without a reply', async () => {
    await env.start();
    const c = await env.rawConnection();
    const hb = await c.request(HeartbeatRequest, {});
    expect(hb.op).toBe(Op.HEARTBEAT_RESP);
    c.sendFrame(Op.GOODBYE);
    await c.waitClosed();
    expect(c.frames).toEqual([]);
  });

  it('a frame over the max size closes with ERR 9, zero correl; nothing of it is buffered', async () => {
    await env.start({ maxFrameSize: 1024 });
    const c = await env.rawConnection();
    const head = Buffer.alloc(4);
    head.writeUInt32BE(1025);
    c.writeRaw(head);
    const err = await c.waitFor((f) => f.op === Op.ERROR);
    expect(err.correl.equals(Buffer.alloc(16))).toBe(true);
    expect(c.error(err)?.code).toBe(ErrorCode.FRAME_TOO_LARGE);
    await c.waitClosed();
  });

  it('a frame shorter than the header closes with ERR 1 "frame shorter than header"', async () => {
    await env.start();
    const c = await env.rawConnection();
    c.writeRaw(Buffer.from([0, 0, 0, 5, 1, 2, 3, 4, 5]));
    const err = await c.waitFor((f) => f.op === Op.ERROR);
    expect(c.error(err)).toEqual({ code: ErrorCode.BAD_FRAME, message: 'frame shorter than header' });
    await c.waitClosed();
  });
});

/**
 * The share-group wire ops (crater extension, docs/extensions.md): one request and reply each. Every op first checks
 * that the broker identified itself as crater; against any other broker it throws UsageError and sends nothing, so
 * a MoonMQ peer never sees a share frame.
 */
import { UsageError } from '../../errors.js';
import { Caps } from '../../protocol/limits.js';
import { OkReply } from '../../protocol/messages/control.js';
import { ShareAckRequest, ShareAckResultReply } from '../../protocol/messages/share-ack.js';
import type { ShareAckResult, SharePartitionAcks } from '../../protocol/messages/share-acks.js';
import { ShareAlterRequest } from '../../protocol/messages/share-alter.js';
import {
  ShareDescribeRequest,
  ShareDescriptionReply,
  type ShareGroupDescription,
} from '../../protocol/messages/share-describe.js';
import { ShareFetchRequest, ShareRecordsReply, type ShareRecords } from '../../protocol/messages/share-fetch.js';
import { ShareHeartbeatRequest } from '../../protocol/messages/share-heartbeat.js';
import { ShareJoinRequest, ShareMemberReply, type ShareMember } from '../../protocol/messages/share-join.js';
import { ShareLeaveRequest } from '../../protocol/messages/share-leave.js';
import { ShareGroupListReply, ShareListRequest, type ShareGroupListing } from '../../protocol/messages/share-list.js';
import { ShareResetRequest } from '../../protocol/messages/share-reset.js';
import { ShareResetTo } from '../../protocol/opcodes.js';
import type { Session } from './session.js';
import { validateString, validateTopicName } from '../validate.js';

export type { ShareAckResult, ShareGroupDescription, ShareGroupListing, ShareMember, ShareRecords, SharePartitionAcks };

/** Where `resetShareGroup` moves the SPSO: a log end or an exact offset. */
export type ShareResetTarget = 'earliest' | 'latest' | bigint;

export function requireShareSupport(session: Session): void {
  if (!session.server.isCrater) {
    const who = session.server.name ?? 'a broker that did not identify itself';
    throw new UsageError(`share groups need a crater broker; ${session.conn.label} is ${who}, nothing was sent`);
  }
}

function checkGroup(session: Session, group: string): void {
  requireShareSupport(session);
  validateString('share group', group, Caps.group, 1);
}

export async function joinShareGroup(session: Session, group: string, topics: readonly string[]): Promise<ShareMember> {
  checkGroup(session, group);
  if (topics.length === 0) throw new UsageError('a share consumer needs at least one topic');
  for (const t of topics) validateTopicName(t);
  return session.conn.request(ShareJoinRequest, { group, topics: [...topics] }, ShareMemberReply);
}

export async function shareHeartbeat(session: Session, group: string, memberId: string): Promise<void> {
  await session.conn.request(ShareHeartbeatRequest, { group, memberId }, OkReply);
}

export async function leaveShareGroup(session: Session, group: string, memberId: string): Promise<void> {
  await session.conn.request(ShareLeaveRequest, { group, memberId }, OkReply);
}

export async function shareFetch(
  session: Session,
  req: { group: string; memberId: string; maxRecords: number; maxWaitMs: number; acks: SharePartitionAcks[] },
  timeoutMs?: number,
): Promise<ShareRecords> {
  return session.conn.request(ShareFetchRequest, req, ShareRecordsReply, timeoutMs === undefined ? {} : { timeoutMs });
}

export async function shareAck(
  session: Session,
  group: string,
  memberId: string,
  acks: SharePartitionAcks[],
): Promise<ShareAckResult[]> {
  return (await session.conn.request(ShareAckRequest, { group, memberId, acks }, ShareAckResultReply)).results;
}

export async function describeShareGroup(session: Session, group: string): Promise<ShareGroupDescription> {
  checkGroup(session, group);
  return session.conn.request(ShareDescribeRequest, { group }, ShareDescriptionReply);
}

export async function alterShareGroup(
  session: Session,
  group: string,
  config: Readonly<Record<string, string | number | boolean>>,
): Promise<void> {
  checkGroup(session, group);
  const entries = Object.entries(config).map(([key, value]) => ({ key, value: String(value) }));
  if (entries.length === 0) throw new UsageError('alterShareGroup needs at least one config entry');
  for (const e of entries) {
    validateString('config key', e.key, Caps.configKey, 1);
    validateString('config value', e.value, Caps.configValue);
  }
  await session.conn.request(ShareAlterRequest, { group, entries }, OkReply);
}

export async function resetShareGroup(
  session: Session,
  group: string,
  to: ShareResetTarget,
  topic = '',
): Promise<void> {
  checkGroup(session, group);
  if (topic !== '') validateTopicName(topic);
  const target =
    to === 'earliest' ? ShareResetTo.EARLIEST : to === 'latest' ? ShareResetTo.LATEST : ShareResetTo.OFFSET;
  const offset = typeof to === 'bigint' ? to : 0n;
  if (offset < 0n) throw new UsageError(`offset must be ≥ 0, got ${offset}`);
  await session.conn.request(ShareResetRequest, { group, topic, to: target, offset }, OkReply);
}

export async function listShareGroups(session: Session): Promise<ShareGroupListing[]> {
  requireShareSupport(session);
  return (await session.conn.request(ShareListRequest, {}, ShareGroupListReply)).groups;
}

/** The admin ops bound to one session (what `client.shareGroups` returns). */
export interface ShareGroupAdmin {
  describe(group: string): Promise<ShareGroupDescription>;
  alter(group: string, config: Readonly<Record<string, string | number | boolean>>): Promise<void>;
  reset(group: string, to: ShareResetTarget, topic?: string): Promise<void>;
  list(): Promise<ShareGroupListing[]>;
}

export function shareGroupAdmin(session: Session): ShareGroupAdmin {
  return {
    describe: (group) => describeShareGroup(session, group),
    alter: (group, config) => alterShareGroup(session, group, config),
    reset: (group, to, topic) => resetShareGroup(session, group, to, topic),
    list: () => listShareGroups(session),
  };
}

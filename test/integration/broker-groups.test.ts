import { afterEach, describe, expect, it } from 'vitest';
import { GroupState } from '../../src/broker/consumer/index.js';
import { ErrorCode } from '../../src/protocol/error-codes.js';
import { CommitRequest } from '../../src/protocol/messages/commit.js';
import { DeleteGroupRequest } from '../../src/protocol/messages/delete-group.js';
import { DeleteTopicRequest } from '../../src/protocol/messages/delete-topic.js';
import { DescribeGroupRequest, GroupDescriptionReply } from '../../src/protocol/messages/describe-group.js';
import { GroupHeartbeatRequest } from '../../src/protocol/messages/group-heartbeat.js';
import { GroupAssignmentReply, JoinGroupRequest } from '../../src/protocol/messages/join-group.js';
import { LeaveGroupRequest } from '../../src/protocol/messages/leave-group.js';
import { GroupListReply, ListGroupsRequest } from '../../src/protocol/messages/list-groups.js';
import { FetchFlag, Op } from '../../src/protocol/opcodes.js';
import type { RawClient } from '../helpers/raw-client.js';
import { ConsumerHarness, errorCodeOf, eventually, fetchFrames, recordsIn } from '../helpers/consumer-harness.js';

const h = new ConsumerHarness();
afterEach(() => h.cleanup());

async function join(c: RawClient, groupId: string, memberId: string, topics: string[]) {
  return c.decode(GroupAssignmentReply, await c.request(JoinGroupRequest, { groupId, memberId, topics }));
}

async function describeGroup(c: RawClient, groupId: string) {
  return c.decode(GroupDescriptionReply, await c.request(DescribeGroupRequest, { groupId }));
}

describe('JOIN_GROUP and range assignment', () => {
  it('splits 4 partitions over 3 members as 2/1/1 by sorted member id; every subscribed topic is listed', async () => {
    await h.start([
      { name: 'orders', partitions: 4 },
      { name: 'audit', partitions: 1 },
    ]);
    const [a, b, c] = [await h.client(), await h.client(), await h.client()];
    expect(await join(b, 'g', 'member-b', ['orders', 'audit'])).toEqual({
      memberId: 'member-b',
      topics: [
        { topic: 'audit', partitions: [1] },
        { topic: 'orders', partitions: [1, 2, 3, 4] },
      ],
    });
    expect((await join(a, 'g', 'member-a', ['orders', 'audit'])).topics).toEqual([
      { topic: 'audit', partitions: [1] },
      { topic: 'orders', partitions: [1, 2] },
    ]);
    await join(c, 'g', 'member-c', ['orders']);
    const d = await describeGroup(a, 'g');
    expect(d.state).toBe(GroupState.STABLE);
    expect(d.members).toEqual([
      {
        memberId: 'member-a',
        topics: [
          { topic: 'audit', partitions: [1] },
          { topic: 'orders', partitions: [1, 2] },
        ],
      },
      {
        memberId: 'member-b',
        topics: [
          { topic: 'audit', partitions: [] },
          { topic: 'orders', partitions: [3] },
        ],
      },
      { memberId: 'member-c', topics: [{ topic: 'orders', partitions: [4] }] },
    ]);
  });

  it('gives an empty member id 8 hex characters of the connection id, and keeps it on a rejoin', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    const c = await h.client();
    const first = await join(c, 'g', '', ['orders']);
    expect(first.memberId).toMatch(/^[0-9a-f]{8}$/);
    expect((await join(c, 'g', '', ['orders'])).memberId).toBe(first.memberId);
    expect((await describeGroup(c, 'g')).members).toHaveLength(1);
  });

  it('refuses an unknown topic (ERR 5), no topics (ERR 1) and a second group on one connection (ERR 13)', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    const c = await h.client();
    expect(
      errorCodeOf(await c.request(JoinGroupRequest, { groupId: 'g', memberId: 'm', topics: ['orders', 'nope'] })),
    ).toBe(ErrorCode.TOPIC_MISSING);
    expect(errorCodeOf(await c.request(JoinGroupRequest, { groupId: 'g', memberId: 'm', topics: [] }))).toBe(
      ErrorCode.BAD_FRAME,
    );
    await join(c, 'g', 'm', ['orders']);
    expect(
      errorCodeOf(await c.request(JoinGroupRequest, { groupId: 'other', memberId: 'm', topics: ['orders'] })),
    ).toBe(ErrorCode.GROUP_CONFLICT);
    expect(h.rt.groups.get('other')).toBeUndefined();
  });

  it('narrows FETCH to the member’s partitions; after LEAVE_GROUP it reads every partition again', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    await h.append('orders', 1, 2, 'one');
    await h.append('orders', 2, 2, 'two');
    const [a, b] = [await h.client(), await h.client()];
    await join(a, 'g', 'a', ['orders']);
    await join(b, 'g', 'b', ['orders']);
    const fromA = recordsIn(await fetchFrames(a, 'orders', 'g', 10, { flags: FetchFlag.BATCHED }));
    expect(fromA.map((r) => r.partition)).toEqual([1, 1]);
    expect((await b.request(LeaveGroupRequest, { groupId: 'g', memberId: 'ignored' })).op).toBe(Op.OK);
    const fromB = recordsIn(await fetchFrames(b, 'orders', 'g', 10, { flags: FetchFlag.BATCHED }));
    expect(fromB.map((r) => r.value.toString())).toEqual(['two-0', 'two-1']);
    expect(errorCodeOf(await b.request(GroupHeartbeatRequest, { groupId: 'g', memberId: 'b' }))).toBe(
      ErrorCode.GROUP_MEMBER_UNKNOWN,
    );
  });

  it('a closed connection’s member leaves and the group rebalances', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    const [a, b] = [await h.client(), await h.client()];
    await join(a, 'g', 'a', ['orders']);
    await join(b, 'g', 'b', ['orders']);
    await b.close();
    await eventually(() => h.rt.groups.get('g')!.members.size === 1);
    expect((await describeGroup(a, 'g')).members).toEqual([
      { memberId: 'a', topics: [{ topic: 'orders', partitions: [1, 2] }] },
    ]);
  });
});

describe('GROUP_HEARTBEAT and session expiry', () => {
  it('answers OK for the connection’s own group and ERR 12 for another group or no membership', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    const c = await h.client();
    expect(errorCodeOf(await c.request(GroupHeartbeatRequest, { groupId: 'g', memberId: 'm' }))).toBe(
      ErrorCode.GROUP_MEMBER_UNKNOWN,
    );
    await join(c, 'g', 'm', ['orders']);
    expect((await c.request(GroupHeartbeatRequest, { groupId: 'g', memberId: 'anything' })).op).toBe(Op.OK);
    expect(errorCodeOf(await c.request(GroupHeartbeatRequest, { groupId: 'h', memberId: 'm' }))).toBe(
      ErrorCode.GROUP_MEMBER_UNKNOWN,
    );
    expect(errorCodeOf(await c.request(LeaveGroupRequest, { groupId: 'h', memberId: 'm' }))).toBe(
      ErrorCode.GROUP_MEMBER_UNKNOWN,
    );
  });

  it('expires a member by the broker clock (BrokerOptions.clock), not the wall clock', async () => {
    let now = 1_000_000n;
    await h.start([{ name: 'orders', partitions: 1 }], { clock: () => now });
    const c = await h.client();
    await join(c, 'g', 'm', ['orders']);
    now += 29_000n;
    h.rt.reap();
    expect((await describeGroup(c, 'g')).members.map((m) => m.memberId)).toEqual(['m']);
    // Past the 30 s session on the broker clock, though well under it on the wall clock.
    now += 2_000n;
    h.rt.reap();
    expect(errorCodeOf(await c.request(GroupHeartbeatRequest, { groupId: 'g', memberId: 'm' }))).toBe(
      ErrorCode.GROUP_MEMBER_UNKNOWN,
    );
  });

  it('an evicted member reads nothing and its COMMIT is ERR 12 until it joins again', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    await h.append('orders', 1, 2);
    const c = await h.client();
    await join(c, 'g', 'm', ['orders']);
    await fetchFrames(c, 'orders', 'g', 1);
    h.rt.groups.get('g')!.members.get('m')!.lastHeartbeatMs = Date.now() - 31_000;
    h.rt.reap();
    expect(recordsIn(await fetchFrames(c, 'orders', 'g', 10))).toEqual([]);
    expect(errorCodeOf(await c.request(CommitRequest, { topic: 'orders', partition: 1, offset: 0n }))).toBe(
      ErrorCode.GROUP_MEMBER_UNKNOWN,
    );
    expect(errorCodeOf(await c.request(GroupHeartbeatRequest, { groupId: 'g', memberId: 'm' }))).toBe(
      ErrorCode.GROUP_MEMBER_UNKNOWN,
    );
    await join(c, 'g', 'm', ['orders']);
    expect(recordsIn(await fetchFrames(c, 'orders', 'g', 10)).map((r) => r.value.toString())).toEqual(['p1-1']);
  });
});

describe('LIST_GROUPS, DESCRIBE_GROUP, DELETE_GROUP', () => {
  it('lists live groups and groups that only hold offsets (as empty)', async () => {
    await h.start([{ name: 'orders', partitions: 2 }]);
    await h.append('orders', 1, 1);
    const [a, b] = [await h.client(), await h.client()];
    await fetchFrames(a, 'orders', 'offsets-only', 10);
    await join(b, 'g', 'm', ['orders']);
    const list = b.decode(GroupListReply, await b.request(ListGroupsRequest, {}));
    expect(list.groups).toEqual([
      { groupId: 'g', state: 'stable', memberCount: 1 },
      { groupId: 'offsets-only', state: 'empty', memberCount: 0 },
    ]);
  });

  it('describes offsets sorted by (topic, partition); an unknown group is ERR 15', async () => {
    await h.start([
      { name: 'orders', partitions: 2 },
      { name: 'audit', partitions: 1 },
    ]);
    const c = await h.client();
    await fetchFrames(c, 'orders', 'g', 1);
    await fetchFrames(c, 'audit', 'g', 1);
    // Committed past the LEO: stored as sent (the next FETCH would move these cursors back to the LEO).
    await c.request(CommitRequest, { topic: 'orders', partition: 2, offset: 20n });
    await c.request(CommitRequest, { topic: 'orders', partition: 1, offset: 10n });
    await c.request(CommitRequest, { topic: 'audit', partition: 1, offset: 5n });
    expect(await describeGroup(c, 'g')).toEqual({
      groupId: 'g',
      state: 'empty',
      members: [],
      offsets: [
        { topic: 'audit', partition: 1, offset: 5n },
        { topic: 'orders', partition: 1, offset: 10n },
        { topic: 'orders', partition: 2, offset: 20n },
      ],
    });
    expect(errorCodeOf(await c.request(DescribeGroupRequest, { groupId: 'nope' }))).toBe(ErrorCode.GROUP_MISSING);
  });

  it('refuses to delete a group with live members (ERR 16) or an unknown one (ERR 15); a delete survives restart', async () => {
    await h.start([{ name: 'orders', partitions: 1 }]);
    await h.append('orders', 1, 3);
    const [member, admin] = [await h.client(), await h.client()];
    await join(member, 'g', 'm', ['orders']);
    await fetchFrames(member, 'orders', 'g', 2);
    await h.rt.commitsSettled('g');
    // The FETCH's commit landed: the group has a committed offset, where its cursor stands past the 2 records.
    const committed = h.rt.offsets.get('g', 'orders', 1);
    expect(committed).toBeGreaterThan(0n);
    expect(committed).toBe(h.rt.cursors.get('g', 'orders', 1));
    expect(errorCodeOf(await admin.request(DeleteGroupRequest, { groupId: 'g' }))).toBe(ErrorCode.GROUP_NOT_EMPTY);
    expect(errorCodeOf(await admin.request(DeleteGroupRequest, { groupId: 'nope' }))).toBe(ErrorCode.GROUP_MISSING);
    await member.request(LeaveGroupRequest, { groupId: 'g', memberId: 'm' });
    await member.close();
    expect((await admin.request(DeleteGroupRequest, { groupId: 'g' })).op).toBe(Op.OK);
    expect(h.rt.offsets.hasGroup('g')).toBe(false);
    await h.restart();
    expect(h.rt.offsets.hasGroup('g')).toBe(false);
    const c = await h.client();
    expect(recordsIn(await fetchFrames(c, 'orders', 'g', 10))).toHaveLength(3);
  });

  it('DELETE_TOPIC tombstones every group’s offsets for the topic and drops it from assignments', async () => {
    await h.start([
      { name: 'orders', partitions: 2 },
      { name: 'audit', partitions: 1 },
    ]);
    await h.append('orders', 1, 2);
    await h.append('audit', 1, 1);
    const [member, admin] = [await h.client(), await h.client()];
    await join(member, 'g', 'm', ['orders', 'audit']);
    await fetchFrames(member, 'orders', 'g', 10);
    await fetchFrames(member, 'audit', 'g', 10);
    // A FETCH commits once its reply has left the broker, which may be just after the client read it.
    await h.rt.commitsSettled('g');
    expect(h.rt.offsets.offsetsOf('g').map((o) => o.topic)).toEqual(['audit', 'orders']);
    expect((await admin.request(DeleteTopicRequest, { name: 'orders' })).op).toBe(Op.OK);
    expect(h.rt.offsets.offsetsOf('g').map((o) => o.topic)).toEqual(['audit']);
    expect((await describeGroup(admin, 'g')).members).toEqual([
      { memberId: 'm', topics: [{ topic: 'audit', partitions: [1] }] },
    ]);
    await h.restart();
    expect(h.rt.offsets.offsetsOf('g')).toEqual([{ topic: 'audit', partition: 1, offset: expect.any(BigInt) }]);
  });
});

import { describe, expect, it } from 'vitest';
import { GroupCoordinator, GroupState, nextGroupState } from '../../../../src/broker/consumer/group-coordinator.js';
import { HandlerError } from '../../../../src/broker/handler.js';
import { ErrorCode } from '../../../../src/protocol/error-codes.js';

function setup(partitions: Record<string, number> = { orders: 4 }) {
  const clock = { now: 0 };
  const counts = new Map(Object.entries(partitions));
  const coordinator = new GroupCoordinator({
    now: () => clock.now,
    partitionCount: (t) => counts.get(t),
    sessionTimeoutMs: 30_000,
    maxGroups: 2,
  });
  return { clock, counts, coordinator };
}

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof HandlerError ? err.code : -1;
  }
  return undefined;
}

describe('group lifecycle table', () => {
  it('allows only the listed transitions', () => {
    expect(nextGroupState('empty', 'prepare')).toBe('preparing_rebalance');
    expect(nextGroupState('preparing_rebalance', 'complete')).toBe('completing_rebalance');
    expect(nextGroupState('completing_rebalance', 'stabilize')).toBe('stable');
    expect(nextGroupState('stable', 'emptyOut')).toBe('empty');
    expect(nextGroupState('stable', 'die')).toBe('dead');
    expect(() => nextGroupState('empty', 'stabilize')).toThrow(/not allowed/);
  });
});

describe('GroupCoordinator', () => {
  it('rebalances on every join and leave; the group is stable with members and empty without', () => {
    const { coordinator } = setup();
    const a = {};
    const b = {};
    expect(coordinator.join('g', 'm-a', ['orders'], a).get('orders')).toEqual([1, 2, 3, 4]);
    expect(coordinator.get('g')!.state).toBe(GroupState.STABLE);
    expect(coordinator.join('g', 'm-b', ['orders'], b).get('orders')).toEqual([3, 4]);
    expect(coordinator.assignmentOf('g', 'm-a')!.get('orders')).toEqual([1, 2]);
    coordinator.leave('g', 'm-b', b);
    expect(coordinator.assignmentOf('g', 'm-a')!.get('orders')).toEqual([1, 2, 3, 4]);
    coordinator.leave('g', 'm-a', a);
    expect(coordinator.get('g')!.state).toBe(GroupState.EMPTY);
    expect(coordinator.assignmentOf('g', 'm-a')).toBeUndefined();
  });

  it('evicts members whose heartbeats stopped for longer than the session timeout', () => {
    const { clock, coordinator } = setup();
    const a = {};
    const b = {};
    coordinator.join('g', 'a', ['orders'], a);
    coordinator.join('g', 'b', ['orders'], b);
    clock.now = 20_000;
    coordinator.heartbeat('g', 'a', a);
    clock.now = 30_001;
    expect(coordinator.reap()).toEqual([{ groupId: 'g', memberId: 'b' }]);
    expect(coordinator.assignmentOf('g', 'a')!.get('orders')).toEqual([1, 2, 3, 4]);
    expect(codeOf(() => coordinator.heartbeat('g', 'b', b))).toBe(ErrorCode.GROUP_MEMBER_UNKNOWN);
    clock.now = 60_000;
    expect(coordinator.reap()).toEqual([{ groupId: 'g', memberId: 'a' }]);
    expect(coordinator.get('g')!.state).toBe(GroupState.EMPTY);
  });

  it('refuses heartbeats and leaves from a connection that does not hold the membership (ERR 12)', () => {
    const { coordinator } = setup();
    const owner = {};
    coordinator.join('g', 'm', ['orders'], owner);
    expect(codeOf(() => coordinator.heartbeat('g', 'm', {}))).toBe(ErrorCode.GROUP_MEMBER_UNKNOWN);
    expect(codeOf(() => coordinator.leave('other', 'm', owner))).toBe(ErrorCode.GROUP_MEMBER_UNKNOWN);
    expect(coordinator.isMember('g', 'm', owner)).toBe(true);
  });

  it('drops every membership of a closed connection and rebalances the rest', () => {
    const { coordinator } = setup({ orders: 2, audit: 2 });
    const conn = {};
    const other = {};
    coordinator.join('g1', 'x', ['orders'], conn);
    coordinator.join('g1', 'y', ['orders'], other);
    coordinator.join('g2', 'x', ['audit'], conn);
    coordinator.removeOwner(conn);
    expect(coordinator.get('g1')!.members.size).toBe(1);
    expect(coordinator.assignmentOf('g1', 'y')!.get('orders')).toEqual([1, 2]);
    expect(coordinator.get('g2')!.state).toBe(GroupState.EMPTY);
  });

  it('deletes only groups without members (ERR 16 otherwise) and caps live groups (ERR 6)', () => {
    const { coordinator } = setup();
    const o = {};
    coordinator.join('g1', 'm', ['orders'], o);
    coordinator.join('g2', 'm', ['orders'], o);
    expect(codeOf(() => coordinator.join('g3', 'm', ['orders'], o))).toBe(ErrorCode.RATE_LIMITED);
    expect(codeOf(() => coordinator.delete('g1'))).toBe(ErrorCode.GROUP_NOT_EMPTY);
    coordinator.leave('g1', 'm', o);
    expect(coordinator.delete('g1')).toBe(true);
    expect(coordinator.get('g1')).toBeUndefined();
    expect(coordinator.delete('g1')).toBe(false);
  });

  it('rebalances when a topic gains partitions and when a topic is forgotten', () => {
    const { coordinator, counts } = setup({ orders: 2, audit: 1 });
    const a = {};
    const b = {};
    coordinator.join('g', 'a', ['orders', 'audit'], a);
    coordinator.join('g', 'b', ['orders'], b);
    expect(coordinator.assignmentOf('g', 'b')!.get('orders')).toEqual([2]);
    counts.set('orders', 4);
    expect(coordinator.assignmentOf('g', 'b')!.get('orders')).toEqual([3, 4]);
    coordinator.forgetTopic('audit');
    expect([...coordinator.assignmentOf('g', 'a')!.keys()]).toEqual(['orders']);
  });
});

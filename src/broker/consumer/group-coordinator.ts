/**
 * Consumer groups on one broker (wire.md §2.5, semantics.md §11). Rebalances run synchronously inside the call that
 * causes them (join, leave, eviction, a topic's partition count changing), so a group passes through
 * preparing_rebalance and completing_rebalance within one call and is observed as `stable` or `empty`.
 * The clock is injected so session expiry is testable without waiting.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { HandlerError } from '../handler.js';
import { type Assignment, assignRange } from './range-assignor.js';

export const GroupState = {
  EMPTY: 'empty',
  PREPARING_REBALANCE: 'preparing_rebalance',
  COMPLETING_REBALANCE: 'completing_rebalance',
  STABLE: 'stable',
  DEAD: 'dead',
} as const;
export type GroupStateName = (typeof GroupState)[keyof typeof GroupState];

type GroupEvent = 'prepare' | 'complete' | 'stabilize' | 'emptyOut' | 'die';

/** The lifecycle as data: which states each event may leave from, and where it lands. */
const transitions: Record<GroupEvent, { from: readonly GroupStateName[] | '*'; to: GroupStateName }> = {
  prepare: {
    from: [GroupState.EMPTY, GroupState.STABLE, GroupState.COMPLETING_REBALANCE],
    to: GroupState.PREPARING_REBALANCE,
  },
  complete: { from: [GroupState.PREPARING_REBALANCE], to: GroupState.COMPLETING_REBALANCE },
  stabilize: { from: [GroupState.COMPLETING_REBALANCE], to: GroupState.STABLE },
  emptyOut: {
    from: [GroupState.PREPARING_REBALANCE, GroupState.COMPLETING_REBALANCE, GroupState.STABLE],
    to: GroupState.EMPTY,
  },
  die: { from: '*', to: GroupState.DEAD },
};

export function nextGroupState(state: GroupStateName, event: GroupEvent): GroupStateName {
  const t = transitions[event];
  if (t.from !== '*' && !t.from.includes(state)) {
    throw new Error(`group transition ${event} is not allowed from ${state}`);
  }
  return t.to;
}

export const DEFAULT_SESSION_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_GROUPS = 1_024;

export interface GroupMember {
  readonly id: string;
  topics: string[];
  lastHeartbeatMs: number;
  /** Whoever holds the membership (the connection); heartbeats and leaves from anyone else are refused. */
  owner: unknown;
  assignment: Map<string, number[]>;
}

export interface ConsumerGroup {
  readonly id: string;
  state: GroupStateName;
  readonly members: Map<string, GroupMember>;
  /** Partition counts the current assignment was computed from. */
  readonly partitionCounts: Map<string, number>;
}

export interface GroupCoordinatorOptions {
  now: () => number;
  /** The topic's partition count, or undefined when the topic does not exist. */
  partitionCount: (topic: string) => number | undefined;
  sessionTimeoutMs?: number;
  maxGroups?: number;
}

export interface Eviction {
  groupId: string;
  memberId: string;
}

export class GroupCoordinator {
  private readonly groups = new Map<string, ConsumerGroup>();
  private readonly sessionTimeoutMs: number;
  private readonly maxGroups: number;

  constructor(private readonly opts: GroupCoordinatorOptions) {
    this.sessionTimeoutMs = opts.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    this.maxGroups = opts.maxGroups ?? DEFAULT_MAX_GROUPS;
  }

  get(groupId: string): ConsumerGroup | undefined {
    return this.groups.get(groupId);
  }

  /** Adds or refreshes a member and rebalances; returns that member's share. */
  join(groupId: string, memberId: string, topics: readonly string[], owner: unknown): Map<string, number[]> {
    let group = this.groups.get(groupId);
    if (!group) {
      if (this.liveGroupCount() >= this.maxGroups) {
        throw new HandlerError(ErrorCode.RATE_LIMITED, `group limit of ${this.maxGroups} reached`);
      }
      group = { id: groupId, state: GroupState.EMPTY, members: new Map(), partitionCounts: new Map() };
      this.groups.set(groupId, group);
    }
    this.beginRebalance(group);
    const existing = group.members.get(memberId);
    if (existing) {
      existing.topics = [...topics];
      existing.owner = owner;
      existing.lastHeartbeatMs = this.opts.now();
    } else {
      group.members.set(memberId, {
        id: memberId,
        topics: [...topics],
        lastHeartbeatMs: this.opts.now(),
        owner,
        assignment: new Map(),
      });
    }
    this.rebalance(group);
    return group.members.get(memberId)!.assignment;
  }

  heartbeat(groupId: string, memberId: string, owner: unknown): void {
    this.ownedMember(groupId, memberId, owner).lastHeartbeatMs = this.opts.now();
  }

  leave(groupId: string, memberId: string, owner: unknown): void {
    this.ownedMember(groupId, memberId, owner);
    this.removeMember(this.groups.get(groupId)!, memberId);
  }

  /** Drops every membership `owner` holds (the connection closed). */
  removeOwner(owner: unknown): void {
    for (const group of this.groups.values()) {
      for (const m of [...group.members.values()]) {
        if (m.owner === owner) this.removeMember(group, m.id);
      }
    }
  }

  /** Evicts members whose session lapsed; the reaper calls this every reaper interval. */
  reap(): Eviction[] {
    const deadline = this.opts.now() - this.sessionTimeoutMs;
    const evicted: Eviction[] = [];
    for (const group of this.groups.values()) {
      const expired = [...group.members.values()].filter((m) => m.lastHeartbeatMs < deadline);
      if (expired.length === 0) continue;
      for (const m of expired) {
        group.members.delete(m.id);
        evicted.push({ groupId: group.id, memberId: m.id });
      }
      this.afterRemoval(group);
    }
    return evicted;
  }

  /**
   * The member's current share, or undefined when it is not (or no longer) a member. A topic whose partition count
   * changed since the last rebalance triggers one first.
   */
  assignmentOf(groupId: string, memberId: string): Map<string, number[]> | undefined {
    const group = this.groups.get(groupId);
    const member = group?.members.get(memberId);
    if (!group || !member) return undefined;
    for (const [topic, count] of group.partitionCounts) {
      if ((this.opts.partitionCount(topic) ?? 0) !== count) {
        this.beginRebalance(group);
        this.rebalance(group);
        break;
      }
    }
    return member.assignment;
  }

  isMember(groupId: string, memberId: string, owner: unknown): boolean {
    return this.groups.get(groupId)?.members.get(memberId)?.owner === owner;
  }

  /** Removes a group with no live members; false when the coordinator does not know it. */
  delete(groupId: string): boolean {
    const group = this.groups.get(groupId);
    if (!group) return false;
    if (group.members.size > 0) {
      throw new HandlerError(ErrorCode.GROUP_NOT_EMPTY, `group '${groupId}' has ${group.members.size} live member(s)`);
    }
    this.fire(group, 'die');
    this.groups.delete(groupId);
    return true;
  }

  /** Forgets a deleted topic: members stop subscribing to it and groups rebalance. */
  forgetTopic(topic: string): void {
    for (const group of this.groups.values()) {
      if (!group.partitionCounts.has(topic)) continue;
      for (const m of group.members.values()) m.topics = m.topics.filter((t) => t !== topic);
      group.partitionCounts.delete(topic);
      if (group.members.size === 0) continue;
      this.beginRebalance(group);
      this.rebalance(group);
    }
  }

  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  private liveGroupCount(): number {
    let n = 0;
    for (const g of this.groups.values()) if (g.members.size > 0) n++;
    return n;
  }

  private ownedMember(groupId: string, memberId: string, owner: unknown): GroupMember {
    const member = this.groups.get(groupId)?.members.get(memberId);
    if (!member || member.owner !== owner) {
      throw new HandlerError(ErrorCode.GROUP_MEMBER_UNKNOWN, `member '${memberId}' is not in group '${groupId}'`);
    }
    return member;
  }

  private removeMember(group: ConsumerGroup, memberId: string): void {
    if (!group.members.delete(memberId)) return;
    this.afterRemoval(group);
  }

  private afterRemoval(group: ConsumerGroup): void {
    if (group.members.size === 0) {
      group.partitionCounts.clear();
      if (group.state !== GroupState.EMPTY) this.fire(group, 'emptyOut');
      return;
    }
    this.beginRebalance(group);
    this.rebalance(group);
  }

  private rebalance(group: ConsumerGroup): void {
    group.partitionCounts.clear();
    for (const m of group.members.values()) {
      for (const t of m.topics) {
        if (group.partitionCounts.has(t)) continue;
        group.partitionCounts.set(t, this.opts.partitionCount(t) ?? 0);
      }
    }
    const assignment: Assignment = assignRange(group.members.values(), group.partitionCounts);
    for (const [id, share] of assignment) group.members.get(id)!.assignment = share;
    this.fire(group, 'complete');
    this.fire(group, 'stabilize');
  }

  private beginRebalance(group: ConsumerGroup): void {
    if (group.state !== GroupState.PREPARING_REBALANCE) this.fire(group, 'prepare');
  }

  private fire(group: ConsumerGroup, event: GroupEvent): void {
    group.state = nextGroupState(group.state, event);
  }
}

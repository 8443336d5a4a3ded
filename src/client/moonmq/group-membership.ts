/**
 * Consumer-group membership on one connection. The broker binds the member to the connection (LEAVE_GROUP and
 * GROUP_HEARTBEAT ignore their member_id field), so a connection holds at most one membership; the session times
 * out after 30 s without a heartbeat, hence one every ~3 s until leave() or the connection closes.
 */
import { ConnectionError, UsageError } from '../../errors.js';
import { Caps, Limits } from '../../protocol/limits.js';
import { OkReply } from '../../protocol/messages/control.js';
import { GroupHeartbeatRequest } from '../../protocol/messages/group-heartbeat.js';
import { GroupAssignmentReply, JoinGroupRequest, type GroupAssignment } from '../../protocol/messages/join-group.js';
import { LeaveGroupRequest } from '../../protocol/messages/leave-group.js';
import type { Connection } from './connection.js';
import { validateString, validateTopicName } from '../validate.js';

export type { GroupAssignment };

export const DEFAULT_GROUP_HEARTBEAT_MS = 3_000;

export interface JoinGroupOptions {
  /** Empty (the default) asks the broker to assign one. */
  memberId?: string;
  heartbeatIntervalMs?: number;
  /** Called when a heartbeat fails; a closed connection ends the heartbeats silently. */
  onHeartbeatError?: (error: Error) => void;
}

export class GroupMembership {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  private constructor(
    private readonly conn: Connection,
    readonly groupId: string,
    public assignment: GroupAssignment,
    private readonly options: JoinGroupOptions,
  ) {}

  get memberId(): string {
    return this.assignment.memberId;
  }

  static async join(
    conn: Connection,
    groupId: string,
    topics: readonly string[],
    options: JoinGroupOptions = {},
  ): Promise<GroupMembership> {
    validateString('group id', groupId, Caps.group, 1);
    validateString('member id', options.memberId ?? '', Caps.memberId);
    if (topics.length < 1 || topics.length > Limits.joinTopics) {
      throw new UsageError(`joinGroup takes 1..${Limits.joinTopics} topics, got ${topics.length}`);
    }
    for (const t of topics) validateTopicName(t);
    const assignment = await conn.request(
      JoinGroupRequest,
      { groupId, memberId: options.memberId ?? '', topics: [...topics] },
      GroupAssignmentReply,
    );
    const membership = new GroupMembership(conn, groupId, assignment, options);
    membership.schedule();
    return membership;
  }

  /** Number of partitions assigned to this member across its topics. */
  get partitionCount(): number {
    let n = 0;
    for (const t of this.assignment.topics) n += t.partitions.length;
    return n;
  }

  /** Sends LEAVE_GROUP and stops heartbeating. */
  async leave(): Promise<void> {
    this.stop();
    await this.conn.request(LeaveGroupRequest, { groupId: this.groupId, memberId: this.memberId }, OkReply);
  }

  /** Stops heartbeating without telling the broker (the connection is closing anyway). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.beat(), this.options.heartbeatIntervalMs ?? DEFAULT_GROUP_HEARTBEAT_MS);
  }

  private async beat(): Promise<void> {
    if (this.stopped || this.conn.closed) return;
    try {
      await this.conn.request(GroupHeartbeatRequest, { groupId: this.groupId, memberId: this.memberId }, OkReply);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `conn.closed` is changed during the await above; TypeScript keeps the narrowing across it (TypeScript#9998)
      if (error instanceof ConnectionError || this.conn.closed) {
        this.stop();
        return;
      }
      this.options.onHeartbeatError?.(error as Error);
    }
    this.schedule();
  }
}

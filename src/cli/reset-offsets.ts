/**
 * `crater group reset-offsets`, like `kafka-consumer-groups --reset-offsets`: work out each partition's new offset
 * from --to (the position grammar of positions.ts), show it next to the current one, and with --execute commit
 * it. Refused while the group has members: a live member keeps its own cursor and would overwrite the reset with
 * its next commit, so the reset would not be what it says.
 */
import type { Backend as Client } from '../client/backend.js';
import { BrokerError } from '../errors.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { CommandFailure } from './error-report.js';
import { ExitCode } from './exit-codes.js';
import { type Position, commitTargets, resolveTargets } from './positions.js';

export interface ResetRow {
  partition: number;
  /** The group's committed offset before the reset; null when it has none (it would start at 0). */
  current: bigint | null;
  target: bigint;
}

export interface ResetReport {
  group: string;
  topic: string;
  executed: boolean;
  partitions: ResetRow[];
}

export interface ResetRequest {
  group: string;
  topic: string;
  position: Position;
  partitions?: readonly number[] | undefined;
  execute: boolean;
  timeoutMs: number;
}

/** The group's committed offsets on `topic` and its member count; an unknown group has neither. */
async function groupState(
  client: Client,
  group: string,
  topic: string,
): Promise<{ members: number; committed: Map<number, bigint> }> {
  try {
    const d = await client.describeGroup(group);
    return {
      members: d.members.length,
      committed: new Map(d.offsets.filter((o) => o.topic === topic).map((o) => [o.partition, o.offset])),
    };
  } catch (error) {
    if (error instanceof BrokerError && error.errorCode === ErrorCode.GROUP_MISSING)
      return { members: 0, committed: new Map() };
    throw error;
  }
}

export async function resetOffsets(
  client: Client,
  open: () => Promise<Client>,
  request: ResetRequest,
): Promise<ResetReport> {
  const { group, topic } = request;
  const before = await groupState(client, group, topic);
  if (before.members > 0) {
    throw new CommandFailure(
      ExitCode.FAILURE,
      `group ${group} has ${before.members} live member(s); stop them first (a member would overwrite the reset with its next commit)`,
    );
  }
  const targets = await resolveTargets(client, open, topic, request.position, request.partitions);
  const partitions = [...targets]
    .sort(([a], [b]) => a - b)
    .map(([partition, target]) => ({ partition, current: before.committed.get(partition) ?? null, target }));
  if (request.execute) await commitTargets(open, topic, group, targets, request.timeoutMs);
  return { group, topic, executed: request.execute, partitions };
}

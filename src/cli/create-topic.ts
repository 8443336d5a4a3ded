/**
 * `topic create --if-not-exists`. MoonMQ answers an existing name with ERR 7, the code it also uses for storage
 * failures, so "already exists" cannot be told from the error; the topic is described first instead (and again
 * after a failed create, for the race with another creator).
 */
import type { Backend as Client } from '../client/backend.js';
import { BrokerError } from '../errors.js';
import { ErrorCode } from '../protocol/error-codes.js';

export interface CreateOutcome {
  topic: string;
  partitions: number;
  created: boolean;
}

async function partitionCount(client: Client, name: string): Promise<number | undefined> {
  try {
    return (await client.describeTopic(name)).partitionCount;
  } catch (error) {
    if (error instanceof BrokerError && error.errorCode === ErrorCode.TOPIC_MISSING) return undefined;
    throw error;
  }
}

export async function createTopicIfMissing(client: Client, name: string, partitions: number): Promise<CreateOutcome> {
  const existing = await partitionCount(client, name);
  if (existing !== undefined) return { topic: name, partitions: existing, created: false };
  try {
    await client.createTopic(name, partitions);
    return { topic: name, partitions, created: true };
  } catch (error) {
    const raced = await partitionCount(client, name);
    if (raced === undefined) throw error;
    return { topic: name, partitions: raced, created: false };
  }
}

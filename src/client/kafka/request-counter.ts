/**
 * Produce requests a @platformatic/kafka client really sent (retries included), for `crater produce`'s "in N
 * requests": the library keeps no such count, but announces every request on its connections' diagnostics channel
 * with the owning client's instance id. Subscribed only while a counter is registered.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';

/** Kafka's api key of Produce. */
const PRODUCE = 0;

interface ApiContext {
  apiKey?: number;
  connection?: { ownerId?: number };
}

const counts = new Map<number, number>();
/** The start event of the library's tracing channel 'plt:kafka:connections:api' (one per request sent). */
const CHANNEL = 'tracing:plt:kafka:connections:api:start';
function onRequest(message: unknown): void {
  const context = message as ApiContext;
  const owner = context.connection?.ownerId;
  if (context.apiKey !== PRODUCE || owner === undefined || !counts.has(owner)) return;
  counts.set(owner, counts.get(owner)! + 1);
}

/** Counts the Produce requests of the client with this instance id until release(). */
export function countProduceRequests(instanceId: number): void {
  if (counts.size === 0) subscribe(CHANNEL, onRequest);
  if (!counts.has(instanceId)) counts.set(instanceId, 0);
}

export function produceRequests(instanceId: number): number {
  return counts.get(instanceId) ?? 0;
}

/** Stops counting for this client; returns its final count. */
export function releaseProduceRequests(instanceId: number): number {
  const n = counts.get(instanceId) ?? 0;
  if (counts.delete(instanceId) && counts.size === 0) unsubscribe(CHANNEL, onRequest);
  return n;
}

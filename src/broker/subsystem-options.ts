/**
 * The options of the subsystems BrokerOptions configures (consumer groups, transactions), in a file of their own that
 * imports nothing: config.ts names them, and the subsystems read them, without either importing the other.
 */

export interface ConsumerRuntimeOptions {
  /** A member that sends no heartbeat for this long is evicted (wire.md §2.5: 30 s). */
  sessionTimeoutMs?: number;
  /** How often the reaper looks for lapsed members (10 s). */
  reaperIntervalMs?: number;
  /** Push-loop sleep when a pass found nothing (50 ms). */
  pushIntervalMs?: number;
  /** Records per push pass (256). */
  pushBatch?: number;
  /** NACKs before a record goes to `<topic>.dlq` (3). */
  maxDeliveries?: number;
  /** Soft cap on key and value bytes per poll, keeping a reply far below the client's 16 MiB frame limit. */
  pollBytes?: number;
  /** Live groups allowed before JOIN_GROUP of a new one gives ERR 6 (1024). */
  maxGroups?: number;
}

export interface TransactionOptions {
  /** Abort a transaction open this long (ms); 0 disables. Default 15 minutes. */
  timeoutMs?: number;
}

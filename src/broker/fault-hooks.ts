/**
 * Fault injection for tests, as an explicit object a test (or the test-only child-broker entry,
 * test/helpers/fault-broker.mjs) passes in BrokerOptions.faults. Production never sets it, and no environment
 * variable or flag reaches it: the broker calls the hook at named points of its write paths, and the hook decides
 * what happens there (the crash tests SIGKILL the process).
 *
 *   after-prepare-commit    right after a PREPARE_COMMIT is durable, before any COMMIT marker (transactions/coordinator.ts)
 *   after-memo-before-data  inside an idempotent produce, after the memo append, before the data (producer-state/)
 *   mid-batch-data          inside an idempotent produce, after the first partition's data append
 */
export const crashPoints = ['after-prepare-commit', 'after-memo-before-data', 'mid-batch-data'] as const;
export type CrashPoint = (typeof crashPoints)[number];

export interface FaultHooks {
  /** Called synchronously at each crash point the broker passes. */
  crashPoint?(point: CrashPoint): void;
}

/** The broker's public surface. */
export {
  Broker,
  type BrokerAddress,
  type BrokerEvent,
  type BrokerStartOptions,
  INTERNAL_TOPIC_CONFIG,
} from './broker.js';
export {
  type AcksMode,
  type AuthOptions,
  type BrokerConfig,
  BrokerDefaults,
  type BrokerOptions,
  type InitialTopic,
} from './config.js';
export type { BrokerCore, ConsumerRuntime, Logger } from './core.js';
export { Authenticator, DEFAULT_PBKDF2_ITERATIONS, hashPassword, parsePasswordHash, verifyPassword } from './auth.js';
export {
  type AppSettings,
  type LaunchInputs,
  type LaunchOptions,
  launchOptions,
  parseRetentionMs,
  parseTopicSpec,
  readAppSettings,
} from './launch.js';

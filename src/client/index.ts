/** The client library's public surface. */
export { parseBrokerAddress, formatAddress, DEFAULT_PORT, type BrokerAddress } from './address.js';
export {
  Connection,
  brokerError,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  type ConnectionOptions,
  type PushHandler,
  type RequestOptions,
} from './moonmq/connection.js';
export {
  openSession,
  CRATER_SERVER_NAME,
  type ConnectOptions,
  type IsolationName,
  type ServerIdentity,
  type Session,
} from './moonmq/session.js';
export { connect, Client, type ClientEvent, type ClientListener } from './client.js';
// Either backend: `kafka://host:port[,...]` opens Apache Kafka (loaded only then), anything else MoonMQ's protocol.
export { connectBackend } from './connect-backend.js';
export {
  type Backend,
  type BackendBatchConsumer,
  type BackendConsumer,
  type BackendConsumerOptions,
  type BackendGroupFetcher,
  type BackendKind,
  type BackendProducer,
  type BackendProducerOptions,
  KAFKA_SCHEME,
  backendKindOf,
} from './backend.js';
export type { KafkaBackend } from './kafka/kafka-backend.js';
export type {
  ConfigEntries,
  GroupDescription,
  GroupListing,
  ListOffsetsOptions,
  NackAck,
  Offsets,
  TopicDescription,
} from './moonmq/admin.js';
export {
  codecId,
  type BatchResult,
  type ProduceAck,
  type ProduceOptions,
  type ProducerRecord,
} from './moonmq/produce-ops.js';
export { DirectSink } from './moonmq/direct-sink.js';
export { createProducer } from './moonmq/create-producer.js';
export {
  Producer,
  wantsIdempotence,
  type CloseOptions,
  type ProducerIdentity,
  type ProducerOptions,
  type ProduceSink,
  type SendOptions,
} from './producer/producer.js';
export {
  AccumulatorDefaults,
  type AccumulatorOptions,
  type OnBufferFull,
  resolveAccumulatorOptions,
} from './producer/accumulator-options.js';
export type { ProducerClock } from './producer/clock.js';
export type { ProducerMetrics } from './producer/producer-metrics.js';
export { SendRun, type RecordOutcome } from './producer/send-many.js';
export type { PartitionedProduceSink } from './producer/sink.js';
export { backoffMs, retryRule, type RetryRule } from './producer/retry-rule.js';
export { IdempotentSink, type IdempotentSinkOptions } from './moonmq/idempotent-sink.js';
export { TransactionManager, type TransactionOffset, type TransactionState } from './producer/transaction.js';
export { splitBatch, batchEntrySize, batchOverhead, type SplitOptions } from './moonmq/split-batch.js';
export {
  decodeFetchReply,
  DEFAULT_FETCH_MAX_RECORDS,
  type FetchedRecord,
  type FetchOptions,
  type FetchResult,
} from './moonmq/fetch-ops.js';
export { Subscription, type SubscribeOptions } from './moonmq/subscription.js';
export {
  Consumer,
  type ConsumerOptions,
  type PollOptions,
  type RebalanceEvent,
  type RebalanceListener,
  type TopicPartition,
} from './moonmq/consumer.js';
export {
  ShareConsumer,
  type AcknowledgeOptions,
  type ShareAckName,
  type ShareConsumerOptions,
  type ShareConsumerRecord,
} from './moonmq/share-consumer.js';
export {
  type ShareAckResult,
  type ShareGroupAdmin,
  type ShareGroupDescription,
  type ShareGroupListing,
  type ShareResetTarget,
} from './moonmq/share-ops.js';
export {
  GroupMembership,
  DEFAULT_GROUP_HEARTBEAT_MS,
  type GroupAssignment,
  type JoinGroupOptions,
} from './moonmq/group-membership.js';
export { BatchConsumer, BatchDefaults, type BatchConsumerDeps } from './consumer/batch/batch-consumer.js';
export {
  MessageBatch,
  type BatchConsumerEvent,
  type BatchConsumerOptions,
  type BatchConsumerStats,
  type BatchHandler,
  type BatchItem,
  type BatchTransaction,
  type BreakerState,
  type CircuitBreakerOptions,
  type InvalidAction,
  type ItemResult,
  type RateLimitOptions,
  type RetryOptions,
  type TransportContext,
} from './consumer/batch/types.js';
export type { Backoff } from './consumer/batch/backoff.js';
export { systemClock, type Clock } from './consumer/batch/clock.js';
export { DlqHeader, dlqTopicFor } from './consumer/batch/dead-letter.js';
export { tableRowOf } from './consumer/batch/transport.js';

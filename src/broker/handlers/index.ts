/** The broker core's handlers by opcode (the consumer side registers its own in consumer-handlers.ts). */
import { Op } from '../../protocol/opcodes.js';
import type { BrokerHandler } from '../handler-registry.js';
import { handler as alterTopicConfig } from './alter-topic-config.js';
import { handler as beginTxn } from './begin-txn.js';
import { handler as auth } from './auth.js';
import { handler as createPartitions } from './create-partitions.js';
import { handler as createTopic } from './create-topic.js';
import { handler as deleteTopic } from './delete-topic.js';
import { handler as describeTopic } from './describe-topic.js';
import { handler as endTxn } from './end-txn.js';
import { handler as hello } from './hello.js';
import { handler as identify } from './identify.js';
import { handler as initProducerId } from './init-producer-id.js';
import { handler as listOffsets } from './list-offsets.js';
import { handler as listTopics } from './list-topics.js';
import { handler as produceBatch } from './produce-batch.js';
import { handler as produceIdempotent } from './produce-idempotent.js';
import { handler as produce } from './produce.js';
import { handler as txnOffsetCommit } from './txn-offset-commit.js';
import { shareHandlers } from '../share/handlers.js';

export const coreHandlers: ReadonlyArray<readonly [number, BrokerHandler]> = [
  [Op.HELLO, hello],
  [Op.IDENTIFY_CLIENT, identify],
  [Op.AUTH, auth],
  [Op.CREATE_TOPIC, createTopic],
  [Op.CREATE_PARTITIONS, createPartitions],
  [Op.LIST_TOPICS, listTopics],
  [Op.DESCRIBE_TOPIC, describeTopic],
  [Op.DELETE_TOPIC, deleteTopic],
  [Op.ALTER_TOPIC_CONFIG, alterTopicConfig],
  [Op.LIST_OFFSETS, listOffsets],
  [Op.PRODUCE, produce],
  [Op.PRODUCE_BATCH, produceBatch],
  [Op.INIT_PRODUCER_ID, initProducerId],
  [Op.PRODUCE_IDEMPOTENT, produceIdempotent],
  [Op.BEGIN_TXN, beginTxn],
  [Op.END_TXN, endTxn],
  [Op.TXN_OFFSET_COMMIT, txnOffsetCommit],
  ...shareHandlers,
];

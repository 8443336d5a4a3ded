/** One or more representative messages per frame, shared by the round-trip and truncation tests. */
import { BatchFlag, FetchFlag, OffsetsFlag } from '../../../src/protocol/opcodes.js';
import type { ReplyName, RequestName } from '../../../src/protocol/registry.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');

export const requestSamples: Record<RequestName, unknown[]> = {
  HELLO: [{ version: 1 }],
  AUTH: [{ username: 'alice', password: 's3cret' }],
  PRODUCE: [
    { codec: 0, topic: 'orders', key: b('k'), value: b('v') },
    { codec: 2, topic: 'orders', key: b(''), value: Buffer.alloc(300, 7) },
  ],
  FETCH: [
    { topic: 'orders', group: 'g', maxRecords: 10, isolation: undefined, flags: undefined },
    { topic: 'orders', group: 'g', maxRecords: 10, isolation: 1, flags: undefined },
    { topic: 'orders', group: 'g', maxRecords: 100, isolation: 0, flags: FetchFlag.BATCHED | FetchFlag.HEADERS },
  ],
  SUBSCRIBE: [
    { topic: 'orders', group: 'g', isolation: undefined },
    { topic: 'orders', group: 'g', isolation: 1 },
  ],
  COMMIT: [{ topic: 'orders', partition: 3, offset: 12_345_678_901n }],
  CREATE_TOPIC: [{ name: 'orders', numPartitions: 4 }],
  LIST_TOPICS: [{}],
  GOODBYE: [{}],
  HEARTBEAT_REQ: [{}],
  HEARTBEAT_RESP: [{}],
  IDENTIFY_CLIENT: [{ name: 'crater-client', version: '0.1.0' }],
  INIT_PRODUCER_ID: [{ producerName: undefined }, { producerName: 'app' }, { producerName: '' }],
  PRODUCE_IDEMPOTENT: [{ producerId: 7n, seq: 4, epoch: 3, codec: 1, topic: 'orders', key: b('k'), value: b('hello') }],
  JOIN_GROUP: [{ groupId: 'billing', memberId: '', topics: ['orders', 'payments'] }],
  LEAVE_GROUP: [{ groupId: 'billing', memberId: 'abcd1234' }],
  GROUP_HEARTBEAT: [{ groupId: 'billing', memberId: 'abcd1234' }],
  BEGIN_TXN: [{}],
  END_TXN: [{ commit: true }, { commit: false }],
  TXN_OFFSET_COMMIT: [
    {
      group: 'billing',
      offsets: [
        { topic: 'orders', partition: 1, offset: 10n },
        { topic: 'x', partition: 2, offset: 0n },
      ],
    },
  ],
  NACK: [{ topic: 'orders', partition: 2, offset: 4096n, reason: 'poison' }],
  PRODUCE_BATCH: [
    {
      flags: 0,
      codec: 0,
      topic: 'orders',
      records: [
        { key: b('a'), value: b('1') },
        { key: b(''), value: b('') },
      ],
    },
    {
      flags: BatchFlag.IDEMPOTENT,
      codec: 2,
      topic: 'orders',
      producerId: 9n,
      baseSeq: 3,
      epoch: 1,
      records: [{ key: b('a'), value: b('1') }],
    },
    {
      flags: BatchFlag.HEADERS,
      codec: 0,
      topic: 'orders',
      records: [
        {
          key: b('a'),
          value: b('1'),
          headers: [
            { name: 'trace', value: b('t1') },
            { name: 'trace', value: b('') },
          ],
        },
        { key: b('b'), value: b('2'), headers: [] },
      ],
    },
  ],
  LIST_OFFSETS: [
    { topic: 'orders', mode: undefined, timestampMs: undefined },
    { topic: 'orders', mode: 0, timestampMs: undefined },
    { topic: 'orders', mode: 1, timestampMs: 1_700_000_000_000n },
  ],
  DELETE_TOPIC: [{ name: 'orders' }],
  DESCRIBE_TOPIC: [{ name: 'orders' }],
  ALTER_TOPIC_CONFIG: [{ name: 'orders', entries: [{ key: 'retention', value: '3600' }] }],
  LIST_GROUPS: [{}],
  DESCRIBE_GROUP: [{ groupId: 'billing' }],
  DELETE_GROUP: [{ groupId: 'billing' }],
  AUTH_SCRAM: [{ mechanism: 'SCRAM-SHA-256', clientFirst: 'n,,n=alice,r=abc' }],
  AUTH_SCRAM_FINAL: [{ clientFinal: 'c=biws,r=abcdef,p=cHJvb2Y=' }],
  CREATE_PARTITIONS: [{ name: 'orders', newTotal: 8 }],
  SHARE_JOIN: [
    { group: 'workers', topics: ['jobs'] },
    { group: 'w', topics: ['a', 'b'] },
  ],
  SHARE_HEARTBEAT: [{ group: 'workers', memberId: 'm-1' }],
  SHARE_LEAVE: [{ group: 'workers', memberId: 'm-1' }],
  SHARE_FETCH: [
    { group: 'workers', memberId: 'm-1', maxRecords: 500, maxWaitMs: 100, acks: [] },
    {
      group: 'workers',
      memberId: 'm-1',
      maxRecords: 10,
      maxWaitMs: 0,
      acks: [
        {
          topic: 'jobs',
          partition: 2,
          ranges: [
            { firstOffset: 0n, lastOffset: 9n, type: 1, releaseDelayMs: 0, reason: '' },
            { firstOffset: 10n, lastOffset: 10n, type: 2, releaseDelayMs: 5_000, reason: '' },
          ],
        },
      ],
    },
  ],
  SHARE_ACK: [
    {
      group: 'workers',
      memberId: 'm-1',
      acks: [
        {
          topic: 'jobs',
          partition: 1,
          ranges: [{ firstOffset: 7n, lastOffset: 7n, type: 3, releaseDelayMs: 0, reason: 'bad json' }],
        },
      ],
    },
  ],
  SHARE_DESCRIBE: [{ group: 'workers' }],
  SHARE_ALTER: [{ group: 'workers', entries: [{ key: 'delivery.count.limit', value: '3' }] }],
  SHARE_RESET: [
    { group: 'workers', topic: '', to: 0, offset: 0n },
    { group: 'workers', topic: 'jobs', to: 2, offset: 1_234n },
  ],
  SHARE_LIST: [{}],
};

const record = (topic: string, offset: bigint) => ({
  topic,
  partition: 1,
  offset,
  timestamp: 1_700_000_000_000n,
  key: b('k'),
  value: b(`v${offset}`),
});

export const replySamples: Record<ReplyName, unknown[]> = {
  WELCOME: [{ version: 1 }],
  AUTH_OK: [{ serverFinal: undefined }, { serverFinal: 'v=c2lnbmF0dXJl' }],
  PRODUCE_ACK: [{ partition: 2, offset: 31n }],
  RECORD: [record('orders', 31n)],
  TOPIC_LIST: [{ topics: [] }, { topics: ['a', 'orders'] }],
  OK: [{}],
  IDENTIFY_ACK: [{ serverName: 'MoonMQ', serverVersion: 'v0.01' }],
  PRODUCER_ID: [{ producerId: 1n, epoch: 65_535 }],
  GROUP_ASSIGNMENT: [
    {
      memberId: 'abcd1234',
      topics: [
        { topic: 'a', partitions: [] },
        { topic: 'b', partitions: [1, 2] },
      ],
    },
  ],
  NACK_ACK: [
    { deadLettered: false, attempts: 1, dlqTopic: '' },
    { deadLettered: true, attempts: 3, dlqTopic: 'orders.dlq' },
  ],
  PRODUCE_BATCH_ACK: [
    {
      acks: [
        { partition: 1, offset: 0n },
        { partition: 2, offset: 39n },
      ],
      errorCode: 0,
      errorMessage: '',
    },
    { acks: [{ partition: 1, offset: 0n }], errorCode: 7, errorMessage: 'disk full' },
  ],
  RECORD_BATCH: [{ records: [record('orders', 0n), record('orders', 31n), record('payments', 5n)] }],
  OFFSETS: [
    {
      partitions: [
        { partition: 1, earliest: 0n, latest: 62n, highWatermark: 62n, lso: 62n, flags: OffsetsFlag.LOCAL },
        { partition: 2, earliest: 0n, latest: 0n, highWatermark: 0n, lso: 0n, flags: 7 },
      ],
      forTimes: undefined,
    },
    {
      partitions: [{ partition: 1, earliest: 0n, latest: 62n, highWatermark: 62n, lso: 31n, flags: 7 }],
      forTimes: [{ partition: 1, offset: 31n, flags: 1 }],
    },
  ],
  TOPIC_DESCRIPTION: [
    {
      name: 'orders',
      partitionCount: 4,
      config: [
        { key: 'backend', value: 'commitlog' },
        { key: 'retention', value: '60' },
      ],
    },
  ],
  GROUP_LIST: [{ groups: [{ groupId: 'billing', state: 'stable', memberCount: 2 }] }],
  GROUP_DESCRIPTION: [
    {
      groupId: 'billing',
      state: 'stable',
      members: [
        { memberId: 'm1', topics: [{ topic: 'orders', partitions: [1, 2] }] },
        {
          memberId: 'm2',
          topics: [
            { topic: 'orders', partitions: [3] },
            { topic: 'payments', partitions: [] },
          ],
        },
      ],
      offsets: [{ topic: 'orders', partition: 1, offset: 93n }],
    },
  ],
  AUTH_CHALLENGE: [{ serverFirst: 'r=abcdef,s=c2FsdA==,i=4096' }],
  ERROR: [{ code: 5, message: 'nope' }],
  HEARTBEAT_REQ: [{}],
  HEARTBEAT_RESP: [{}],
  SHARE_MEMBER: [
    { memberId: 'm-1', heartbeatIntervalMs: 5_000, sessionTimeoutMs: 45_000, recordLockDurationMs: 30_000 },
  ],
  SHARE_RECORDS: [
    { brokerTimeMs: 1_700_000_000_000n, records: [], results: [] },
    {
      brokerTimeMs: 1_700_000_000_000n,
      records: [
        {
          topic: 'jobs',
          partition: 1,
          offset: 0n,
          timestamp: 1_700_000_000_000n,
          deliveryCount: 1,
          lockDeadlineMs: 1_700_000_030_000n,
          key: b('k'),
          value: b('v'),
        },
        {
          topic: 'jobs',
          partition: 1,
          offset: 1n,
          timestamp: 1_700_000_000_001n,
          deliveryCount: 2,
          lockDeadlineMs: 1_700_000_030_000n,
          key: b(''),
          value: b('second'),
        },
      ],
      results: [{ topic: 'jobs', partition: 1, errorCode: 0, records: 3 }],
    },
  ],
  SHARE_ACK_RESULT: [{ results: [{ topic: 'jobs', partition: 1, errorCode: 60, records: 0 }] }],
  SHARE_DESCRIPTION: [
    {
      group: 'workers',
      state: 1,
      config: [{ key: 'delivery.count.limit', value: '5' }],
      members: [{ memberId: 'm-1', address: '127.0.0.1', acquired: 2, lastSeenMs: 1_700_000_000_000n }],
      partitions: [
        {
          topic: 'jobs',
          partition: 1,
          spso: 3n,
          speo: 10n,
          endOffset: 12n,
          available: 1,
          acquired: 2,
          acknowledged: 3,
          archived: 1,
          oldestLockAgeMs: 1_500n,
          deliveryCounts: [
            { deliveryCount: 1, records: 5 },
            { deliveryCount: 2, records: 2 },
          ],
        },
      ],
    },
  ],
  SHARE_GROUP_LIST: [{ groups: [{ group: 'workers', members: 2, partitions: 4 }] }],
};

export const recordBatchWithHeadersSamples = [
  {
    records: [
      { ...record('orders', 0n), headers: [] },
      { ...record('orders', 1n), headers: [{ name: 'h', value: b('x') }] },
    ],
  },
];

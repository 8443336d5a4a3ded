/**
 * The one place that maps an opcode to its payload codec (wire.md §2.1). Everything else (the broker's dispatch,
 * the client's reply matching) asks these tables instead of switching on the opcode itself.
 *
 * Requests are what a broker receives; replies are what a client receives. HEARTBEAT_REQ and HEARTBEAT_RESP travel
 * both ways, so they sit in both tables. PING (0x09) is retired and absent: it is answered with UNKNOWN_OP.
 * RECORD_BATCH has two layouts, chosen by what the FETCH asked for, so a reply lookup takes the headers mode.
 */
import { ErrorCode } from './error-codes.js';
import type { MessageCodec } from './message.js';
import { AlterTopicConfigRequest } from './messages/alter-topic-config.js';
import { AuthChallengeReply, AuthScramRequest } from './messages/auth-scram.js';
import { AuthScramFinalRequest } from './messages/auth-scram-final.js';
import { AuthOkReply, AuthRequest } from './messages/auth.js';
import { BeginTxnRequest } from './messages/begin-txn.js';
import { CommitRequest } from './messages/commit.js';
import { GoodbyeRequest, HeartbeatReply, HeartbeatRequest, OkReply } from './messages/control.js';
import { CreatePartitionsRequest } from './messages/create-partitions.js';
import { CreateTopicRequest } from './messages/create-topic.js';
import { DeleteGroupRequest } from './messages/delete-group.js';
import { DeleteTopicRequest } from './messages/delete-topic.js';
import { DescribeGroupRequest, GroupDescriptionReply } from './messages/describe-group.js';
import { DescribeTopicRequest, TopicDescriptionReply } from './messages/describe-topic.js';
import { EndTxnRequest } from './messages/end-txn.js';
import { ErrorFrame } from './messages/error.js';
import { FetchRequest, RecordBatchReply, RecordReply, recordBatchCodec } from './messages/fetch.js';
import { GroupHeartbeatRequest } from './messages/group-heartbeat.js';
import { HelloRequest, WelcomeReply } from './messages/hello.js';
import { IdentifyAckReply, IdentifyClientRequest } from './messages/identify.js';
import { InitProducerIdRequest, ProducerIdReply } from './messages/init-producer-id.js';
import { GroupAssignmentReply, JoinGroupRequest } from './messages/join-group.js';
import { LeaveGroupRequest } from './messages/leave-group.js';
import { GroupListReply, ListGroupsRequest } from './messages/list-groups.js';
import { ListOffsetsRequest, OffsetsReply } from './messages/list-offsets.js';
import { ListTopicsRequest, TopicListReply } from './messages/list-topics.js';
import { NackAckReply, NackRequest } from './messages/nack.js';
import { ProduceBatchAckReply, ProduceBatchRequest } from './messages/produce-batch.js';
import { ProduceIdempotentRequest } from './messages/produce-idempotent.js';
import { ProduceAckReply, ProduceRequest } from './messages/produce.js';
import { ShareAckRequest, ShareAckResultReply } from './messages/share-ack.js';
import { ShareAlterRequest } from './messages/share-alter.js';
import { ShareDescribeRequest, ShareDescriptionReply } from './messages/share-describe.js';
import { ShareFetchRequest, ShareRecordsReply } from './messages/share-fetch.js';
import { ShareHeartbeatRequest } from './messages/share-heartbeat.js';
import { ShareJoinRequest, ShareMemberReply } from './messages/share-join.js';
import { ShareLeaveRequest } from './messages/share-leave.js';
import { ShareGroupListReply, ShareListRequest } from './messages/share-list.js';
import { ShareResetRequest } from './messages/share-reset.js';
import { SubscribeRequest } from './messages/subscribe.js';
import { TxnOffsetCommitRequest } from './messages/txn-offset-commit.js';
import { Op, formatOp } from './opcodes.js';
import { Reader } from './reader.js';

/** What a broker receives, by opcode name. */
export const requestCodecs = {
  HELLO: HelloRequest,
  AUTH: AuthRequest,
  PRODUCE: ProduceRequest,
  FETCH: FetchRequest,
  SUBSCRIBE: SubscribeRequest,
  COMMIT: CommitRequest,
  CREATE_TOPIC: CreateTopicRequest,
  LIST_TOPICS: ListTopicsRequest,
  GOODBYE: GoodbyeRequest,
  HEARTBEAT_REQ: HeartbeatRequest,
  HEARTBEAT_RESP: HeartbeatReply,
  IDENTIFY_CLIENT: IdentifyClientRequest,
  INIT_PRODUCER_ID: InitProducerIdRequest,
  PRODUCE_IDEMPOTENT: ProduceIdempotentRequest,
  JOIN_GROUP: JoinGroupRequest,
  LEAVE_GROUP: LeaveGroupRequest,
  GROUP_HEARTBEAT: GroupHeartbeatRequest,
  BEGIN_TXN: BeginTxnRequest,
  END_TXN: EndTxnRequest,
  TXN_OFFSET_COMMIT: TxnOffsetCommitRequest,
  NACK: NackRequest,
  PRODUCE_BATCH: ProduceBatchRequest,
  LIST_OFFSETS: ListOffsetsRequest,
  DELETE_TOPIC: DeleteTopicRequest,
  DESCRIBE_TOPIC: DescribeTopicRequest,
  ALTER_TOPIC_CONFIG: AlterTopicConfigRequest,
  LIST_GROUPS: ListGroupsRequest,
  DESCRIBE_GROUP: DescribeGroupRequest,
  DELETE_GROUP: DeleteGroupRequest,
  AUTH_SCRAM: AuthScramRequest,
  AUTH_SCRAM_FINAL: AuthScramFinalRequest,
  CREATE_PARTITIONS: CreatePartitionsRequest,
  SHARE_JOIN: ShareJoinRequest,
  SHARE_HEARTBEAT: ShareHeartbeatRequest,
  SHARE_LEAVE: ShareLeaveRequest,
  SHARE_FETCH: ShareFetchRequest,
  SHARE_ACK: ShareAckRequest,
  SHARE_DESCRIBE: ShareDescribeRequest,
  SHARE_ALTER: ShareAlterRequest,
  SHARE_RESET: ShareResetRequest,
  SHARE_LIST: ShareListRequest,
} as const;

/** What a client receives, by opcode name. RECORD_BATCH here is the MoonMQ layout; see replyCodecFor. */
export const replyCodecs = {
  WELCOME: WelcomeReply,
  AUTH_OK: AuthOkReply,
  PRODUCE_ACK: ProduceAckReply,
  RECORD: RecordReply,
  TOPIC_LIST: TopicListReply,
  OK: OkReply,
  IDENTIFY_ACK: IdentifyAckReply,
  PRODUCER_ID: ProducerIdReply,
  GROUP_ASSIGNMENT: GroupAssignmentReply,
  NACK_ACK: NackAckReply,
  PRODUCE_BATCH_ACK: ProduceBatchAckReply,
  RECORD_BATCH: RecordBatchReply,
  OFFSETS: OffsetsReply,
  TOPIC_DESCRIPTION: TopicDescriptionReply,
  GROUP_LIST: GroupListReply,
  GROUP_DESCRIPTION: GroupDescriptionReply,
  AUTH_CHALLENGE: AuthChallengeReply,
  SHARE_MEMBER: ShareMemberReply,
  SHARE_RECORDS: ShareRecordsReply,
  SHARE_ACK_RESULT: ShareAckResultReply,
  SHARE_DESCRIPTION: ShareDescriptionReply,
  SHARE_GROUP_LIST: ShareGroupListReply,
  ERROR: ErrorFrame,
  HEARTBEAT_REQ: HeartbeatRequest,
  HEARTBEAT_RESP: HeartbeatReply,
} as const;

export type RequestName = keyof typeof requestCodecs;
export type ReplyName = keyof typeof replyCodecs;
export type MessageOf<C> = C extends MessageCodec<infer T> ? T : never;
export type RequestMessage<N extends RequestName> = MessageOf<(typeof requestCodecs)[N]>;
export type ReplyMessage<N extends ReplyName> = MessageOf<(typeof replyCodecs)[N]>;

/**
 * The success replies of each request (wire.md §2.1); any request may instead get ERROR. FETCH yields RECORD or
 * RECORD_BATCH frames and always ends with OK; GOODBYE and HEARTBEAT_RESP are never answered.
 */
export const successReplies = {
  HELLO: ['WELCOME'],
  AUTH: ['AUTH_OK'],
  PRODUCE: ['PRODUCE_ACK'],
  FETCH: ['RECORD', 'RECORD_BATCH', 'OK'],
  SUBSCRIBE: ['OK'],
  COMMIT: ['OK'],
  CREATE_TOPIC: ['OK'],
  LIST_TOPICS: ['TOPIC_LIST'],
  GOODBYE: [],
  HEARTBEAT_REQ: ['HEARTBEAT_RESP'],
  HEARTBEAT_RESP: [],
  IDENTIFY_CLIENT: ['IDENTIFY_ACK'],
  INIT_PRODUCER_ID: ['PRODUCER_ID'],
  PRODUCE_IDEMPOTENT: ['PRODUCE_ACK'],
  JOIN_GROUP: ['GROUP_ASSIGNMENT'],
  LEAVE_GROUP: ['OK'],
  GROUP_HEARTBEAT: ['OK'],
  BEGIN_TXN: ['OK'],
  END_TXN: ['OK'],
  TXN_OFFSET_COMMIT: ['OK'],
  NACK: ['NACK_ACK'],
  PRODUCE_BATCH: ['PRODUCE_BATCH_ACK'],
  LIST_OFFSETS: ['OFFSETS'],
  DELETE_TOPIC: ['OK'],
  DESCRIBE_TOPIC: ['TOPIC_DESCRIPTION'],
  ALTER_TOPIC_CONFIG: ['OK'],
  LIST_GROUPS: ['GROUP_LIST'],
  DESCRIBE_GROUP: ['GROUP_DESCRIPTION'],
  DELETE_GROUP: ['OK'],
  AUTH_SCRAM: ['AUTH_CHALLENGE'],
  AUTH_SCRAM_FINAL: ['AUTH_OK'],
  CREATE_PARTITIONS: ['OK'],
  SHARE_JOIN: ['SHARE_MEMBER'],
  SHARE_HEARTBEAT: ['OK'],
  SHARE_LEAVE: ['OK'],
  SHARE_FETCH: ['SHARE_RECORDS'],
  SHARE_ACK: ['SHARE_ACK_RESULT'],
  SHARE_DESCRIBE: ['SHARE_DESCRIPTION'],
  SHARE_ALTER: ['OK'],
  SHARE_RESET: ['OK'],
  SHARE_LIST: ['SHARE_GROUP_LIST'],
} as const satisfies Record<RequestName, readonly ReplyName[]>;

type AnyCodec = MessageCodec<unknown>;

function byOpcode(table: Record<string, AnyCodec>): Map<number, { name: string; codec: AnyCodec }> {
  const map = new Map<number, { name: string; codec: AnyCodec }>();
  for (const [name, codec] of Object.entries(table)) map.set(codec.op, { name, codec });
  return map;
}

const requestsByOp = byOpcode(requestCodecs);
const repliesByOp = byOpcode(replyCodecs);
const successRepliesByOp = new Map<number, ReadonlySet<number>>(
  Object.entries(successReplies).map(([req, replies]) => [
    Op[req as RequestName],
    new Set((replies as readonly ReplyName[]).map((name) => Op[name])),
  ]),
);

/** One decoded request: `name` discriminates `message`. */
export type DecodedRequest = {
  [N in RequestName]: { name: N; op: (typeof Op)[N]; message: RequestMessage<N> };
}[RequestName];

/** An opcode with no codec: the broker answers ERROR 2 with `message` and keeps the connection open. */
export interface UnknownOp {
  name: undefined;
  op: number;
  errorCode: typeof ErrorCode.UNKNOWN_OP;
  message: string;
}

function unknownOp(op: number): UnknownOp {
  return { name: undefined, op, errorCode: ErrorCode.UNKNOWN_OP, message: formatOp(op) };
}

export function isSupportedRequestOp(op: number): boolean {
  return requestsByOp.has(op);
}

export function isSupportedReplyOp(op: number): boolean {
  return repliesByOp.has(op);
}

/** False for GOODBYE and HEARTBEAT_RESP, and for opcodes without a codec. */
export function expectsReply(requestOp: number): boolean {
  return (successRepliesByOp.get(requestOp)?.size ?? 0) > 0;
}

/** Whether `replyOp` is one of the success replies of `requestOp` (ERROR is not). */
export function isSuccessReply(requestOp: number, replyOp: number): boolean {
  return successRepliesByOp.get(requestOp)?.has(replyOp) ?? false;
}

/** The codec for a request opcode, or UnknownOp. */
export function requestCodecFor(op: number): { name: RequestName; codec: AnyCodec } | UnknownOp {
  const entry = requestsByOp.get(op);
  return entry ? { name: entry.name as RequestName, codec: entry.codec } : unknownOp(op);
}

/** The codec for a frame a client receives; `recordHeaders` is whether the FETCH set FETCH_FLAG_HEADERS. */
export function replyCodecFor(
  op: number,
  options: { recordHeaders?: boolean } = {},
): { name: ReplyName; codec: AnyCodec } | UnknownOp {
  if (op === Op.RECORD_BATCH) {
    return { name: 'RECORD_BATCH', codec: recordBatchCodec(options.recordHeaders ?? false) };
  }
  const entry = repliesByOp.get(op);
  return entry ? { name: entry.name as ReplyName, codec: entry.codec } : unknownOp(op);
}

/** Decodes a request payload. Throws DecodeError (ERR 1 at the broker) for malformed bytes; unknown ops are data. */
export function decodeRequest(op: number, payload: Buffer): DecodedRequest | UnknownOp {
  const entry = requestsByOp.get(op);
  if (!entry) return unknownOp(op);
  return { name: entry.name, op, message: entry.codec.decode(new Reader(payload)) } as DecodedRequest;
}

/** One decoded reply: `name` discriminates `message`. */
export type DecodedReply = {
  [N in ReplyName]: { name: N; op: (typeof Op)[N]; message: ReplyMessage<N> };
}[ReplyName];

/** Decodes a frame a client received. Throws DecodeError for malformed bytes; unknown ops are data. */
export function decodeReply(
  op: number,
  payload: Buffer,
  options: { recordHeaders?: boolean } = {},
): DecodedReply | UnknownOp {
  const found = replyCodecFor(op, options);
  if ('errorCode' in found) return found;
  return { name: found.name, op, message: found.codec.decode(new Reader(payload)) } as DecodedReply;
}

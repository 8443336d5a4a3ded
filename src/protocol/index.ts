/** The protocol's public API: framing, the strict Reader/Writer, the tables, every frame codec and the registry. */
export { Reader } from './reader.js';
export { Writer, beginFrame, endFrame } from './writer.js';
export { FrameDecoder, type Frame } from './frame-decoder.js';
export {
  PROTOCOL_VERSION,
  FRAME_LENGTH_BYTES,
  CORREL_BYTES,
  FRAME_HEADER_BYTES,
  DEFAULT_MAX_FRAME_SIZE,
  CLIENT_MAX_FRAME_SIZE,
  Caps,
  Limits,
} from './limits.js';
export {
  Op,
  type OpName,
  type OpCode,
  opName,
  isKnownOp,
  isRequestOp,
  isReplyOp,
  formatOp,
  Isolation,
  type IsolationLevel,
  FetchFlag,
  BatchFlag,
  OffsetsFlag,
  ForTimesFlag,
  ListOffsetsMode,
  Codec,
  type CodecId,
  codecNames,
  type CodecName,
} from './opcodes.js';
export { ErrorCode, type ErrorCodeName, type ErrorCodeValue, errorName, isKnownErrorCode } from './error-codes.js';
export {
  type MessageCodec,
  defineMessage,
  emptyMessage,
  encodeFrame,
  encodePayload,
  decodePayload,
  ZERO_CORREL,
} from './message.js';
export { type RecordHeader, readHeaders, writeHeaders, headersSize } from './headers.js';
export { crc32, crc32Portable } from './crc32.js';
export { fnv1a32, partitionForKey } from './fnv1a.js';
export {
  CodecError,
  SNAPPY_MAX_UNCOMPRESSED,
  isSupportedCodec,
  compressValue,
  decompressValue,
  snappyDeclaredLength,
} from './compression.js';

export { type Hello, HelloRequest, WelcomeReply } from './messages/hello.js';
export { type ErrorReply, ErrorFrame } from './messages/error.js';
export { type Empty, OkReply, GoodbyeRequest, HeartbeatRequest, HeartbeatReply } from './messages/control.js';
export { type IdentifyClient, type IdentifyAck, IdentifyClientRequest, IdentifyAckReply } from './messages/identify.js';
export { type Auth, type AuthOk, AuthRequest, AuthOkReply } from './messages/auth.js';
export { type AuthScram, type AuthChallenge, AuthScramRequest, AuthChallengeReply } from './messages/auth-scram.js';
export { type AuthScramFinal, AuthScramFinalRequest } from './messages/auth-scram-final.js';
export { type Produce, type ProduceAck, ProduceRequest, ProduceAckReply } from './messages/produce.js';
export { type ProduceIdempotent, ProduceIdempotentRequest } from './messages/produce-idempotent.js';
export {
  type BatchRecord,
  type ProduceBatch,
  type ProduceBatchAck,
  ProduceBatchRequest,
  ProduceBatchAckReply,
} from './messages/produce-batch.js';
export {
  type Fetch,
  type FetchedRecord,
  type RecordBatch,
  FetchRequest,
  RecordReply,
  RecordBatchReply,
  RecordBatchWithHeadersReply,
  recordBatchCodec,
} from './messages/fetch.js';
export { type Subscribe, SubscribeRequest } from './messages/subscribe.js';
export { type Commit, CommitRequest } from './messages/commit.js';
export { type CreateTopic, CreateTopicRequest } from './messages/create-topic.js';
export { type CreatePartitions, CreatePartitionsRequest } from './messages/create-partitions.js';
export { type TopicList, ListTopicsRequest, TopicListReply } from './messages/list-topics.js';
export { type DeleteTopic, DeleteTopicRequest } from './messages/delete-topic.js';
export {
  type ConfigEntry,
  type DescribeTopic,
  type TopicDescription,
  DescribeTopicRequest,
  TopicDescriptionReply,
} from './messages/describe-topic.js';
export { type AlterTopicConfig, AlterTopicConfigRequest } from './messages/alter-topic-config.js';
export {
  type ListOffsets,
  type PartitionOffsets,
  type OffsetForTime,
  type Offsets,
  ListOffsetsRequest,
  OffsetsReply,
} from './messages/list-offsets.js';
export {
  type InitProducerId,
  type ProducerId,
  InitProducerIdRequest,
  ProducerIdReply,
} from './messages/init-producer-id.js';
export {
  type JoinGroup,
  type TopicPartitions,
  type GroupAssignment,
  JoinGroupRequest,
  GroupAssignmentReply,
} from './messages/join-group.js';
export { type GroupMember, LeaveGroupRequest } from './messages/leave-group.js';
export { GroupHeartbeatRequest } from './messages/group-heartbeat.js';
export { type GroupListing, type GroupList, ListGroupsRequest, GroupListReply } from './messages/list-groups.js';
export {
  type DescribeGroup,
  type GroupMemberDescription,
  type CommittedOffset,
  type GroupDescription,
  DescribeGroupRequest,
  GroupDescriptionReply,
} from './messages/describe-group.js';
export { type DeleteGroup, DeleteGroupRequest } from './messages/delete-group.js';
export { BeginTxnRequest } from './messages/begin-txn.js';
export { type EndTxn, EndTxnRequest } from './messages/end-txn.js';
export { type TxnOffsetCommit, TxnOffsetCommitRequest } from './messages/txn-offset-commit.js';
export { type Nack, type NackAck, NackRequest, NackAckReply } from './messages/nack.js';
// crater share groups (docs/extensions.md)
export { ShareAckType, type ShareAckTypeValue, ShareResetTo, type ShareResetToValue } from './opcodes.js';
export { type ShareAckRange, type ShareAckResult, type SharePartitionAcks } from './messages/share-acks.js';
export { type ShareJoin, type ShareMember, ShareJoinRequest, ShareMemberReply } from './messages/share-join.js';
export { type ShareMemberRef, ShareHeartbeatRequest } from './messages/share-heartbeat.js';
export { ShareLeaveRequest } from './messages/share-leave.js';
export {
  type ShareFetch,
  type ShareRecord,
  type ShareRecords,
  ShareFetchRequest,
  ShareRecordsReply,
} from './messages/share-fetch.js';
export { type ShareAck, type ShareAckResults, ShareAckRequest, ShareAckResultReply } from './messages/share-ack.js';
export {
  type ShareGroupDescription,
  type ShareGroupRef,
  type ShareMemberInfo,
  type SharePartitionInfo,
  ShareDescribeRequest,
  ShareDescriptionReply,
} from './messages/share-describe.js';
export { type ShareAlter, ShareAlterRequest } from './messages/share-alter.js';
export { type ShareReset, ShareResetRequest } from './messages/share-reset.js';
export {
  type ShareGroupList,
  type ShareGroupListing,
  ShareListRequest,
  ShareGroupListReply,
} from './messages/share-list.js';

export {
  requestCodecs,
  replyCodecs,
  successReplies,
  type RequestName,
  type ReplyName,
  type MessageOf,
  type RequestMessage,
  type ReplyMessage,
  type DecodedRequest,
  type DecodedReply,
  type UnknownOp,
  isSupportedRequestOp,
  isSupportedReplyOp,
  expectsReply,
  isSuccessReply,
  requestCodecFor,
  replyCodecFor,
  decodeRequest,
  decodeReply,
} from './registry.js';
export { DLQ_ENVELOPE_VERSION, decodeDlqEnvelope, encodeDlqEnvelope, type DlqEnvelope } from './dlq-envelope.js';

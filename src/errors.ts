/**
 * The few error classes crater throws. Each has a stable `code` a caller can switch on, and takes the standard
 * `cause`. Nothing in crater classifies an error by its message text.
 */

export type CraterErrorCode =
  | 'ERR_DECODE'
  | 'ERR_FRAME_TOO_LARGE'
  | 'ERR_BROKER'
  | 'ERR_CONNECTION'
  | 'ERR_TIMEOUT'
  | 'ERR_CORRUPT'
  | 'ERR_STORAGE'
  | 'ERR_USAGE'
  | 'ERR_UNSUPPORTED'
  | 'ERR_LOG_FENCED'
  | 'ERR_BUFFER_EXHAUSTED'
  | 'ERR_DELIVERY_TIMEOUT'
  | 'ERR_UNCERTAIN_DELIVERY'
  | 'ERR_EXEC_FAILED';

export class CraterError extends Error {
  readonly code: CraterErrorCode;

  constructor(code: CraterErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * What a strict read found wrong, as data (protocol/reader.ts sets it), so a decoder that reports problems instead of
 * throwing maps it without reading the message: too few bytes for a fixed field, a length or count the bytes left
 * cannot hold, a length over its cap, bytes left over where a layout must end, or (`invalid`) a value the layout
 * forbids.
 */
export type DecodeFailureKind =
  | 'short'
  | 'string-past-end'
  | 'string-too-long'
  | 'count-past-end'
  | 'count-over-limit'
  | 'trailing-bytes'
  | 'invalid';

/** Bytes that do not parse: names the field that failed and the byte offset at which it started. */
export class DecodeError extends CraterError {
  readonly field: string;
  readonly offset: number;
  /** The message without its "field at offset n: " prefix. */
  readonly reason: string;
  readonly kind: DecodeFailureKind;

  constructor(
    field: string,
    offset: number,
    reason: string,
    options?: { cause?: unknown; kind?: DecodeFailureKind | undefined },
  ) {
    super('ERR_DECODE', `${field} at offset ${offset}: ${reason}`, options);
    this.field = field;
    this.offset = offset;
    this.reason = reason;
    this.kind = options?.kind ?? 'invalid';
  }
}

/** A frame whose length prefix exceeds the configured maximum; nothing of the claimed size is allocated. */
export class FrameTooLargeError extends CraterError {
  readonly frameLength: number;
  readonly maxFrameSize: number;

  constructor(frameLength: number, maxFrameSize: number) {
    super('ERR_FRAME_TOO_LARGE', `frame length ${frameLength} exceeds the maximum of ${maxFrameSize} bytes`);
    this.frameLength = frameLength;
    this.maxFrameSize = maxFrameSize;
  }
}

/** The broker answered with an ERROR frame (or a non-zero err_code inside an ack). `errorCode` is wire.md §2.4's number. */
export class BrokerError extends CraterError {
  readonly errorCode: number;
  readonly errorName: string;

  constructor(errorCode: number, errorName: string, message: string) {
    super('ERR_BROKER', `${errorName} (${errorCode}): ${message}`);
    this.errorCode = errorCode;
    this.errorName = errorName;
  }
}

/** A socket could not be opened, or closed while requests were pending. */
export class ConnectionError extends CraterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_CONNECTION', message, options);
  }
}

export class TimeoutError extends CraterError {
  constructor(message: string) {
    super('ERR_TIMEOUT', message);
  }
}

/** On-disk bytes that fail validation: names the file and the byte position. */
export class CorruptDataError extends CraterError {
  readonly file: string;
  readonly position: number;

  constructor(file: string, position: number, reason: string) {
    super('ERR_CORRUPT', `${file} at position ${position}: ${reason}`);
    this.file = file;
    this.position = position;
  }
}

export class StorageError extends CraterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_STORAGE', message, options);
  }
}

/**
 * `Broker.stop` ran every step (connections drained, state flushed, every log closed, the lock released) but some
 * failed, typically the final fsync or checkpoint on a full disk. Whatever was acknowledged was durable before; the
 * next start's recovery settles the rest. `failures` holds each step's error.
 */
export class ShutdownIncompleteError extends StorageError {
  readonly failures: readonly unknown[];

  constructor(failures: readonly unknown[]) {
    const first = failures[0];
    super(`the broker stopped, but its final sync failed: ${first instanceof Error ? first.message : String(first)}`, {
      cause: failures.length === 1 ? first : new AggregateError(failures, `${failures.length} shutdown steps failed`),
    });
    this.failures = failures;
  }
}

/** The caller asked for something crater will not do (a wrong flag, a header sent to a MoonMQ broker, …). */
export class UsageError extends CraterError {
  constructor(message: string) {
    super('ERR_USAGE', message);
  }
}

/**
 * A log refused an append, a sync or a read past its durable end because an fsync of it failed earlier. After a
 * failed fsync the kernel may have dropped the dirty pages while reads still see them, so nothing written since the
 * last good fsync can be trusted until the log is reopened and recovery re-reads the files. `cause` is the failure.
 * Carries no file path: its message may reach a client.
 */
export class LogFencedError extends CraterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_LOG_FENCED', message, options);
  }
}

/**
 * A producer's buffer (bufferBytes, or its record cap) had no room: at once with onBufferFull 'reject', after
 * maxBlockMs with 'block'. Nothing was sent.
 */
export class BufferExhaustedError extends CraterError {
  readonly mode: 'block' | 'reject';
  /** Bytes the record would have taken in the buffer. */
  readonly requestedBytes: number;
  readonly bufferBytes: number;
  readonly waitedMs: number;

  constructor(mode: 'block' | 'reject', requestedBytes: number, bufferBytes: number, waitedMs: number, why: string) {
    super('ERR_BUFFER_EXHAUSTED', `producer buffer exhausted (${why}); the record was not sent`);
    this.mode = mode;
    this.requestedBytes = requestedBytes;
    this.bufferBytes = bufferBytes;
    this.waitedMs = waitedMs;
  }
}

/**
 * A record that was definitely not written: its delivery deadline passed (or the producer closed) before it could
 * be sent, or while every attempt so far had been refused before any append. `cause` is the last refusal, if any.
 */
export class DeliveryTimeoutError extends CraterError {
  readonly phase: 'queued' | 'retrying' | 'closing';

  constructor(phase: 'queued' | 'retrying' | 'closing', message: string, options?: { cause?: unknown }) {
    super('ERR_DELIVERY_TIMEOUT', message, options);
    this.phase = phase;
  }
}

/** The request a record rode in when its outcome became unknown. */
export interface DeliveryRequest {
  /** The producer's own request counter (1, 2, …), unique within one producer. */
  requestId: number;
  topic: string;
  /** 1 for the first attempt of the batch, 2 for its first retry, … */
  attempt: number;
  /** Records in that request, and this record's position among them. */
  records: number;
  position: number;
  /** Milliseconds on the producer's clock when the request left. */
  sentAtMs: number;
}

/**
 * A record that may or may not have been written: the connection dropped or the deadline passed after its request
 * left, and the producer could not resend it under the same sequence. Reconcile by the record's own event id.
 */
export class UncertainDeliveryError<R = unknown> extends CraterError {
  readonly record: R;
  readonly request: DeliveryRequest;

  constructor(record: R, request: DeliveryRequest, why: string, options?: { cause?: unknown }) {
    super(
      'ERR_UNCERTAIN_DELIVERY',
      `delivery to ${request.topic} is uncertain (${why}): the record may have been written`,
      options,
    );
    this.record = record;
    this.request = request;
  }
}

/** An Apache Kafka cluster refused a request; `errorCode` and `errorName` are Kafka's own (36, TOPIC_ALREADY_EXISTS). */
export class KafkaBrokerError extends BrokerError {
  readonly backend = 'kafka' as const;
}

/** A backend cannot do what was asked (on Kafka: MoonMQ's NACK, FETCH's legacy reply shape); names the backend. */
export class UnsupportedError extends CraterError {
  readonly backend: string;

  constructor(backend: string, message: string) {
    super('ERR_UNSUPPORTED', `${message} (not supported by the ${backend} backend)`);
    this.backend = backend;
  }
}

/**
 * A value the wire cannot carry in its field (a u8 of 256, a u32 of -1, a u64 past 2^64): refused before a byte is
 * written rather than wrapped. A usage error, since the caller handed crater the value.
 */
export class EncodeError extends UsageError {
  readonly width: string;
  readonly value: number | bigint;

  constructor(width: string, value: number | bigint) {
    super(`${String(value)} does not fit a ${width}`);
    this.width = width;
    this.value = value;
  }
}

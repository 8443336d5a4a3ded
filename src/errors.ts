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
  | 'ERR_UNSUPPORTED';

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

/** The caller asked for something crater will not do (a wrong flag, a header sent to a MoonMQ broker, …). */
export class UsageError extends CraterError {
  constructor(message: string) {
    super('ERR_USAGE', message);
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

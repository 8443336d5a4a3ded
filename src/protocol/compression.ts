import zlib from 'node:zlib';
import snappy from 'snappyjs';
import { CraterError } from '../errors.js';
import { Codec, type CodecId } from './opcodes.js';

/** storage.md §9: the value codecs. Only values are compressed; keys stay plaintext. */

export const SNAPPY_MAX_UNCOMPRESSED = 256 * 1_048_576;

export class CodecError extends CraterError {
  readonly codec: number;
  constructor(codec: number, message: string, options?: { cause?: unknown }) {
    super('ERR_UNSUPPORTED', message, options);
    this.codec = codec;
  }
}

export function isSupportedCodec(codec: number): codec is CodecId {
  return codec === Codec.NONE || codec === Codec.GZIP || codec === Codec.SNAPPY;
}

/** Bytes as a Buffer without copying: the value itself when it already is one (the produce hot path). */
function asBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/**
 * Compresses with gzip (RFC 1952 wrapper, level 9, one member) or raw snappy blocks. With codec none the result
 * shares memory with `value` (the same object when it is a Buffer).
 */
export function compressValue(codec: number, value: Uint8Array): Buffer {
  switch (codec) {
    case Codec.NONE:
      return asBuffer(value);
    case Codec.GZIP:
      return zlib.gzipSync(value, { level: 9 });
    case Codec.SNAPPY:
      return Buffer.from(snappy.compress(asBuffer(value)));
    default:
      throw new CodecError(codec, `compression codec ${codec} unavailable on this broker`);
  }
}

/** Reads the varint uncompressed length a raw snappy block starts with. */
export function snappyDeclaredLength(block: Uint8Array): number {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5 && i < block.length; i++) {
    const b = block[i]!;
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return result;
    shift += 7;
  }
  throw new CodecError(Codec.SNAPPY, 'snappy block has a malformed length varint');
}

export function decompressValue(codec: number, stored: Uint8Array): Buffer {
  switch (codec) {
    case Codec.NONE:
      return asBuffer(stored);
    case Codec.GZIP:
      try {
        // gunzip accepts only the gzip wrapper, as windowBits 31 does.
        return zlib.gunzipSync(stored);
      } catch (cause) {
        throw new CodecError(codec, 'gzip value does not decompress', { cause });
      }
    case Codec.SNAPPY: {
      const declared = snappyDeclaredLength(stored);
      if (declared > SNAPPY_MAX_UNCOMPRESSED) {
        throw new CodecError(codec, `snappy value declares ${declared} bytes, over the 256 MiB limit`);
      }
      try {
        return Buffer.from(snappy.uncompress(asBuffer(stored)));
      } catch (cause) {
        throw new CodecError(codec, 'snappy value does not decompress', { cause });
      }
    }
    default:
      throw new CodecError(codec, `compression codec ${codec} unavailable`);
  }
}

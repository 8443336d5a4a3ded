/**
 * JSON output rule (a contract, documented in README.md):
 *
 * - a bigint (offsets, producer ids, timestamps) is a JSON number when it is a safe integer
 *   (|n| ≤ 2^53 − 1, so every JSON parser reads it back exactly) and a decimal string otherwise;
 * - a Buffer or Uint8Array (keys, values, header values) is a base64 string, unless the command has already turned
 *   it into text.
 *
 * Numbers keep `jq '.offset > 5'` working for every offset a real log reaches; the string fallback never loses a
 * digit of a 64-bit producer id.
 */

export function jsonReplacer(this: unknown, key: string, value: unknown): unknown {
  if (typeof value === 'bigint') {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value.toString();
  }
  // Buffer#toJSON has already run by the time the replacer sees the value; the holder still has the original.
  const original = key === '' ? value : (this as Record<string, unknown> | undefined)?.[key];
  if (original instanceof Uint8Array)
    return Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('base64');
  return value;
}

export function stringifyJson(value: unknown, options: { pretty?: boolean } = {}): string {
  // lib.d.ts says string, but JSON.stringify returns undefined for undefined, a function or a symbol.
  const text = JSON.stringify(value, jsonReplacer, options.pretty === true ? 2 : undefined) as string | undefined;
  return text ?? 'null';
}

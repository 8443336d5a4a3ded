/**
 * kcat-style output templates for `consume -f`. Placeholders:
 *
 *   %t topic   %p partition   %o offset   %T timestamp (ms)   %k key   %s value
 *   %h headers as name=value pairs joined by ","   %K key length   %S value length   %% a literal %
 *   \n newline   \t tab   \r carriage return   \0 NUL   \\ a backslash
 *
 * Keys, values and header values are written as their raw bytes, so `-f '%s'` reproduces a binary value exactly.
 * A record without a key prints nothing for %k and 0 for %K. Unknown placeholders and escapes are usage errors.
 */
import { UsageError } from '../../errors.js';
import type { EnvelopeSource } from './envelope.js';

type Part = string | ((r: EnvelopeSource) => Buffer | string);

const PLACEHOLDERS: Readonly<Record<string, (r: EnvelopeSource) => Buffer | string>> = {
  t: (r) => r.topic,
  p: (r) => String(r.partition),
  o: (r) => r.offset.toString(),
  T: (r) => r.timestamp.toString(),
  k: (r) => r.key,
  s: (r) => r.value,
  K: (r) => String(r.key.length),
  S: (r) => String(r.value.length),
  h: (r) => headerText(r),
};

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\' };

function headerText(r: EnvelopeSource): Buffer {
  const parts: Buffer[] = [];
  (r.headers ?? []).forEach((h, i) => {
    if (i > 0) parts.push(Buffer.from(','));
    parts.push(Buffer.from(`${h.name}=`, 'utf8'), h.value);
  });
  return Buffer.concat(parts);
}

/** The default when no -f is given: the value and a newline, as kcat prints. */
export const DEFAULT_FORMAT = '%s\\n';

export type RecordFormatter = (record: EnvelopeSource) => Buffer;

export function compileFormat(template: string): RecordFormatter {
  const parts: Part[] = [];
  let literal = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c !== '%' && c !== '\\') {
      literal += c;
      continue;
    }
    const next = template[i + 1];
    if (next === undefined) throw new UsageError(`format "${template}" ends with a lone ${c}`);
    i += 1;
    if (c === '\\') {
      const escaped = ESCAPES[next];
      if (escaped === undefined) throw new UsageError(`format "${template}": unknown escape \\${next}`);
      literal += escaped;
    } else if (next === '%') {
      literal += '%';
    } else {
      const fn = PLACEHOLDERS[next];
      if (fn === undefined)
        throw new UsageError(`format "${template}": unknown placeholder %${next} (use %t %p %o %T %k %s %h %K %S)`);
      if (literal !== '') parts.push(literal);
      literal = '';
      parts.push(fn);
    }
  }
  if (literal !== '') parts.push(literal);
  const fixed = parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p));
  return (record) => Buffer.concat(fixed.map((p) => (Buffer.isBuffer(p) ? p : toBuffer(p(record)))));
}

function toBuffer(v: Buffer | string): Buffer {
  return typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
}

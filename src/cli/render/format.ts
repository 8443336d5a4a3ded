/** Human formatting for sizes and durations. Binary units for bytes (a 1 GiB segment prints as "1.00 GiB"). */

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

export function formatBytes(bytes: number | bigint): string {
  const n = typeof bytes === 'bigint' ? Number(bytes) : bytes;
  if (!Number.isFinite(n)) return String(bytes);
  const sign = n < 0 ? '-' : '';
  let v = Math.abs(n);
  if (v < 1024) return `${sign}${v} B`;
  let unit = 0;
  while (v >= 1024 && unit < BYTE_UNITS.length - 1) {
    v /= 1024;
    unit += 1;
  }
  // 1023.995 KiB would round to "1024.00 KiB"; show it as the next unit instead.
  if (v.toFixed(2) === '1024.00' && unit < BYTE_UNITS.length - 1) {
    v /= 1024;
    unit += 1;
  }
  return `${sign}${v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ${BYTE_UNITS[unit]}`;
}

/**
 * Milliseconds to a short human string: "850 µs", "12.3 ms", "4.56 s", "2m 03s", "1h 02m". Sub-millisecond values
 * matter for latency percentiles.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? '-' : '';
  const v = Math.abs(ms);
  if (v < 1) return `${sign}${Math.round(v * 1000)} µs`;
  if (v < 1000) return `${sign}${v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ms`;
  const s = v / 1000;
  if (s < 60) return `${sign}${s.toFixed(s < 10 ? 2 : 1)} s`;
  const totalSeconds = Math.round(s);
  if (totalSeconds < 3600) {
    return `${sign}${Math.floor(totalSeconds / 60)}m ${String(totalSeconds % 60).padStart(2, '0')}s`;
  }
  const totalMinutes = Math.round(totalSeconds / 60);
  return `${sign}${Math.floor(totalMinutes / 60)}h ${String(totalMinutes % 60).padStart(2, '0')}m`;
}

/**
 * Thousands separators for counts ("1,048,576"), as en-US writes them so output does not depend on the locale.
 * Integers are grouped by hand: the first toLocaleString of a process loads ICU's locale data (~20 ms of CPU, at the
 * end of every `crater produce`); anything else (fractions, NaN, Infinity) still goes to toLocaleString.
 */
export function formatCount(n: number | bigint): string {
  if (typeof n === 'number' && !Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(n < 0 ? -n : n);
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

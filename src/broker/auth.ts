/**
 * Plain AUTH (wire.md §2.5): open mode accepts any credentials; a configured user is verified against
 * `pbkdf2-sha256$<iterations>$<salt_hex>$<hash_hex>` with an async PBKDF2 and a constant-time compare. Repeated
 * failures from one IP lock that IP out for a while (refused with ERR 4 before any PBKDF2 work).
 */
import { pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { AuthOptions } from './config.js';

const pbkdf2Async = promisify(pbkdf2);
export const DEFAULT_PBKDF2_ITERATIONS = 600_000;
const PREFIX = 'pbkdf2-sha256';
/** Failure records kept at most; the oldest are dropped first so a scan of many IPs cannot grow memory. */
const MAX_TRACKED_IPS = 10_000;

export interface ParsedPasswordHash {
  iterations: number;
  salt: Buffer;
  hash: Buffer;
}

export function parsePasswordHash(encoded: string): ParsedPasswordHash {
  const parts = encoded.split('$');
  const iterations = Number(parts[1]);
  if (parts.length !== 4 || parts[0] !== PREFIX || !Number.isInteger(iterations) || iterations < 1) {
    throw new RangeError(`password hash must look like ${PREFIX}$<iterations>$<salt_hex>$<hash_hex>`);
  }
  const hex = /^(?:[0-9a-fA-F]{2})+$/;
  if (!hex.test(parts[2]!) || !hex.test(parts[3]!)) throw new RangeError('password hash salt and hash must be hex');
  return { iterations, salt: Buffer.from(parts[2]!, 'hex'), hash: Buffer.from(parts[3]!, 'hex') };
}

export async function hashPassword(password: string, iterations: number = DEFAULT_PBKDF2_ITERATIONS): Promise<string> {
  if (!Number.isInteger(iterations) || iterations < 1)
    throw new RangeError(`iterations must be a positive integer, got ${iterations}`);
  const salt = randomBytes(16);
  const hash = await pbkdf2Async(password, salt, iterations, 32, 'sha256');
  return `${PREFIX}$${iterations}$${salt.toString('hex')}$${hash.toString('hex')}`;
}

export async function verifyPassword(password: string, encoded: string | ParsedPasswordHash): Promise<boolean> {
  const parsed = typeof encoded === 'string' ? parsePasswordHash(encoded) : encoded;
  const actual = await pbkdf2Async(password, parsed.salt, parsed.iterations, parsed.hash.length, 'sha256');
  return timingSafeEqual(actual, parsed.hash);
}

interface Failures {
  count: number;
  lockedUntil: number;
}

export class Authenticator {
  private readonly expected: ParsedPasswordHash | undefined;
  private readonly failures = new Map<string, Failures>();

  constructor(
    private readonly auth: AuthOptions | undefined,
    private readonly maxFailures: number,
    private readonly lockoutMs: number,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.expected = auth ? parsePasswordHash(auth.passwordHash) : undefined;
  }

  get openMode(): boolean {
    return this.auth === undefined;
  }

  isLockedOut(ip: string): boolean {
    const f = this.failures.get(ip);
    if (!f || f.lockedUntil === 0) return false;
    if (this.nowMs() < f.lockedUntil) return true;
    this.failures.delete(ip);
    return false;
  }

  /** True when the credentials are accepted; records the failure (and maybe a lockout) when not. */
  async verify(ip: string, username: string, password: string): Promise<boolean> {
    if (!this.auth || !this.expected) return true;
    const given = Buffer.from(username);
    const wanted = Buffer.from(this.auth.username);
    const userOk = given.length === wanted.length && timingSafeEqual(given, wanted);
    const passwordOk = await verifyPassword(password, this.expected);
    if (userOk && passwordOk) {
      this.failures.delete(ip);
      return true;
    }
    this.recordFailure(ip);
    return false;
  }

  private recordFailure(ip: string): void {
    let f = this.failures.get(ip);
    if (!f) {
      if (this.failures.size >= MAX_TRACKED_IPS) this.failures.delete(this.failures.keys().next().value!);
      f = { count: 0, lockedUntil: 0 };
      this.failures.set(ip, f);
    }
    f.count++;
    if (f.count >= this.maxFailures) f.lockedUntil = this.nowMs() + this.lockoutMs;
  }
}

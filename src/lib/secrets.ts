import crypto from 'node:crypto';
import { promisify } from 'node:util';
import * as argon2 from '@node-rs/argon2';
import type { Algorithm } from '@node-rs/argon2';

const scrypt = promisify(crypto.scrypt) as (pw: string, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Zulip's API key shape: 32 alphanumeric characters. */
export function generateApiKey(): string {
  return randomString(32);
}

export function randomString(len: number): string {
  // Rejection sampling keeps every character equally likely.
  let out = '';
  while (out.length < len) {
    for (const b of crypto.randomBytes(len * 2)) {
      if (b < 248 && out.length < len) out += ALNUM[b % 62];
    }
  }
  return out;
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    crypto.timingSafeEqual(ab, ab);
    return false;
  }
  return crypto.timingSafeEqual(ab, bb);
}

export interface PasswordHashCost {
  memoryKib: number;
  timeCost: number;
}

/**
 * Argon2id at OWASP's recommended minimum (m=19 MiB, t=2, p=1): memory-hard, so a GPU
 * guesses little faster than this server checks. Set once from the config at start
 * (openContext); tests may lower it, production never should.
 */
const OWASP_COST: PasswordHashCost = { memoryKib: 19_456, timeCost: 2 };
let cost: PasswordHashCost = OWASP_COST;

export function setPasswordHashCost(c: PasswordHashCost): void {
  if (!(c.memoryKib >= 8 && c.timeCost >= 1)) throw new Error('password hash cost: memory must be at least 8 KiB and time cost at least 1');
  cost = { ...c };
}

// @node-rs/argon2's Algorithm is a const enum, which tsx cannot inline: Argon2id is 2.
const ARGON2ID = 2 as Algorithm;

export async function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { algorithm: ARGON2ID, memoryCost: cost.memoryKib, timeCost: cost.timeCost, parallelism: 1 });
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  if (stored.startsWith('$argon2')) {
    try {
      return await argon2.verify(stored, password);
    } catch {
      return false;
    }
  }
  return verifyScrypt(password, stored);
}

/**
 * A stored hash made by an older scheme (scrypt) or at a lower cost than today's: the next
 * successful sign-in, which holds the password, replaces it.
 */
export function needsRehash(stored: string | null): boolean {
  if (!stored) return false;
  if (!stored.startsWith('$argon2id$')) return true;
  try {
    const o = argon2.parseOptions(stored);
    return o.memoryCost < cost.memoryKib || o.timeCost < cost.timeCost;
  } catch {
    return true;
  }
}

/** Parley's first scheme, `scrypt$N$r$p$salt$hash` (N=2^15): still verified, upgraded at sign-in. */
async function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024,
  });
  return crypto.timingSafeEqual(key, expected);
}

/** Parley's scrypt hash, as stored before Argon2id: only for tests of the upgrade. */
export async function legacyScryptHash(password: string): Promise<string> {
  const N = 1 << 15, R = 8, P = 1;
  const salt = crypto.randomBytes(16);
  const key = await scrypt(password, salt, 32, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

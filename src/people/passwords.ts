/**
 * Dashboard passwords: scrypt (node:crypto, RFC 7914) with a random 16-byte salt per password,
 * N = 2^15, r = 8, p = 3: one of the equivalents of OWASP's minimum (N = 2^17, r = 8, p = 1) that
 * needs 32 MiB instead of 128 MiB per check (about 0.2-0.5 s of one core). It runs on libuv's thread
 * pool, so the event loop keeps serving. Stored as `scrypt$N$r$p$<salt>$<hash>` (base64url), so the
 * cost can be raised later without breaking stored hashes. Compared in constant time.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const COST = { N: 2 ** 15, r: 8, p: 3 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** scrypt needs 128 · N · r bytes; Node refuses more than maxmem (32 MiB by default, exactly what N = 2^15 needs). */
const MAX_MEMORY = 64 * 1024 * 1024;

/** Shortest and longest password accepted (code points). NIST SP 800-63B: at least 8, allow at least 64. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

interface Cost {
  N: number;
  r: number;
  p: number;
}

function derive(password: string, salt: Buffer, cost: Cost, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, length, { ...cost, maxmem: MAX_MEMORY }, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

/** Why a password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `the password must be at least ${PASSWORD_MIN} characters long`;
  if (length > PASSWORD_MAX) return `the password must be at most ${PASSWORD_MAX} characters long`;
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST, KEY_BYTES);
  return ["scrypt", COST.N, COST.r, COST.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Whether `password` matches a stored hash; false for a hash this code cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const salt = Buffer.from(parts[4]!, "base64url");
  const expected = Buffer.from(parts[5]!, "base64url");
  // Parameters outside what this code writes or could ever afford are refused, not computed.
  if (![N, r, p].every(Number.isSafeInteger) || N < 2 || N > 2 ** 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  if (expected.length < 16 || expected.length > 64 || salt.length < 8) return false;
  const actual = await derive(password, salt, { N, r, p }, expected.length);
  return timingSafeEqual(actual, expected);
}

/**
 * A hash of nothing anyone knows, checked when a sign-in names an unknown email: the answer then
 * takes as long as for a known one, so timing does not tell which emails have a login.
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(24).toString("base64url"));
  return decoy;
}

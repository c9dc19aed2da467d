/**
 * Identifiers from a CSPRNG: search ids, record ids, API keys, request ids.
 * Base62 by rejection sampling so every character is uniformly distributed.
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 62 * 4 = 248: bytes at or above this are rejected to avoid modulo bias. */
const LIMIT = 248;

// Random bytes are drawn from the CSPRNG in blocks and handed out once each (a per-id
// randomBytes() call costs more than the rest of id generation).
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let poolOffset = 0;

function nextByte(): number {
  if (poolOffset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const b = nextByte();
    if (b < LIMIT) out += ALPHABET[b % 62];
  }
  return out;
}

export const SEARCH_ID_PATTERN = "^srch_[0-9A-Za-z]{16}$";
export const RECORD_ID_PATTERN = "^rec_[0-9A-Za-z]{16}$";

/** Id generation is a service so tests can make it deterministic. */
export interface IdGenerator {
  searchId(): string;
  recordId(): string;
  requestId(): string;
  /** A generic opaque id (reservations, keys' public ids, ledger rows). */
  id(prefix: string): string;
}

export const cryptoIds: IdGenerator = {
  searchId: () => "srch_" + randomBase62(16),
  recordId: () => "rec_" + randomBase62(16),
  requestId: () => "req_" + randomBase62(16),
  id: (prefix) => prefix + "_" + randomBase62(16),
};

/**
 * Identifiers from a CSPRNG: search ids, record ids, API keys, request ids.
 * Base62 by rejection sampling so every character is uniformly distributed.
 */
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 62 * 4 = 248: bytes at or above this are rejected to avoid modulo bias. */
const LIMIT = 248;

export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = randomBytes(Math.ceil((length - out.length) * 1.1) + 4);
    for (const b of bytes) {
      if (b >= LIMIT) continue;
      out += ALPHABET[b % 62];
      if (out.length === length) break;
    }
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

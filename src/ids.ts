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

/** How long the ids this process makes share their first characters. */
export const ID_WINDOW_MS = 1000;
const SHARED_CHARS = 4;

/**
 * The 16 characters of a search or record id: the first 4 are shared by every id this process
 * makes within one ID_WINDOW_MS window (drawn from the CSPRNG when the window opens), the other 12
 * are drawn for the id alone (71 bits). Every character still comes from the CSPRNG; the shared
 * part only says that two ids were made by one instance in the same second.
 *
 * Why: the stores index sessions and records by these ids. With 16 independent characters each
 * new id lands on a random leaf of its index, so every execute dirtied one leaf page of the
 * sessions index and one per record of the records index, and each of those pages went to the
 * WAL (SQLite) or WAL plus full-page image (PostgreSQL) and was copied again by the checkpoint.
 * Ids that share a prefix go to one place in the index, so a batch of commits dirties a couple of
 * leaves there instead (docs/performance.md, "Clustered ids").
 */
export function windowedIdBody(now: () => number = Date.now): () => string {
  let prefix = "";
  let windowEnds = Number.NEGATIVE_INFINITY;
  return () => {
    const t = now();
    if (t >= windowEnds || t < windowEnds - ID_WINDOW_MS) {
      prefix = randomBase62(SHARED_CHARS);
      windowEnds = t + ID_WINDOW_MS;
    }
    return prefix + randomBase62(16 - SHARED_CHARS);
  };
}

const idBody = windowedIdBody();

export const cryptoIds: IdGenerator = {
  searchId: () => "srch_" + idBody(),
  recordId: () => "rec_" + idBody(),
  requestId: () => "req_" + randomBase62(16),
  id: (prefix) => prefix + "_" + randomBase62(16),
};

/**
 * Every write of the embedded store as data, the protocol between the event loop and the thread
 * that owns the write connection (writer.ts): the ops (WriteOp; people's PeopleWrite; the billing
 * commit's WriterCommit), what comes back (WriteOutcome), and errors as a thread boundary can carry
 * them (WireError).
 */
import { ApiError } from "../../errors.ts";
import {
  type AccountPatch,
  type CommitOp,
  type LoginRow,
  type NewAccount,
  type NewKey,
  type OAuthClientRow,
  type OAuthCodeRow,
  type OAuthGrantRow,
  type OAuthTokenRow,
  type Reservation,
  SessionChanged,
  type WebSessionRow,
} from "../types.ts";

/**
 * CommitOp (types.ts) as the writer takes it: the hold named by id (a hold kept in memory is
 * dropped by the caller, so it sends null), JSON columns still as values. The writer encodes them:
 * on the writer thread that costs the event loop nothing, while cloning the values across costs it
 * less than stringifying them there (docs/performance.md, "Where the event loop's time goes").
 * The caller must not change the op until its write settles.
 */
export type WriterCommit = Omit<CommitOp, "reservation"> & {
  reservationId: string | null;
  /** The key whose limit the call's hold counted against (Reservation.keyId): charged too. */
  keyId?: string;
};

/** Every write, by aggregate: each file applies its own (writer.ts dispatches them). */
export type WriteOp =
  | AccountWrite
  | LedgerWrite
  /** The billing commit (commit.ts, applyCommit). */
  | { t: "commit"; commit: WriterCommit }
  | SessionWrite
  /** Logins, dashboard sessions, OAuth (people.ts; PeopleWrite below). */
  | { t: "people"; op: PeopleWrite };

/** Accounts and keys (accounts.ts, applyAccountWrite). */
export type AccountWrite =
  | { t: "createAccount"; account: NewAccount }
  | { t: "updateAccount"; id: string; patch: AccountPatch }
  | { t: "rollPeriod"; accountId: string; expected: number; next: number }
  | { t: "createKey"; key: NewKey }
  | { t: "revokeKey"; keyId: string; at: number }
  | { t: "setKeyLimit"; keyId: string; limit: number | null; periodStart: number };

/** Credit holds stored in the file (ledger.ts, applyLedgerWrite). */
export type LedgerWrite =
  | { t: "reserve"; reservation: Reservation }
  | { t: "release"; reservation: Reservation }
  | { t: "releaseBefore"; before: number };

/** Search sessions: the sweep of expired ones (sessions.ts, applySessionWrite). */
export type SessionWrite = { t: "sweep"; before: number; limit: number };

/** The people aggregate's writes (people.ts, applyPeopleWrite). */
export type PeopleWrite =
  | { t: "createLogin"; login: LoginRow }
  | { t: "deleteLogin"; id: string }
  | { t: "setLoginPassword"; id: string; passwordHash: string }
  | { t: "noteSignIn"; id: string; at: number }
  | { t: "touchKey"; keyId: string; at: number }
  | { t: "setWebSession"; session: WebSessionRow }
  | { t: "deleteWebSession"; idHash: string }
  | { t: "setting"; name: string; initial: string }
  | { t: "createOAuthClient"; client: OAuthClientRow }
  | { t: "createOAuthCode"; code: OAuthCodeRow }
  | { t: "useOAuthCode"; hash: string; at: number }
  | { t: "createOAuthGrant"; grant: OAuthGrantRow; tokens: OAuthTokenRow[] }
  | { t: "rotateOAuthRefresh"; hash: string; at: number; tokens: OAuthTokenRow[] }
  | { t: "revokeOAuthGrant"; id: string; at: number }
  | { t: "touchOAuthGrant"; id: string; at: number }
  | { t: "sweepPeople"; before: number; limit: number };

/** What a thread boundary can carry of an error: enough to rebuild an ApiError or a SqliteError. */
export interface WireError {
  message: string;
  /** SQLite result code (SQLITE_BUSY, ...) when the driver raised it. */
  sqliteCode?: string;
  /** Set when the op failed with an ApiError (a session swept meanwhile, ...). */
  api?: { code: ApiError["code"]; hint?: string };
  /** Set when the op failed with SessionChanged (its compare-and-set lost). */
  changed?: true;
}

export type WriteOutcome = { ok: true; value: unknown } | { ok: false; error: WireError };

export function toWireError(error: unknown): WireError {
  if (error instanceof SessionChanged) return { message: error.message, changed: true };
  if (error instanceof ApiError) {
    return { message: error.message, api: { code: error.code, ...(error.hint === undefined ? {} : { hint: error.hint }) } };
  }
  const code = (error as { code?: unknown } | null)?.code;
  return {
    message: error instanceof Error ? error.message : String(error),
    ...(typeof code === "string" ? { sqliteCode: code } : {}),
  };
}

/** The error a WireError stands for, on the receiving side (SQLite faults are mapped by the caller). */
export function fromWireError(wire: WireError): Error {
  if (wire.changed) return new SessionChanged();
  if (wire.api) return new ApiError(wire.api.code, wire.message, wire.api.hint === undefined ? {} : { hint: wire.api.hint });
  const error = new Error(wire.message) as Error & { code?: string };
  if (wire.sqliteCode !== undefined) error.code = wire.sqliteCode;
  return error;
}

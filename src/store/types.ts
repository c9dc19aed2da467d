/**
 * The one store interface. Two implementations: embedded SQLite (better-sqlite3, WAL) and
 * PostgreSQL (pg). Both pass the same contract suite (src/store/store-contract.test-suite.ts).
 *
 * Times are epoch milliseconds. JSON columns hold plain JSON values.
 * Every method that changes balances is atomic: `balance.used` can never pass `cap`.
 */
import type { JsonObject, JsonValue, Link } from "../json.ts";
import { ApiError } from "../errors.ts";

export interface AccountRow {
  id: string;
  name: string;
  planId: string;
  status: "free" | "active" | "past_due" | "canceled";
  cadence: "monthly" | "annual" | null;
  creditsUsed: number;
  /** Credits held by in-flight calls (reserved, not yet settled). */
  creditsReserved: number;
  creditsCap: number;
  /** End of the current credit period; null for the free plan's one-time grant. */
  periodEnd: number | null;
  /**
   * Start of the current subscription (epoch ms): a paid plan's periods end on its monthly
   * anniversaries. Set on creation, moved when a different paid plan starts, null on a plan
   * granted once. Not part of the API's Account resource (SPEC §2.9).
   */
  periodAnchor: number | null;
  /**
   * Credits of the one-time grant used before the account left its plan granted once for a paid
   * plan; put back as `creditsUsed` if it returns, so the grant is given once (SPEC §1, §8). 0 for
   * an account that never left such a plan. Not part of the API's Account resource.
   */
  grantUsed: number;
  /** Saved Sharpen stage; null means the plan default. */
  sharpenStage: string | null;
  createdAt: number;
}

export type NewAccount = Omit<AccountRow, "creditsUsed" | "creditsReserved" | "grantUsed">;

/**
 * Fields `updateAccount` can set. `creditsUsed` is for starting a new subscription period (set to
 * 0 with a new `periodAnchor` and `periodEnd`); `creditsReserved` is never patched: holds of calls
 * in flight stay counted and settle against the new period.
 *
 * `grant` moves the one-time grant's usage in the same statement, from the row as it is then (so a
 * charge settling meanwhile is not missed): `"save"` copies `creditsUsed` into `grantUsed` (leaving
 * a plan granted once; `creditsUsed` may be set in the same patch), `"restore"` sets `creditsUsed`
 * back to `grantUsed` (returning to one; a `creditsUsed` in the same patch is ignored).
 */
export type AccountPatch = Partial<
  Pick<
    AccountRow,
    "name" | "planId" | "status" | "cadence" | "creditsUsed" | "creditsCap" | "periodEnd" | "periodAnchor" | "sharpenStage"
  >
> & { grant?: "save" | "restore" };

export interface KeyRow {
  id: string;
  accountId: string;
  /** SHA-256 of the plaintext key, lowercase hex (64 chars). The plaintext is never stored. */
  hash: string;
  /** The first characters of the key (prefix plus 4), safe to show in listings. */
  hint: string;
  name: string;
  createdAt: number;
  revokedAt: number | null;
  /**
   * When the key last authenticated a request, to the minute (each process writes it at most once a
   * minute per key: AccountService.noteUse); null when never. Not changed by the key cache.
   */
  lastUsedAt: number | null;
  /**
   * The key's own credit limit per billing period, checked with the account's cap (docs/architecture.md,
   * "Credits"); null: none, only the account's cap applies. The key lookup carries it, so a call knows
   * without another query whether its key has one.
   */
  creditLimit: number | null;
  /**
   * Credits the key spent in the period that ended at `usedPeriodEnd` (counted while it has a limit).
   * The use of an earlier period is 0 for the current one: see keyUse (accounts.ts). In a cached lookup,
   * as it was when read.
   */
  creditsUsed: number;
  /** Credits held by the key's calls in flight (stored holds; a serving embedded store adds its memory's). */
  creditsReserved: number;
  /** The account's `periodEnd` when `creditsUsed` was last written (null: a plan granted once). */
  usedPeriodEnd: number | null;
}

/** A key as created: its counters start at 0. */
export type NewKey = Omit<KeyRow, "creditsUsed" | "creditsReserved" | "usedPeriodEnd">;

/** A key's budget as a reservation refused by it found it. */
export interface KeyBudget {
  limit: number;
  /** Used in the account's current period (an earlier period's use counts 0). */
  used: number;
  /** Held by the key's calls in flight. */
  reserved: number;
}

export interface LedgerEntry {
  id: string;
  accountId: string;
  keyId: string | null;
  capability: string;
  /** e.g. `execute`, `more`, `update`, `details`, `sharpen`. */
  operation: string;
  credits: number;
  costUsd: number;
  requestId: string;
  createdAt: number;
}

export interface Reservation {
  id: string;
  accountId: string;
  amount: number;
  createdAt: number;
  /**
   * The key whose own limit this hold also counts against: set only when the calling key has a limit
   * (KeyRow.creditLimit), so a call with a key without one never touches the key's row. Its settle
   * charges the key too, its release frees the key's hold too.
   */
  keyId?: string;
}

export interface SessionRow {
  id: string;
  accountId: string;
  capability: string;
  /** The validated query with defaults applied. */
  query: JsonObject;
  /** Paging state owned by the session service (cursor, offsets, positions). */
  state: JsonObject;
  expiresAt: number;
  createdAt: number;
}

export interface CachedAction {
  detail: JsonValue;
  links: Link[];
}

export interface RecordRow {
  id: string;
  searchId: string;
  accountId: string;
  /** Position within the session, unique per session, increasing across pages and updates. */
  position: number;
  summary: JsonObject;
  ref: JsonObject | null;
  detail: JsonObject | null;
  links: Link[] | null;
  /** Record-action results cached after their first call, by action name. */
  actions: Record<string, CachedAction>;
  /**
   * Position of the record that holds this record's page source (SearchPage.source), null when
   * its page kept none. The page's first record holds it.
   */
  sourceAt: number | null;
  /**
   * The page source, on the record at `sourceAt` only. Written with the record; getRecords and
   * getRecord do not read it back (a page's source can be large), getSource does.
   */
  source?: string;
}

/** A person's sign-in to the dashboard of one account (src/people/logins.ts). */
export interface LoginRow {
  id: string;
  accountId: string;
  /** Trimmed and lower-cased; unique across the store. */
  email: string;
  /** `scrypt$<N>$<r>$<p>$<salt>$<hash>` (src/people/passwords.ts); never the password. */
  passwordHash: string;
  createdAt: number;
  lastSignInAt: number | null;
}

/**
 * A dashboard session as @fastify/session keeps it (src/dashboard/session-store.ts). Stored under the
 * SHA-256 of its id: the id (the cookie's value, unsigned) is never stored, so reading the table does
 * not give a cookie that signs in.
 */
export interface WebSessionRow {
  idHash: string;
  /** The signed-in account and login (null before sign-in); deleting either ends the session. */
  accountId: string | null;
  loginId: string | null;
  /** The session's own data (CSRF secret, login, a pending OAuth request), as JSON. */
  data: JsonObject;
  expiresAt: number;
}

/** An OAuth client registered through dynamic client registration (RFC 7591). */
export interface OAuthClientRow {
  id: string;
  /** SHA-256 of its secret (hex); null for a public client (`token_endpoint_auth_method: none`). */
  secretHash: string | null;
  /** The registered metadata as answered at registration, without the secret. */
  metadata: JsonObject;
  createdAt: number;
}

/** An authorization code (stored as its SHA-256), one use, minutes long. */
export interface OAuthCodeRow {
  hash: string;
  clientId: string;
  accountId: string;
  /** The grant its exchange creates; revoked should the code be presented a second time. */
  grantId: string;
  redirectUri: string;
  /** PKCE S256 challenge (RFC 7636). */
  codeChallenge: string;
  scope: string;
  /** The resource (RFC 8707) the tokens are for. */
  resource: string;
  expiresAt: number;
  createdAt: number;
  usedAt: number | null;
}

/** What a person allowed an OAuth client: its tokens act for the account until revoked. */
export interface OAuthGrantRow {
  id: string;
  accountId: string;
  clientId: string;
  clientName: string;
  scope: string;
  resource: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** An access or refresh token of a grant, stored as its SHA-256. */
export interface OAuthTokenRow {
  hash: string;
  grantId: string;
  kind: "access" | "refresh";
  expiresAt: number;
  createdAt: number;
  /** A refresh token once exchanged (it rotates); presenting it again revokes its grant. */
  usedAt: number | null;
}

/** Calls and credits of one capability on one UTC day (`day`: epoch ms of its midnight). */
export interface DailyUsage {
  day: number;
  capability: string;
  calls: number;
  credits: number;
}

/**
 * Records one search can hold over its life (positions 0 … MAX_SESSION_RECORDS - 1). The embedded
 * store files a session's records under seq * MAX_SESSION_RECORDS + position (migration 003); both
 * stores keep the same limit so the contract does not depend on the store. Thousands of `more` pages away.
 */
export const MAX_SESSION_RECORDS = 1_048_576;

/**
 * Everything one successful call writes, committed in one transaction: settle the reservation,
 * append the ledger row, and persist the session/record changes. A crash either keeps all or none.
 */
export interface CommitOp {
  /**
   * The reservation being settled (null when nothing was reserved). With a `keyId`, the charge goes
   * to the key's use as well, and is what fits under both the account's cap and the key's limit.
   */
  reservation: Reservation | null;
  /**
   * The ledger row; its `credits` is added to `used` and must not exceed the reservation. Should the
   * account's room have shrunk since the call reserved (a plan change back to a grant already used),
   * only what fits under the cap is charged, and the row records that (Committed.charged).
   */
  ledger: LedgerEntry;
  newSession?: { session: SessionRow; records: RecordRow[] };
  sessionUpdate?: {
    id: string;
    query?: JsonObject;
    state: JsonObject;
    expiresAt: number;
    records: RecordRow[];
    /**
     * The session's query and state as the call read them. The update applies only while they are
     * still so (compare-and-set): a follow-up on the same search that committed meanwhile (another
     * instance sharing PostgreSQL) fails this one with SessionChanged, writing nothing. PostgreSQL
     * also puts them back should it have to undo the call (a lost COMMIT reply, postgres/lost-calls.ts).
     */
    previous: { query: JsonObject; state: JsonObject };
  };
  /** Cache a record action's result; refused with SessionChanged when the action is cached already. */
  recordAction?: { recordId: string; action: string; result: CachedAction };
  /** Extend a session's life (a record action's use of it); a session gone meanwhile is left gone. */
  touch?: { sessionId: string; expiresAt: number };
}

/**
 * A commit refused because what the call was computed from changed meanwhile: its session's query
 * and state (another follow-up on the search committed first, e.g. on another instance), or its
 * record action was cached by another call. Nothing of the op was written or charged. The search
 * service runs the follow-up again from what is stored now; should it lose every time, the caller
 * gets this 503, which is retryable.
 */
export class SessionChanged extends ApiError {
  constructor() {
    super("service_unavailable", "The search was changed by another call while this one ran.", {
      hint: "Nothing was charged; retry the call.",
    });
    this.name = "SessionChanged";
  }
}

/** What a commit did: the account after it and the credits it charged (the ledger row's). */
export interface Committed {
  account: AccountRow;
  /**
   * The op's ledger credits, or fewer when they did not fit under the cap any more: a settle never
   * takes `used` past `cap` (PROVIDERS.md "Credits"), nor a key's use past its limit (lowered since
   * the call reserved); the part that does not fit is not charged.
   */
  charged: number;
}

/** The store's life and its deployment-wide settings. */
export interface StoreLifecycle {
  readonly kind: "sqlite" | "postgres";
  /** Apply pending migrations (versioned, idempotent). */
  migrate(): Promise<void>;
  /** Cheap liveness probe of the database; rejects when it is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The stored value of a setting, storing `initial` first when there is none (first writer wins). */
  setting(name: string, initial: string): Promise<string>;
}

/** Accounts and their API keys. */
export interface AccountStore {
  // Accounts
  createAccount(account: NewAccount): Promise<AccountRow>;
  getAccount(id: string): Promise<AccountRow | null>;
  listAccounts(): Promise<AccountRow[]>;
  countAccounts(): Promise<number>;
  updateAccount(id: string, patch: AccountPatch): Promise<AccountRow | null>;
  /**
   * Start a new credit period if the current one ended at `expectedPeriodEnd` (compare-and-set):
   * `used` goes to 0 and `periodEnd` to `newPeriodEnd`, the next anniversary of the account's
   * `periodAnchor` (which the roll keeps). A no-op when another call (or a plan change, which
   * moves `periodEnd`) did it first.
   */
  rollPeriod(accountId: string, expectedPeriodEnd: number, newPeriodEnd: number): Promise<void>;

  // Keys
  createKey(key: NewKey): Promise<void>;
  /** One key by id, revoked or not; null when unknown. */
  getKey(keyId: string): Promise<KeyRow | null>;
  /** The key with this hash and its account, revoked or not; null when unknown. */
  findKeyByHash(hash: string): Promise<{ key: KeyRow; account: AccountRow } | null>;
  listKeys(accountId: string): Promise<KeyRow[]>;
  /**
   * Mark revoked (a key revoked already keeps its first time). Returns the key's revocation time
   * after the call (`at`, or the earlier one), or null when there is no such key.
   */
  revokeKey(keyId: string, at: number): Promise<number | null>;
  /**
   * Set a key's own credit limit per period, or remove it (null); forgets the key's cached lookups.
   * A key that had no limit has its use counted afresh from the ledger: its rows since `periodStart`
   * (the start of the account's current period). Holds in flight keep counting. Locks the account's
   * row before the key's, as reserve and commit do. Returns the key after; null when unknown.
   */
  setKeyLimit(keyId: string, limit: number | null, periodStart: number): Promise<KeyRow | null>;
  /** Mark a key used (lastUsedAt); a no-op for an unknown key. */
  touchKey(keyId: string, at: number): Promise<void>;
}

/** The billing ledger: credit holds, the commit that settles a call with what it writes, and the ledger's views. */
export interface LedgerStore {
  // Credits
  /**
   * Hold `reservation.amount` credits if `used + reserved + amount <= cap`, atomically; with a
   * `keyId`, also only if the key's `used + reserved + amount <= limit` (its use in the account's
   * current period), in the same transaction: both held or neither. Returns the account after the
   * attempt and whether it fitted; `key` is set when the key's limit refused it (the account had room).
   */
  reserve(reservation: Reservation): Promise<{ ok: boolean; account: AccountRow | null; key?: KeyBudget }>;
  /** Give a reservation back (the call failed), the key's hold too. Idempotent. Returns the account after. */
  release(reservation: Reservation): Promise<AccountRow | null>;
  /**
   * Release every reservation older than `ageMs` (left by a crash), its key's hold too, aged by the
   * clock that stamped it: the embedded store's process clock; on PostgreSQL the database's, which
   * stamps them too, so instances whose clocks differ agree on a hold's age. Returns how many.
   */
  releaseReservationsOlderThan(ageMs: number): Promise<number>;
  /** Settle and persist one successful call atomically (see CommitOp). */
  commit(op: CommitOp): Promise<Committed>;
  /** Sum of ledger credits of an account (for audits and tests). */
  ledgerTotal(accountId: string): Promise<number>;
  /** Usage per capability and operation since `since`. */
  usage(accountId: string, since: number): Promise<{ capability: string; operation: string; calls: number; credits: number }[]>;

  // Ledger views for the dashboard
  /** Calls and credits per UTC day and capability since `since`, by day then capability. */
  usageByDay(accountId: string, since: number): Promise<DailyUsage[]>;
  /** The account's latest ledger rows, newest first. */
  recentCalls(accountId: string, limit: number): Promise<LedgerEntry[]>;
}

/** Search sessions and their records (written by LedgerStore.commit with the call's charge). */
export interface SearchStore {
  // Sessions and records
  getSession(id: string): Promise<SessionRow | null>;
  /** Records of a session with `from <= position < to`, ordered by position. */
  getRecords(searchId: string, from: number, to: number): Promise<RecordRow[]>;
  /** A record with its session; null when unknown. */
  getRecord(id: string): Promise<{ record: RecordRow; session: SessionRow } | null>;
  /** The page source held by the record at `position` of search `searchId`; null when none. */
  getSource(searchId: string, position: number): Promise<string | null>;
  /** Delete up to `limit` sessions (and their records) that expired before `before`. Returns how many. */
  sweepExpired(before: number, limit: number): Promise<number>;
}

/** People: logins, dashboard sessions and OAuth (docs/dashboard.md). */
export interface PeopleStore {
  /** Store a login; false (nothing written) when its email is taken. */
  createLogin(login: LoginRow): Promise<boolean>;
  findLoginByEmail(email: string): Promise<LoginRow | null>;
  getLogin(id: string): Promise<LoginRow | null>;
  listLogins(accountId: string): Promise<LoginRow[]>;
  /** Delete a login and end its dashboard sessions. False when there is none. */
  deleteLogin(id: string): Promise<boolean>;
  /** Replace a login's password hash and end its dashboard sessions. False when there is none. */
  setLoginPassword(id: string, passwordHash: string): Promise<boolean>;
  noteSignIn(loginId: string, at: number): Promise<void>;

  getWebSession(idHash: string): Promise<WebSessionRow | null>;
  /** Insert or replace. */
  setWebSession(session: WebSessionRow): Promise<void>;
  deleteWebSession(idHash: string): Promise<void>;

  /** Save a client; one whose id exists already has its metadata replaced (a client known by its metadata document, saved again). */
  createOAuthClient(client: OAuthClientRow): Promise<void>;
  getOAuthClient(id: string): Promise<OAuthClientRow | null>;
  createOAuthCode(code: OAuthCodeRow): Promise<void>;
  /**
   * Mark a code used and return it, atomically: `firstUse` is false when it had been used before
   * (a replay). Null when unknown.
   */
  useOAuthCode(hash: string, at: number): Promise<{ code: OAuthCodeRow; firstUse: boolean } | null>;
  /** A grant with its first tokens, in one transaction. */
  createOAuthGrant(grant: OAuthGrantRow, tokens: OAuthTokenRow[]): Promise<void>;
  /** A token with its grant and account; null when unknown. Expiry and revocation are the caller's to check. */
  findOAuthToken(hash: string): Promise<{ token: OAuthTokenRow; grant: OAuthGrantRow; account: AccountRow } | null>;
  /**
   * Exchange a refresh token: mark it used and store `tokens`, atomically, if it is an unused,
   * unexpired refresh token of a grant not revoked ("rotated"). "reused": it had been exchanged before
   * (nothing stored; the caller revokes the grant). "invalid": unknown, expired, not a refresh token,
   * or its grant is revoked.
   */
  rotateOAuthRefresh(hash: string, at: number, tokens: OAuthTokenRow[]): Promise<"rotated" | "reused" | "invalid">;
  listOAuthGrants(accountId: string): Promise<OAuthGrantRow[]>;
  /**
   * Revoke a grant: its tokens stop working (findOAuthToken returns them with the grant's revokedAt)
   * and stay until they expire. Returns its revocation time (the first one), null when unknown.
   */
  revokeOAuthGrant(grantId: string, at: number): Promise<number | null>;
  touchOAuthGrant(grantId: string, at: number): Promise<void>;
  /**
   * Delete up to `limit` each of the dashboard sessions, OAuth codes and OAuth tokens that expired
   * before `before`. Returns how many rows went.
   */
  sweepPeople(before: number, limit: number): Promise<number>;
}

/**
 * The whole store, by aggregate; each service takes only the aggregates it uses. The contract suite
 * (store-contract.test-suite.ts) holds both dialects to all of it.
 */
export interface Store extends StoreLifecycle, AccountStore, LedgerStore, SearchStore, PeopleStore {}

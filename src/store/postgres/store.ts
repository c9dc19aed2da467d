/**
 * The shared store: PostgreSQL through a pg.Pool, for deployments with DATABASE_URL (several
 * service instances on one database). Balance changes are single conditional statements or short
 * transactions on one client, so concurrent instances cannot overspend a cap.
 *
 * This class opens, migrates and closes it and composes its aggregates, each a file of this folder
 * on the same pool (pool.ts): accounts and keys (accounts.ts), the ledger's holds and reads
 * (ledger.ts), the billing commit (commit.ts) and its calls in doubt (lost-calls.ts), search
 * sessions (sessions.ts), people and OAuth (people.ts).
 */
import { InDoubtJournal } from "../in-doubt.ts";
import { KeyCache, type KeyLookup } from "../key-cache.ts";
import type {
  AccountPatch,
  AccountRow,
  Committed,
  CommitOp,
  DailyUsage,
  KeyBudget,
  KeyRow,
  LedgerEntry,
  LoginRow,
  NewAccount,
  NewKey,
  OAuthClientRow,
  OAuthCodeRow,
  OAuthGrantRow,
  OAuthTokenRow,
  RecordRow,
  Reservation,
  SessionRow,
  Store,
  WebSessionRow,
} from "../types.ts";
import { PostgresAccounts } from "./accounts.ts";
import { PostgresCommit } from "./commit.ts";
import { PostgresLedger } from "./ledger.ts";
import { type LostCallReport, PostgresLostCalls } from "./lost-calls.ts";
import { applyMigrations, createSchema } from "./migrations.ts";
import { PostgresPeople } from "./people.ts";
import { PgPool } from "./pool.ts";
import { PostgresSessions } from "./sessions.ts";

export interface PostgresOpenOptions {
  /** Schema for every table (created if missing); tests use a fresh one each to isolate themselves. */
  schema?: string;
  /** Pool size (default 10). */
  max?: number;
  /** Lifetime of cached key lookups (key-cache.ts); 0 turns the cache off. */
  keyCacheTtlMs?: number;
  /** How long a call whose COMMIT reply was lost waits to learn the outcome (default COMMIT_OUTCOME_WAIT_MS). */
  commitOutcomeWaitMs?: number;
  /** How often calls answered "not known" are asked about again (default LOST_CALL_PROBE_MS). */
  lostCallProbeMs?: number;
  /** Told what became of each call answered "not known" (the server logs it). */
  onLostCall?: (report: LostCallReport) => void;
  /**
   * Directory where calls answered "not known" are kept until settled (in-doubt.ts), so that a stop
   * of the process does not lose them; the store opened next on it settles what is left. Unset:
   * memory only.
   */
  inDoubtDir?: string;
}

export type { LostCallReport } from "./lost-calls.ts";

/** How long `commit()` keeps asking the database what became of a COMMIT whose reply was lost. */
export const COMMIT_OUTCOME_WAIT_MS = 4000;
/** How often calls answered "not known" are asked about again, until the database answers. */
export const LOST_CALL_PROBE_MS = 1000;

export class PostgresStore implements Store {
  readonly kind = "postgres" as const;
  /** This database's identity (table store_identity), read by migrate(). */
  private storeId: string | null = null;
  /** Calls in doubt (lost-calls.ts): answered 503 when a COMMIT's reply was lost, undone if they committed. */
  private readonly lostCalls: PostgresLostCalls;
  /** Accounts and keys (accounts.ts), with the key lookups' cache. */
  private readonly accounts: PostgresAccounts;
  /** Credit holds and the ledger's reads (ledger.ts). */
  private readonly ledger: PostgresLedger;
  /** The billing commit (commit.ts): the charge, its ledger row and the search's writes in one transaction. */
  private readonly billing: PostgresCommit;
  /** The search sessions' reads and sweep (sessions.ts); their writes are the billing commit's. */
  private readonly sessions: PostgresSessions;
  /** The people aggregate (people.ts), on this store's pool, error mapping and transactions. */
  private readonly people: PostgresPeople;

  private constructor(
    /** The pool every aggregate runs on (pool.ts). */
    private readonly db: PgPool,
    keyCache: KeyCache,
    commitOutcomeWaitMs: number,
    lostCallProbeMs: number,
    onLostCall: (report: LostCallReport) => void,
    private readonly schema: string | null,
    journal: InDoubtJournal | null,
  ) {
    this.lostCalls = new PostgresLostCalls(db, journal, commitOutcomeWaitMs, lostCallProbeMs, onLostCall);
    this.accounts = new PostgresAccounts(db, keyCache);
    this.ledger = new PostgresLedger(db, this.accounts);
    this.billing = new PostgresCommit(db, this.lostCalls, keyCache, schema, () => this.storeId);
    this.sessions = new PostgresSessions(db);
    this.people = new PostgresPeople(db);
  }

  static async open(url: string, options: PostgresOpenOptions = {}): Promise<PostgresStore> {
    const { schema } = options;
    const db = PgPool.create(url, {
      ...(schema === undefined ? {} : { schema }),
      ...(options.max === undefined ? {} : { max: options.max }),
    });
    const store = new PostgresStore(
      db,
      new KeyCache(options.keyCacheTtlMs),
      options.commitOutcomeWaitMs ?? COMMIT_OUTCOME_WAIT_MS,
      options.lostCallProbeMs ?? LOST_CALL_PROBE_MS,
      options.onLostCall ?? (() => {}),
      schema ?? null,
      options.inDoubtDir === undefined ? null : new InDoubtJournal(options.inDoubtDir),
    );
    try {
      if (schema !== undefined) await createSchema(db, schema);
    } catch (error) {
      await db.pool.end().catch(() => {});
      throw error;
    }
    return store;
  }

  async migrate(): Promise<void> {
    this.storeId = await applyMigrations(this.db);
    // Calls left in doubt by an earlier process on this data directory (lost-calls.ts).
    await this.lostCalls.recover(this.schema, this.storeId);
  }

  ping(): Promise<void> {
    return this.db.guard(async () => {
      await this.db.pool.query("SELECT 1");
    });
  }

  async close(): Promise<void> {
    // One last try for calls still in doubt; what stays unknown is reported for an operator.
    await this.lostCalls.close(!this.db.ended);
    await this.db.end();
  }

  setting(name: string, initial: string): Promise<string> {
    return this.db.guard(async () => {
      // Read first: a setting made already needs no write (a standby still answers it).
      const stored = await this.db.row("SELECT value FROM settings WHERE name = $1", [name]);
      if (stored) return String(stored.value);
      await this.db.pool.query("INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [name, initial]);
      return String((await this.db.row("SELECT value FROM settings WHERE name = $1", [name]))!.value);
    });
  }

  /** Undo a committed call as a call in doubt is undone (for the store contract; commit.ts). */
  undoForTests(op: CommitOp, periodEnd: number | null): Promise<boolean> {
    return this.billing.undoForTests(op, periodEnd);
  }

  /** How many calls answered "not known" are still being asked about (the fault tests wait on it). */
  get unresolvedCalls(): number {
    return this.lostCalls.size;
  }

  // Accounts and keys (accounts.ts)

  createAccount(account: NewAccount): Promise<AccountRow> {
    return this.accounts.createAccount(account);
  }

  getAccount(id: string): Promise<AccountRow | null> {
    return this.accounts.getAccount(id);
  }

  listAccounts(): Promise<AccountRow[]> {
    return this.accounts.listAccounts();
  }

  countAccounts(): Promise<number> {
    return this.accounts.countAccounts();
  }

  updateAccount(id: string, patch: AccountPatch): Promise<AccountRow | null> {
    return this.accounts.updateAccount(id, patch);
  }

  rollPeriod(accountId: string, expectedPeriodEnd: number, newPeriodEnd: number): Promise<void> {
    return this.accounts.rollPeriod(accountId, expectedPeriodEnd, newPeriodEnd);
  }

  createKey(key: NewKey): Promise<void> {
    return this.accounts.createKey(key);
  }

  findKeyByHash(hash: string): Promise<KeyLookup | null> {
    return this.accounts.findKeyByHash(hash);
  }

  getKey(keyId: string): Promise<KeyRow | null> {
    return this.accounts.getKey(keyId);
  }

  setKeyLimit(keyId: string, limit: number | null, periodStart: number): Promise<KeyRow | null> {
    return this.accounts.setKeyLimit(keyId, limit, periodStart);
  }

  listKeys(accountId: string): Promise<KeyRow[]> {
    return this.accounts.listKeys(accountId);
  }

  revokeKey(keyId: string, at: number): Promise<number | null> {
    return this.accounts.revokeKey(keyId, at);
  }

  touchKey(keyId: string, at: number): Promise<void> {
    return this.accounts.touchKey(keyId, at);
  }

  // Credits: holds and the ledger (ledger.ts), the billing commit (commit.ts)

  reserve(reservation: Reservation): Promise<{ ok: boolean; account: AccountRow | null; key?: KeyBudget }> {
    return this.ledger.reserve(reservation);
  }

  release(reservation: Reservation): Promise<AccountRow | null> {
    return this.ledger.release(reservation);
  }

  releaseReservationsOlderThan(ageMs: number): Promise<number> {
    return this.ledger.releaseReservationsOlderThan(ageMs);
  }

  commit(op: CommitOp): Promise<Committed> {
    return this.billing.commit(op);
  }

  ledgerTotal(accountId: string): Promise<number> {
    return this.ledger.ledgerTotal(accountId);
  }

  usage(
    accountId: string,
    since: number,
  ): Promise<{ capability: string; operation: string; calls: number; credits: number }[]> {
    return this.ledger.usage(accountId, since);
  }

  usageByDay(accountId: string, since: number): Promise<DailyUsage[]> {
    return this.ledger.usageByDay(accountId, since);
  }

  recentCalls(accountId: string, limit: number): Promise<LedgerEntry[]> {
    return this.ledger.recentCalls(accountId, limit);
  }

  // Sessions and records (sessions.ts)

  getSession(id: string): Promise<SessionRow | null> {
    return this.sessions.getSession(id);
  }

  getRecords(searchId: string, from: number, to: number): Promise<RecordRow[]> {
    return this.sessions.getRecords(searchId, from, to);
  }

  getRecord(id: string): Promise<{ record: RecordRow; session: SessionRow } | null> {
    return this.sessions.getRecord(id);
  }

  getSource(searchId: string, position: number): Promise<string | null> {
    return this.sessions.getSource(searchId, position);
  }

  sweepExpired(before: number, limit: number): Promise<number> {
    return this.sessions.sweepExpired(before, limit);
  }

  // People: logins, dashboard sessions, OAuth (people.ts)

  createLogin(login: LoginRow): Promise<boolean> {
    return this.people.createLogin(login);
  }

  findLoginByEmail(email: string): Promise<LoginRow | null> {
    return this.people.findLoginByEmail(email);
  }

  getLogin(id: string): Promise<LoginRow | null> {
    return this.people.getLogin(id);
  }

  listLogins(accountId: string): Promise<LoginRow[]> {
    return this.people.listLogins(accountId);
  }

  deleteLogin(id: string): Promise<boolean> {
    return this.people.deleteLogin(id);
  }

  setLoginPassword(id: string, passwordHash: string): Promise<boolean> {
    return this.people.setLoginPassword(id, passwordHash);
  }

  noteSignIn(loginId: string, at: number): Promise<void> {
    return this.people.noteSignIn(loginId, at);
  }

  getWebSession(idHash: string): Promise<WebSessionRow | null> {
    return this.people.getWebSession(idHash);
  }

  setWebSession(session: WebSessionRow): Promise<void> {
    return this.people.setWebSession(session);
  }

  deleteWebSession(idHash: string): Promise<void> {
    return this.people.deleteWebSession(idHash);
  }

  createOAuthClient(client: OAuthClientRow): Promise<void> {
    return this.people.createOAuthClient(client);
  }

  getOAuthClient(id: string): Promise<OAuthClientRow | null> {
    return this.people.getOAuthClient(id);
  }

  createOAuthCode(code: OAuthCodeRow): Promise<void> {
    return this.people.createOAuthCode(code);
  }

  useOAuthCode(hash: string, at: number): Promise<{ code: OAuthCodeRow; firstUse: boolean } | null> {
    return this.people.useOAuthCode(hash, at);
  }

  findOAuthToken(hash: string): Promise<{ token: OAuthTokenRow; grant: OAuthGrantRow; account: AccountRow } | null> {
    return this.people.findOAuthToken(hash);
  }

  createOAuthGrant(grant: OAuthGrantRow, tokens: OAuthTokenRow[]): Promise<void> {
    return this.people.createOAuthGrant(grant, tokens);
  }

  rotateOAuthRefresh(hash: string, at: number, tokens: OAuthTokenRow[]): Promise<"rotated" | "reused" | "invalid"> {
    return this.people.rotateOAuthRefresh(hash, at, tokens);
  }

  listOAuthGrants(accountId: string): Promise<OAuthGrantRow[]> {
    return this.people.listOAuthGrants(accountId);
  }

  revokeOAuthGrant(grantId: string, at: number): Promise<number | null> {
    return this.people.revokeOAuthGrant(grantId, at);
  }

  touchOAuthGrant(grantId: string, at: number): Promise<void> {
    return this.people.touchOAuthGrant(grantId, at);
  }

  sweepPeople(before: number, limit: number): Promise<number> {
    return this.people.sweepPeople(before, limit);
  }
}

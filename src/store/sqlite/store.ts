/**
 * The embedded store: one SQLite file through better-sqlite3 (WAL). Used when no DATABASE_URL is
 * set. Reads run on this thread's connection (a few microseconds, never blocked by a writer in WAL
 * mode); every write goes through a WriteChannel: for a file, to a writer thread that owns the
 * only writing connection and batches writes into group commits (write-channel.ts).
 *
 * This class opens, migrates and closes it and composes its aggregates, each a file of this folder
 * on the same connections (connection.ts): accounts and keys (accounts.ts), the ledger's holds and
 * reads (ledger.ts), the billing commit (commit.ts), search sessions (sessions.ts), people and
 * OAuth (people.ts). Each also holds its writes, which the writer thread applies (writer.ts).
 */
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
import { SqliteAccounts } from "./accounts.ts";
import { SqliteCommit } from "./commit.ts";
import { type ConnectionOptions, SqliteConnection } from "./connection.ts";
import { SqliteLedger } from "./ledger.ts";
import { applyMigrations } from "./migrations.ts";
import { SqlitePeople } from "./people.ts";
import { SqliteSessions } from "./sessions.ts";

export interface SqliteOpenOptions extends ConnectionOptions {
  /** Lifetime of cached key lookups (key-cache.ts); 0 turns the cache off. */
  keyCacheTtlMs?: number;
}

const SQL = {
  getSetting: "SELECT value FROM settings WHERE name = ?",
} as const;

export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  /** Accounts and keys (accounts.ts), with the key lookups' cache. */
  private readonly accounts: SqliteAccounts;
  /** Credit holds and the ledger's reads (ledger.ts). */
  private readonly ledger: SqliteLedger;
  /** The billing commit (commit.ts): the charge, its ledger row and the search's writes in one transaction. */
  private readonly billing: SqliteCommit;
  /** The search sessions' reads and sweep (sessions.ts); their writes are the billing commit's. */
  private readonly sessions: SqliteSessions;
  /** Logins, dashboard sessions, OAuth (people.ts). */
  private readonly people: SqlitePeople;

  private constructor(
    /** The reading connection, the write channel, the instance lock and the holds in memory (connection.ts). */
    private readonly conn: SqliteConnection,
    keyCache: KeyCache,
  ) {
    this.accounts = new SqliteAccounts(conn, keyCache);
    this.ledger = new SqliteLedger(conn, this.accounts);
    this.billing = new SqliteCommit(conn, keyCache);
    this.sessions = new SqliteSessions(conn);
    this.people = new SqlitePeople(conn);
  }

  /** Open (creating if needed) the database file; `":memory:"` gives a private in-memory database. */
  static open(file: string, options: SqliteOpenOptions = {}): SqliteStore {
    return new SqliteStore(SqliteConnection.open(file, options), new KeyCache(options.keyCacheTtlMs));
  }

  async migrate(): Promise<void> {
    await this.conn.guard(() => applyMigrations(this.conn.db));
    await this.conn.startWriter();
  }

  ping(): Promise<void> {
    return this.conn.ping();
  }

  /** Fault injection for tests: the writer thread ends as if it crashed. */
  crashWriterForTests(): Promise<void> {
    return this.conn.crashWriterForTests();
  }

  close(): Promise<void> {
    return this.conn.close();
  }

  async setting(name: string, initial: string): Promise<string> {
    // Read first: a setting made already needs no write (and a read-only file still answers it).
    const stored = await this.conn.guard(() => this.conn.row(SQL.getSetting, name)?.value);
    if (typeof stored === "string") return stored;
    return this.conn.write({ t: "people", op: { t: "setting", name, initial } });
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

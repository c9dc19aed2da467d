/**
 * What a dialect's store composes: its aggregates, each serving one interface of the Store (types.ts),
 * and the one place their methods are forwarded. PostgresStore and SqliteStore extend ComposedStore
 * and add only the lifecycle (open, migrate, ping, close, setting) and their own test hooks; each
 * builds its aggregates on its own connections (postgres/, sqlite/).
 */
import type { KeyLookup } from "./key-cache.ts";
import type {
  AccountPatch,
  AccountRow,
  AccountStore,
  Committed,
  CommitOp,
  DailyUsage,
  KeyBudget,
  KeyRow,
  LedgerEntry,
  LedgerStore,
  LoginRow,
  NewAccount,
  NewKey,
  OAuthClientRow,
  OAuthCodeRow,
  OAuthGrantRow,
  OAuthTokenRow,
  PeopleStore,
  RecordRow,
  Reservation,
  SearchStore,
  SessionRow,
  WebSessionRow,
} from "./types.ts";

/** A dialect's aggregates, by the part of the Store each serves. */
export interface StoreAggregates {
  /** Accounts and keys, with the key lookups' cache (accounts.ts). */
  accounts: AccountStore;
  /** Credit holds and the ledger's reads (ledger.ts). */
  ledger: Omit<LedgerStore, "commit">;
  /** The billing commit (commit.ts): the charge, its ledger row and the search's writes in one transaction. */
  billing: Pick<LedgerStore, "commit">;
  /** The search sessions' reads and sweep (sessions.ts); their writes are the billing commit's. */
  sessions: SearchStore;
  /** Logins, dashboard sessions, OAuth (people.ts). */
  people: PeopleStore;
}

/** The Store's data methods, each forwarded to the aggregate that serves it. */
export abstract class ComposedStore implements AccountStore, LedgerStore, SearchStore, PeopleStore {
  protected constructor(private readonly parts: StoreAggregates) {}

  // Accounts and keys (accounts.ts)

  createAccount(account: NewAccount): Promise<AccountRow> {
    return this.parts.accounts.createAccount(account);
  }

  getAccount(id: string): Promise<AccountRow | null> {
    return this.parts.accounts.getAccount(id);
  }

  listAccounts(): Promise<AccountRow[]> {
    return this.parts.accounts.listAccounts();
  }

  countAccounts(): Promise<number> {
    return this.parts.accounts.countAccounts();
  }

  updateAccount(id: string, patch: AccountPatch): Promise<AccountRow | null> {
    return this.parts.accounts.updateAccount(id, patch);
  }

  rollPeriod(accountId: string, expectedPeriodEnd: number, newPeriodEnd: number): Promise<void> {
    return this.parts.accounts.rollPeriod(accountId, expectedPeriodEnd, newPeriodEnd);
  }

  createKey(key: NewKey): Promise<void> {
    return this.parts.accounts.createKey(key);
  }

  findKeyByHash(hash: string): Promise<KeyLookup | null> {
    return this.parts.accounts.findKeyByHash(hash);
  }

  getKey(keyId: string): Promise<KeyRow | null> {
    return this.parts.accounts.getKey(keyId);
  }

  setKeyLimit(keyId: string, limit: number | null, periodStart: number): Promise<KeyRow | null> {
    return this.parts.accounts.setKeyLimit(keyId, limit, periodStart);
  }

  listKeys(accountId: string): Promise<KeyRow[]> {
    return this.parts.accounts.listKeys(accountId);
  }

  revokeKey(keyId: string, at: number): Promise<number | null> {
    return this.parts.accounts.revokeKey(keyId, at);
  }

  touchKey(keyId: string, at: number): Promise<void> {
    return this.parts.accounts.touchKey(keyId, at);
  }

  // Credits: holds and the ledger (ledger.ts), the billing commit (commit.ts)

  reserve(reservation: Reservation): Promise<{ ok: boolean; account: AccountRow | null; key?: KeyBudget }> {
    return this.parts.ledger.reserve(reservation);
  }

  release(reservation: Reservation): Promise<AccountRow | null> {
    return this.parts.ledger.release(reservation);
  }

  releaseReservationsOlderThan(ageMs: number): Promise<number> {
    return this.parts.ledger.releaseReservationsOlderThan(ageMs);
  }

  commit(op: CommitOp): Promise<Committed> {
    return this.parts.billing.commit(op);
  }

  ledgerTotal(accountId: string): Promise<number> {
    return this.parts.ledger.ledgerTotal(accountId);
  }

  usage(
    accountId: string,
    since: number,
  ): Promise<{ capability: string; operation: string; calls: number; credits: number }[]> {
    return this.parts.ledger.usage(accountId, since);
  }

  usageByDay(accountId: string, since: number): Promise<DailyUsage[]> {
    return this.parts.ledger.usageByDay(accountId, since);
  }

  recentCalls(accountId: string, limit: number): Promise<LedgerEntry[]> {
    return this.parts.ledger.recentCalls(accountId, limit);
  }

  // Sessions and records (sessions.ts)

  getSession(id: string): Promise<SessionRow | null> {
    return this.parts.sessions.getSession(id);
  }

  getRecords(searchId: string, from: number, to: number): Promise<RecordRow[]> {
    return this.parts.sessions.getRecords(searchId, from, to);
  }

  getRecord(id: string): Promise<{ record: RecordRow; session: SessionRow } | null> {
    return this.parts.sessions.getRecord(id);
  }

  getSource(searchId: string, position: number): Promise<string | null> {
    return this.parts.sessions.getSource(searchId, position);
  }

  sweepExpired(before: number, limit: number): Promise<number> {
    return this.parts.sessions.sweepExpired(before, limit);
  }

  // People: logins, dashboard sessions, OAuth (people.ts)

  createLogin(login: LoginRow): Promise<boolean> {
    return this.parts.people.createLogin(login);
  }

  findLoginByEmail(email: string): Promise<LoginRow | null> {
    return this.parts.people.findLoginByEmail(email);
  }

  getLogin(id: string): Promise<LoginRow | null> {
    return this.parts.people.getLogin(id);
  }

  listLogins(accountId: string): Promise<LoginRow[]> {
    return this.parts.people.listLogins(accountId);
  }

  deleteLogin(id: string): Promise<boolean> {
    return this.parts.people.deleteLogin(id);
  }

  setLoginPassword(id: string, passwordHash: string): Promise<boolean> {
    return this.parts.people.setLoginPassword(id, passwordHash);
  }

  noteSignIn(loginId: string, at: number): Promise<void> {
    return this.parts.people.noteSignIn(loginId, at);
  }

  getWebSession(idHash: string): Promise<WebSessionRow | null> {
    return this.parts.people.getWebSession(idHash);
  }

  setWebSession(session: WebSessionRow): Promise<void> {
    return this.parts.people.setWebSession(session);
  }

  deleteWebSession(idHash: string): Promise<void> {
    return this.parts.people.deleteWebSession(idHash);
  }

  createOAuthClient(client: OAuthClientRow): Promise<void> {
    return this.parts.people.createOAuthClient(client);
  }

  getOAuthClient(id: string): Promise<OAuthClientRow | null> {
    return this.parts.people.getOAuthClient(id);
  }

  createOAuthCode(code: OAuthCodeRow): Promise<void> {
    return this.parts.people.createOAuthCode(code);
  }

  useOAuthCode(hash: string, at: number): Promise<{ code: OAuthCodeRow; firstUse: boolean } | null> {
    return this.parts.people.useOAuthCode(hash, at);
  }

  findOAuthToken(hash: string): Promise<{ token: OAuthTokenRow; grant: OAuthGrantRow; account: AccountRow } | null> {
    return this.parts.people.findOAuthToken(hash);
  }

  createOAuthGrant(grant: OAuthGrantRow, tokens: OAuthTokenRow[]): Promise<void> {
    return this.parts.people.createOAuthGrant(grant, tokens);
  }

  rotateOAuthRefresh(hash: string, at: number, tokens: OAuthTokenRow[]): Promise<"rotated" | "reused" | "invalid"> {
    return this.parts.people.rotateOAuthRefresh(hash, at, tokens);
  }

  listOAuthGrants(accountId: string): Promise<OAuthGrantRow[]> {
    return this.parts.people.listOAuthGrants(accountId);
  }

  revokeOAuthGrant(grantId: string, at: number): Promise<number | null> {
    return this.parts.people.revokeOAuthGrant(grantId, at);
  }

  touchOAuthGrant(grantId: string, at: number): Promise<void> {
    return this.parts.people.touchOAuthGrant(grantId, at);
  }

  sweepPeople(before: number, limit: number): Promise<number> {
    return this.parts.people.sweepPeople(before, limit);
  }
}

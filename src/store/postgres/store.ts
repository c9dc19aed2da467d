/**
 * The shared store: PostgreSQL through a pg.Pool, for deployments with DATABASE_URL (several
 * service instances on one database). Balance changes are single conditional statements or short
 * transactions on one client, so concurrent instances cannot overspend a cap.
 *
 * This class opens, migrates and closes it and composes its aggregates (ComposedStore forwards the
 * Store's methods to them), each a file of this folder
 * on the same pool (pool.ts): accounts and keys (accounts.ts), the ledger's holds and reads
 * (ledger.ts), the billing commit (commit.ts) and its calls in doubt (lost-calls.ts), search
 * sessions (sessions.ts), people and OAuth (people.ts).
 */
import { InDoubtJournal } from "../in-doubt.ts";
import { ComposedStore } from "../composed-store.ts";
import { KeyCache } from "../key-cache.ts";
import type {
  CommitOp,
  Store,
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

export class PostgresStore extends ComposedStore implements Store {
  readonly kind = "postgres" as const;

  private constructor(
    /** The pool every aggregate runs on (pool.ts). */
    private readonly db: PgPool,
    /** Calls in doubt (lost-calls.ts): answered 503 when a COMMIT's reply was lost, undone if they committed. */
    private readonly lostCalls: PostgresLostCalls,
    /** The billing commit (commit.ts), kept for its test hook. */
    private readonly billing: PostgresCommit,
    /** This database's identity (table store_identity), set by migrate(); the billing commit reads it. */
    private readonly identity: { id: string | null },
    private readonly schema: string | null,
    keyCache: KeyCache,
  ) {
    const accounts = new PostgresAccounts(db, keyCache);
    super({
      accounts,
      ledger: new PostgresLedger(db, accounts),
      billing,
      sessions: new PostgresSessions(db),
      people: new PostgresPeople(db),
    });
  }

  static async open(url: string, options: PostgresOpenOptions = {}): Promise<PostgresStore> {
    const { schema } = options;
    const db = PgPool.create(url, {
      ...(schema === undefined ? {} : { schema }),
      ...(options.max === undefined ? {} : { max: options.max }),
    });
    const keyCache = new KeyCache(options.keyCacheTtlMs);
    const lostCalls = new PostgresLostCalls(
      db,
      options.inDoubtDir === undefined ? null : new InDoubtJournal(options.inDoubtDir),
      options.commitOutcomeWaitMs ?? COMMIT_OUTCOME_WAIT_MS,
      options.lostCallProbeMs ?? LOST_CALL_PROBE_MS,
      options.onLostCall ?? (() => {}),
    );
    const identity: { id: string | null } = { id: null };
    const billing = new PostgresCommit(db, lostCalls, keyCache, schema ?? null, () => identity.id);
    const store = new PostgresStore(db, lostCalls, billing, identity, schema ?? null, keyCache);
    try {
      if (schema !== undefined) await createSchema(db, schema);
    } catch (error) {
      await db.pool.end().catch(() => {});
      throw error;
    }
    return store;
  }

  async migrate(): Promise<void> {
    this.identity.id = await applyMigrations(this.db);
    // Calls left in doubt by an earlier process on this data directory (lost-calls.ts).
    await this.lostCalls.recover(this.schema, this.identity.id);
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
}

/**
 * Calls in doubt on PostgreSQL: a call whose COMMIT got no reply and whose outcome the database did
 * not tell within commitOutcomeWaitMs was answered 503; it is kept here (and on disk, with a journal)
 * and asked about every probeMs until the database answers, then undone if it had committed, so
 * that a call its caller was told failed is never charged. docs/reliability.md describes it; the
 * fault suites (test/store-faults.test.ts) hold it.
 */
import { ApiError } from "../../errors.ts";
import type { InDoubtCall, InDoubtJournal } from "../in-doubt.ts";
import { jsonb, type PgAccess } from "./access.ts";
import { isUnavailable } from "./errors.ts";
import { num, type Raw } from "../sql-common.ts";

/**
 * What became of a call that was answered 503 because the reply to its COMMIT was lost and the
 * database stayed away: "not saved" (its transaction rolled back; nothing to do), "undone" (it
 * had committed: its ledger row is deleted, its credits given back, a new search deleted and a
 * follow-up's session put back as it was), "kept" (the store closed first, or the call was
 * written against another database: the call is on disk in `inDoubtDir` and the next store opened
 * on it and its database settles it), or "unresolved" (the store closed first with nowhere to keep
 * it, or asking about its transaction failed, or the undo failed: an operator has to check this
 * ledger row by hand). Once its transaction is over, whether the ledger row exists decides between
 * "undone" and "not saved", also when the database is too old to tell (txid_status null).
 */
export interface LostCallReport {
  outcome: "not saved" | "undone" | "kept" | "unresolved";
  requestId: string;
  ledgerId: string;
  accountId: string;
  credits: number;
  /** Why it is kept or unresolved, or why a committed call is "not saved" (its ledger row was gone). */
  reason?: string;
}

/** How often outcomeOf asks again while the database says "in progress" or does not answer. */
const OUTCOME_PROBE_EVERY_MS = 200;

export class PostgresLostCalls {
  /** Calls answered "not known", by transaction id, until the database says what became of them. */
  private readonly calls = new Map<string, InDoubtCall>();
  /** Those of calls that could not be written to the journal, and why. */
  private readonly notKept = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  /** The pass over calls under way, if any (one at a time). */
  private settling: Promise<void> | null = null;

  constructor(
    private readonly db: PgAccess,
    private readonly journal: InDoubtJournal | null,
    private readonly commitOutcomeWaitMs: number,
    private readonly probeMs: number,
    private readonly onLostCall: (report: LostCallReport) => void,
  ) {}

  /** How many calls are still being asked about. */
  get size(): number {
    return this.calls.size;
  }

  /** Calls an earlier process left on disk for this database: asked about from now on. */
  load(calls: readonly InDoubtCall[]): void {
    for (const call of calls) this.calls.set(call.xid, call);
    if (this.calls.size > 0) this.probe();
  }

  /**
   * Calls left in doubt by an earlier process on the journal's directory, once the store knows its
   * database (`storeId`): this database's are asked about from now on. Those written against another
   * database stay on disk for a store of that database: this one cannot tell what became of their
   * transactions.
   */
  async recover(schema: string | null, storeId: string): Promise<void> {
    if (!this.journal) return;
    const { mine, foreign } = await this.journal.load(schema, storeId);
    this.load(mine);
    for (const call of foreign) {
      this.report(
        call,
        "kept",
        `it was written against another database (store ${call.storeId}, this one is ${storeId}); ` +
          `left in ${this.journal.dir} for a store of that database`,
      );
    }
  }

  /**
   * The store closes: one last try for calls still in doubt (after a pass under way, and only while
   * the pool is open); what stays unknown is reported for an operator, as kept on disk or unresolved.
   */
  async close(poolOpen: boolean): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.settling;
    if (this.calls.size > 0 && poolOpen) await this.settle();
    for (const call of this.calls.values()) {
      const notKept = this.notKept.get(call.xid);
      if (this.journal && notKept === undefined) {
        this.report(
          call,
          "kept",
          `the store closed before the database answered; the next store opened on ${this.journal.dir} settles it`,
        );
      } else {
        const why = notKept === undefined ? "" : ` (it could not be kept on disk: ${notKept})`;
        this.report(call, "unresolved", `the store closed before the database answered${why}`);
      }
    }
    this.calls.clear();
    this.notKept.clear();
  }

  async watch(call: InDoubtCall): Promise<void> {
    // On disk before a settling pass can see it, so the pass cannot remove the file before it exists.
    if (this.journal) {
      try {
        await this.journal.add(call);
      } catch (error) {
        // Still asked about while this process runs; reported "unresolved" if it stops first.
        this.notKept.set(call.xid, (error as Error).message);
      }
    }
    this.calls.set(call.xid, call);
    this.probe();
  }

  probe(): void {
    if (this.timer === undefined) {
      this.timer = setInterval(() => void this.settle(), this.probeMs);
      this.timer.unref();
    }
  }

  /** A call is settled one way or another: out of memory, and off disk (or set aside for an operator). */
  private async forget(
    call: InDoubtCall,
    outcome: LostCallReport["outcome"],
    reason?: string,
  ): Promise<void> {
    this.calls.delete(call.xid);
    const wasKept = this.journal !== null && !this.notKept.delete(call.xid);
    let why = reason;
    if (wasKept) {
      try {
        if (outcome === "unresolved") {
          await this.journal!.setAside(call);
          why = `${reason}; its file: ${this.journal!.unresolvedFile(call)}`;
        } else {
          await this.journal!.remove(call);
        }
      } catch (error) {
        why = `${reason ?? outcome}; its file ${this.journal!.dir} could not be updated: ${(error as Error).message}`;
      }
    }
    this.report(call, outcome, why);
  }

  report(call: InDoubtCall, outcome: LostCallReport["outcome"], reason?: string): void {
    const { ledger } = call;
    this.onLostCall({
      outcome,
      requestId: ledger.requestId,
      ledgerId: ledger.id,
      accountId: ledger.accountId,
      credits: ledger.credits,
      ...(reason === undefined ? {} : { reason }),
    });
  }

  /**
   * Ask about each call answered "not known"; undo those that committed. While the database is
   * still away, the rest waits for the next tick.
   */
  settle(): Promise<void> {
    this.settling ??= this.settleOnce().finally(() => {
      this.settling = null;
    });
    return this.settling;
  }

  /**
   * Calls whose journal file could not be written (disk full, the directory blocked, ...) are
   * tried again on every pass, so a fault of the disk that clears while the database is still
   * away no longer leaves the call to this process alone: once written it survives a stop.
   */
  private async keepUnkept(): Promise<void> {
    if (!this.journal) return;
    for (const xid of [...this.notKept.keys()]) {
      const call = this.calls.get(xid);
      if (!call) {
        this.notKept.delete(xid);
        continue;
      }
      try {
        await this.journal.add(call);
        this.notKept.delete(xid);
      } catch (error) {
        this.notKept.set(xid, (error as Error).message);
      }
    }
  }

  private async settleOnce(): Promise<void> {
    try {
      await this.keepUnkept();
      for (const call of [...this.calls.values()]) {
        let status: string | null;
        try {
          status = await this.txidStatus(call.xid);
        } catch (error) {
          if (isUnavailable(error)) return;
          await this.forget(
            call,
            "unresolved",
            `asking about its transaction failed: ${(error as Error).message}`,
          );
          continue;
        }
        // "in progress": the old connection's backend has not noticed yet that its client is gone.
        if (status === "in progress") continue;
        // Over ("committed", "aborted", or null: too old for the database to say, so long over):
        // its ledger row, which only a committed call has, decides. The undo keys on that row.
        let undone: boolean;
        try {
          undone = await this.undo(call);
        } catch (error) {
          if (isUnavailable(error) || (error instanceof ApiError && error.code === "service_unavailable"))
            return;
          await this.forget(call, "unresolved", `undoing it failed: ${(error as Error).message}`);
          continue;
        }
        if (undone) await this.forget(call, "undone");
        else if (status === "committed") {
          await this.forget(
            call,
            "not saved",
            "its transaction committed, but its ledger row was already gone (undone before)",
          );
        } else await this.forget(call, "not saved");
      }
    } finally {
      if (this.calls.size === 0 && this.timer !== undefined) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    }
  }

  /**
   * Undo a committed call its caller was told had failed, in one transaction: its ledger row goes
   * (only the first undo finds it), its credits come back if the account is still in the same
   * period (a new period started from 0 already), a search it created is deleted with its records,
   * and a follow-up's session gets its previous query and state back unless a later call has
   * moved it on since (then the records that later call may page through stay too).
   * False when there was no ledger row: the call was not saved, or was undone before.
   */
  async undo({ ledger, periodEnd, keyId, newSessionId, update }: InDoubtCall): Promise<boolean> {
    return this.db.transaction(async (client) => {
      const gone = await client.query("DELETE FROM ledger WHERE id = $1 RETURNING credits", [ledger.id]);
      if ((gone.rowCount ?? 0) === 0) return false;
      const credits = num((gone.rows[0] as Raw).credits);
      if (credits > 0) {
        await client.query(
          "UPDATE accounts SET credits_used = credits_used - $2 WHERE id = $1 AND period_end IS NOT DISTINCT FROM $3::bigint",
          [ledger.accountId, credits, periodEnd],
        );
        // The key charged with it (its limit) gets its use back too, within the same period; after
        // the account's row, the order every writer of both follows.
        if (keyId !== null && keyId !== undefined) {
          await client.query(
            "UPDATE api_keys SET credits_used = GREATEST(0, credits_used - $2) WHERE id = $1 AND used_period_end IS NOT DISTINCT FROM $3::bigint",
            [keyId, credits, periodEnd],
          );
        }
      }
      // Records go with their session (ON DELETE CASCADE).
      if (newSessionId !== null) await client.query("DELETE FROM sessions WHERE id = $1", [newSessionId]);
      if (update) {
        const restored = await client.query(
          "UPDATE sessions SET query = $2::jsonb, state = $3::jsonb WHERE id = $1 AND state = $4::jsonb",
          [update.id, jsonb(update.previousQuery), jsonb(update.previousState), jsonb(update.state)],
        );
        if ((restored.rowCount ?? 0) > 0 && update.recordIds.length > 0) {
          await client.query("DELETE FROM records WHERE id = ANY($1::text[])", [update.recordIds]);
        }
      }
      return true;
    });
  }

  /** txid_status of `xid` on a pooled connection: "committed", "aborted", "in progress", or null when too old to tell. */
  private async txidStatus(xid: string): Promise<string | null> {
    const row = await this.db.row("SELECT txid_status($1::bigint) AS s", [xid]);
    return (row?.s as string | null | undefined) ?? null;
  }

  /** What became of transaction `xid`, asked on fresh connections until commitOutcomeWaitMs passes. */
  async outcomeOf(xid: string): Promise<"committed" | "aborted" | "unknown"> {
    const until = Date.now() + this.commitOutcomeWaitMs;
    for (;;) {
      const left = until - Date.now();
      if (left <= 0) return "unknown";
      let timer: NodeJS.Timeout | undefined;
      const status = await Promise.race([
        this.txidStatus(xid).catch(() => "unreachable"),
        new Promise<string>((resolve) => {
          timer = setTimeout(() => resolve("unreachable"), left);
        }),
      ]).finally(() => clearTimeout(timer));
      if (status === "committed" || status === "aborted") return status;
      // null: too old to tell (it would have to be days old).
      if (status === null) return "unknown";
      // "in progress" (the old session has not yet seen its connection go) or still unreachable.
      await new Promise((resolve) => setTimeout(resolve, Math.min(OUTCOME_PROBE_EVERY_MS, left)));
    }
  }
}

/**
 * The PostgreSQL store's search sessions (SearchStore): a session, its records by position, a
 * record with its session, a page's source, and the sweep of expired sessions. Sessions and records
 * are written by the billing commit (commit.ts), in the same transaction as the charge.
 */
import { bound, decodeJsonParsed, RECORD_COLUMNS, toRecord, toSession } from "../sql-common.ts";
import type { RecordRow, SessionRow } from "../types.ts";
import type { PgAccess } from "./access.ts";

export class PostgresSessions {
  constructor(private readonly db: PgAccess) {}

  getSession(id: string): Promise<SessionRow | null> {
    return this.db.guard(async () => {
      const row = await this.db.row("SELECT * FROM sessions WHERE id = $1", [id]);
      return row ? toSession(row, decodeJsonParsed) : null;
    });
  }

  getRecords(searchId: string, from: number, to: number): Promise<RecordRow[]> {
    return this.db.guard(async () =>
      (
        await this.db.rows(
          `SELECT ${RECORD_COLUMNS} FROM records r WHERE r.search_id = $1 AND r.position >= $2 AND r.position < $3
           ORDER BY r.position`,
          [searchId, Math.ceil(bound(from)), Math.ceil(bound(to))],
        )
      ).map((r) => toRecord(r, decodeJsonParsed)),
    );
  }

  getRecord(id: string): Promise<{ record: RecordRow; session: SessionRow } | null> {
    return this.db.guard(async () => {
      const row = await this.db.row(
        `SELECT ${RECORD_COLUMNS}, s.id AS s_id, s.account_id AS s_account_id, s.capability AS s_capability, s.query AS s_query,
           s.state AS s_state, s.expires_at AS s_expires_at, s.created_at AS s_created_at
         FROM records r JOIN sessions s ON s.id = r.search_id WHERE r.id = $1`,
        [id],
      );
      return row
        ? { record: toRecord(row, decodeJsonParsed), session: toSession(row, decodeJsonParsed, "s_") }
        : null;
    });
  }

  getSource(searchId: string, position: number): Promise<string | null> {
    return this.db.guard(async () => {
      if (!Number.isSafeInteger(position) || position < 0) return null;
      const row = await this.db.row("SELECT source FROM records WHERE search_id = $1 AND position = $2", [searchId, position]);
      return typeof row?.source === "string" ? row.source : null;
    });
  }

  sweepExpired(before: number, limit: number): Promise<number> {
    return this.db.guard(async () => {
      if (limit <= 0) return 0;
      // Bounded batch; SKIP LOCKED leaves sessions being touched or swept elsewhere to the next round,
      // and the outer condition re-checks expiry on the locked row. Records go by ON DELETE CASCADE.
      const result = await this.db.pool.query(
        `DELETE FROM sessions WHERE expires_at < $1 AND id IN (
           SELECT id FROM sessions WHERE expires_at < $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [before, Math.floor(limit)],
      );
      return result.rowCount ?? 0;
    });
  }
}

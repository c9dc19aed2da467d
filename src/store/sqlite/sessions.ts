/**
 * The embedded store's search sessions (SearchStore): a session, a page of its records, a record
 * with its session, a page's source, and the sweep of expired sessions (a write the writer thread
 * applies, applySessionWrite). Records are stored under slot = session seq * MAX_SESSION_RECORDS +
 * position (migration 003), so a session's records are one row-id range. Sessions and records are
 * written by the billing commit (commit.ts), in the same transaction as the charge.
 */
import { bound, decodeJsonText, RECORD_COLUMNS, type Raw, toRecord, toSession } from "../sql-common.ts";
import { MAX_SESSION_RECORDS, type RecordRow, type SessionRow } from "../types.ts";
import type { SqliteAccess, Statements } from "./access.ts";
import type { SessionWrite } from "./write-ops.ts";

/**
 * A page of a session: the row-id range of its seq (migration 003), search_id checked too.
 * Parameters: from, to (offsets within the session's slots), search id. Exported for its plan test.
 */
export const GET_RECORDS_SQL =
  `SELECT ${RECORD_COLUMNS} FROM sessions s JOIN records r ON r.slot >= s.seq * ${MAX_SESSION_RECORDS} + ?` +
  ` AND r.slot < s.seq * ${MAX_SESSION_RECORDS} + ? WHERE s.id = ? AND r.search_id = s.id ORDER BY r.slot`;

const SQL = {
  getSession: "SELECT * FROM sessions WHERE id = ?",
  getRecords: GET_RECORDS_SQL,
  getRecord:
    `SELECT ${RECORD_COLUMNS}, s.id AS s_id,` +
    " s.account_id AS s_account_id, s.capability AS s_capability, s.query AS s_query," +
    " s.state AS s_state, s.expires_at AS s_expires_at, s.created_at AS s_created_at" +
    " FROM records r JOIN sessions s ON s.id = r.search_id WHERE r.id = ?",
  getSource:
    `SELECT r.source FROM sessions s JOIN records r ON r.slot = s.seq * ${MAX_SESSION_RECORDS} + ?` +
    " WHERE s.id = ? AND r.search_id = s.id",
  // Bounded batch: at most `limit` sessions, each with its records (a row-id range, see slotOf).
  expiredSessions: "SELECT seq FROM sessions WHERE expires_at < ? ORDER BY expires_at LIMIT ?",
  deleteRecordsOf: "DELETE FROM records WHERE slot >= ? AND slot < ?",
  deleteSession: "DELETE FROM sessions WHERE seq = ?",
} as const;

/**
 * Records are stored under slot = session seq * MAX_SESSION_RECORDS + position (migration 003): a
 * session's records are one row-id range. Positions stay below MAX_SESSION_RECORDS: the search
 * service refuses pages past it, the table's CHECK backs it.
 */
export function slotOf(sessionSeq: number, position: number): number {
  return sessionSeq * MAX_SESSION_RECORDS + position;
}

/** A position bound as an offset within a session's slots (0 ≤ p ≤ MAX_SESSION_RECORDS), rounded up as PostgreSQL's store does. */
function slotRange(position: number): number {
  return Math.max(0, Math.min(MAX_SESSION_RECORDS, Math.ceil(bound(position))));
}

export class SqliteSessions {
  constructor(private readonly db: SqliteAccess) {}

  getSession(id: string): Promise<SessionRow | null> {
    return this.db.guard(() => {
      const row = this.db.row(SQL.getSession, id);
      return row ? toSession(row, decodeJsonText) : null;
    });
  }

  getRecords(searchId: string, from: number, to: number): Promise<RecordRow[]> {
    return this.db.guard(() =>
      this.db.rows(SQL.getRecords, slotRange(from), slotRange(to), searchId).map((r) => toRecord(r, decodeJsonText)),
    );
  }

  getRecord(id: string): Promise<{ record: RecordRow; session: SessionRow } | null> {
    return this.db.guard(() => {
      const row = this.db.row(SQL.getRecord, id);
      return row
        ? { record: toRecord(row, decodeJsonText), session: toSession(row, decodeJsonText, "s_") }
        : null;
    });
  }

  getSource(searchId: string, position: number): Promise<string | null> {
    return this.db.guard(() => {
      if (!Number.isSafeInteger(position) || position < 0 || position >= MAX_SESSION_RECORDS) return null;
      const source = this.db.row(SQL.getSource, position, searchId)?.source;
      return typeof source === "string" ? source : null;
    });
  }

  sweepExpired(before: number, limit: number): Promise<number> {
    return this.db.write({ t: "sweep", before, limit });
  }
}

/** A session write (the sweep), on the writer's connection inside its batch's transaction. */
export function applySessionWrite(st: Statements, op: SessionWrite): number {
  const { before, limit } = op;
  if (limit <= 0) return 0;
  const expired = st.get(SQL.expiredSessions).all(before, Math.floor(limit)) as Raw[];
  const deleteRecords = st.get(SQL.deleteRecordsOf);
  const deleteSession = st.get(SQL.deleteSession);
  for (const row of expired) {
    const seq = Number(row.seq);
    deleteRecords.run(slotOf(seq, 0), slotOf(seq + 1, 0));
    deleteSession.run(seq);
  }
  return expired.length;
}

/**
 * Record rows: a page's drafts as the rows stored with a search (ids, positions, the page's source
 * on its first row), what a capability sees of a stored record, and a record's stored detail.
 */
import type { Capability, SearchPage, StoredRecordView } from "../capabilities/types.ts";
import { invalidRequest } from "../errors.ts";
import type { IdGenerator } from "../ids.ts";
import { type CachedAction, MAX_SESSION_RECORDS, type RecordRow, type SearchStore, type SessionRow } from "../store/types.ts";
import { queryAt } from "./session-state.ts";

/** Refuse a page that would take a search past MAX_SESSION_RECORDS (inside the billed work: released, not charged). */
export function assertRoom(from: number, count: number): void {
  if (from + count > MAX_SESSION_RECORDS) {
    throw invalidRequest([
      { path: "/action", message: `this search holds its maximum of ${MAX_SESSION_RECORDS} records; execute a new search to go on` },
    ]);
  }
}

/** What a capability sees of a stored record (its detail mapping and its record actions), with the query it was found under. */
export function recordView(record: RecordRow, session: SessionRow): StoredRecordView {
  return { summary: record.summary, ref: record.ref, detail: record.detail, query: queryAt(session, record.position) };
}

export class RecordRows {
  constructor(private readonly deps: { ids: IdGenerator; store: Pick<SearchStore, "getSource"> }) {}

  /**
   * A page's drafts as rows from position `from`. When the capability maps its stored details from
   * the page's source, the first row holds the source and every row points at it.
   */
  fromPage(cap: Capability, searchId: string, accountId: string, page: SearchPage, from: number): RecordRow[] {
    const drafts = page.records;
    assertRoom(from, drafts.length);
    const source = cap.detailFromSource !== undefined && page.source !== undefined ? page.source : undefined;
    const rows: RecordRow[] = drafts.map((d, i) => ({
      id: this.deps.ids.recordId(),
      searchId,
      accountId,
      position: from + i,
      summary: d.summary,
      ref: d.ref ?? null,
      detail: d.detail ?? null,
      links: d.links ?? null,
      actions: {},
      sourceAt: source === undefined ? null : from,
    }));
    if (source !== undefined && rows.length > 0) rows[0]!.source = source;
    return rows;
  }

  /**
   * A record's stored detail: the one written at search time, else mapped from its page's source;
   * null when it has neither (or the source no longer holds it).
   */
  async storedDetail(cap: Capability, record: RecordRow, session: SessionRow): Promise<CachedAction | null> {
    if (record.detail !== null) return { detail: record.detail, links: record.links ?? [] };
    if (record.sourceAt === null || !cap.detailFromSource) return null;
    const source = await this.deps.store.getSource(record.searchId, record.sourceAt);
    if (source === null) return null;
    return cap.detailFromSource(source, recordView(record, session));
  }
}

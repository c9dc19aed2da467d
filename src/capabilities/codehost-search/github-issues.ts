/**
 * codehost.search `kind: issues`: issues and pull requests together. GitHub's `/search/issues`
 * refuses a query that names neither kind (422 "Query must include 'is:issue' or 'is:pull-request'"),
 * and both qualifiers in one query are ANDed (nothing matches), so a query that names no kind is
 * asked as two searches, `… is:issue` and `… is:pull-request`, merged here into one ordered stream.
 * A query that names its kind itself (`is:issue`, `is:pr`, `is:pull-request`, `type:issue`,
 * `type:pr`) is sent as written, one search; one with an issue type (`type:Bug`: only issues have
 * types) is sent with `is:issue` added, one search.
 *
 * The merge. Each stream is GitHub's own ordering for the sort asked (best match: `score`
 * descending; `created`, `updated`: that date descending; `comments`: the count descending), so a
 * slice of `num` takes, one at a time, the head that comes first in that order (ties: issues first).
 * The cursor holds each stream's offset, the number of its results already returned, or null once
 * the stream is used up: `{issues: n | null, pulls: m | null}`. A stream at offset `o` is read from
 * GitHub's page `floor(o / num) + 1` of `num` results, from position `o mod num`; when its part of
 * that page runs out before the slice is full and it has more, its next page is read (a slice sends
 * 2 requests, at most 4). No result is returned twice or skipped, whatever the sort, because each
 * stream is consumed in its own order. Each stream stops at GitHub's 1,000-result cap (a stream's
 * results past its 1,000th are never read), below its `total_count`, and at a short page.
 * `has_more` is true while a stream holds an unread result or GitHub reports more.
 */
import type { JsonValue, RecordDraft, SourcePage } from "../types.ts";
import { capNote, type GitHubIssueItem, type GitHubIssueSearch, INCOMPLETE_NOTE, issueRecord, SEARCH_RESULT_CAP } from "./github.ts";

export type IssueStream = "issues" | "pulls";

/** How a query is asked: as written (one search), or as two searches merged. */
export type IssuePlan = { kind: "single"; q: string } | { kind: "merged"; issues: string; pulls: string };

/** A kind qualifier the query names itself (not negated: `-is:pr` names none). */
const KIND_QUALIFIER = /(?:^|[\s(])(?:is|type):(?:issues?|prs?|pull-requests?|pullrequests?)(?=$|[\s)])/i;
/** Any other `type:` qualifier: an issue type (`type:Bug`, `type:"Feature request"`). */
const ISSUE_TYPE = /(?:^|[\s(])type:\S/i;

export function issuePlan(query: string): IssuePlan {
  const q = query.trim();
  if (KIND_QUALIFIER.test(q)) return { kind: "single", q };
  if (ISSUE_TYPE.test(q)) return { kind: "single", q: `${q} is:issue` };
  return { kind: "merged", issues: `${q} is:issue`, pulls: `${q} is:pull-request` };
}

export interface MergedCursor {
  issues: number | null;
  pulls: number | null;
}

const STREAMS: readonly IssueStream[] = ["issues", "pulls"];

function offsetOf(value: JsonValue | undefined): number | null | undefined {
  if (value === null) return null;
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value < SEARCH_RESULT_CAP ? value : undefined;
}

/** The merged cursor of a slice: null (or anything else) is the first slice, both streams at 0. */
export function parseMergedCursor(cursor: JsonValue): MergedCursor {
  if (cursor !== null && typeof cursor === "object" && !Array.isArray(cursor)) {
    const issues = offsetOf(cursor.issues);
    const pulls = offsetOf(cursor.pulls);
    if (issues !== undefined && pulls !== undefined && (issues !== null || pulls !== null)) return { issues, pulls };
  }
  return { issues: 0, pulls: 0 };
}

/** The order key of a result for the sort asked: larger comes first. */
function orderOf(item: GitHubIssueItem, sort: string | undefined): number | string {
  if (sort === "created") return item.created_at ?? "";
  if (sort === "updated") return item.updated_at ?? "";
  if (sort === "comments") return item.comments ?? 0;
  return item.score ?? 0;
}

/** One stream's state while a slice is taken. */
interface StreamRead {
  /** GitHub page last read (pages of `num`). */
  page: number;
  /** The stream's results from its offset on, read but not yet returned. */
  unread: GitHubIssueItem[];
  /** Results of this stream returned in this slice. */
  taken: number;
  /** GitHub has results past the pages read, inside the cap. */
  more: boolean;
  total: number;
  incomplete: boolean;
}

/** Reads page `page` of a stream (pages of `num`); null when GitHub answered that it lies past the cap. */
export type ReadIssuePage = (stream: IssueStream, page: number) => Promise<GitHubIssueSearch | null>;

function absorb(read: StreamRead, body: GitHubIssueSearch | null, page: number, from: number, num: number): void {
  read.page = page;
  if (body === null) {
    read.more = false;
    return;
  }
  // Positions of this page in the stream: (page-1)·num onwards; only those below the cap count.
  const start = (page - 1) * num;
  const items = body.items.slice(from, Math.max(from, SEARCH_RESULT_CAP - start));
  read.unread.push(...items);
  read.total = Math.max(read.total, body.total_count);
  read.incomplete ||= body.incomplete_results === true;
  read.more = body.items.length >= num && page * num < Math.min(body.total_count, SEARCH_RESULT_CAP);
}

/**
 * One slice of `num` results of the two streams merged in the order of `sort`, from `cursor`, and
 * the cursor after it (null when both streams are used up).
 */
export async function mergedIssueSlice(read: ReadIssuePage, cursor: MergedCursor, sort: string | undefined, num: number): Promise<SourcePage> {
  const state = new Map<IssueStream, StreamRead>();
  await Promise.all(
    STREAMS.map(async (stream) => {
      const offset = cursor[stream];
      if (offset === null) return;
      const page = Math.floor(offset / num) + 1;
      const s: StreamRead = { page, unread: [], taken: 0, more: false, total: 0, incomplete: false };
      absorb(s, await read(stream, page), page, offset % num, num);
      state.set(stream, s);
    }),
  );
  const picked: GitHubIssueItem[] = [];
  while (picked.length < num) {
    // A stream whose read part ran out but that has more is read on before any head is chosen.
    for (const [stream, s] of state) {
      if (s.unread.length === 0 && s.more) absorb(s, await read(stream, s.page + 1), s.page + 1, 0, num);
    }
    let best: StreamRead | undefined;
    for (const stream of STREAMS) {
      const s = state.get(stream);
      const head = s?.unread[0];
      if (s === undefined || head === undefined) continue;
      if (best === undefined || orderOf(head, sort) > orderOf(best.unread[0]!, sort)) best = s;
    }
    if (best === undefined) break;
    picked.push(best.unread.shift()!);
    best.taken += 1;
  }
  const next: MergedCursor = { issues: null, pulls: null };
  for (const stream of STREAMS) {
    const s = state.get(stream);
    const offset = cursor[stream];
    if (s !== undefined && offset !== null && (s.unread.length > 0 || s.more)) next[stream] = offset + s.taken;
  }
  const notes: string[] = [];
  const streams = [...state.values()];
  if (streams.some((s) => s.incomplete)) notes.push(INCOMPLETE_NOTE);
  const issues = state.get("issues");
  const pulls = state.get("pulls");
  for (const [s, what] of [
    [issues, "issues"],
    [pulls, "pull requests"],
  ] as const) {
    if (s !== undefined && s.total > SEARCH_RESULT_CAP && s.unread.length === 0 && !s.more) notes.push(capNote(s.total, what));
  }
  const records = picked.flatMap((item): RecordDraft[] => {
    const record = issueRecord(item);
    return record === undefined ? [] : [record];
  });
  const done = next.issues === null && next.pulls === null;
  return { records, next: done ? null : { issues: next.issues, pulls: next.pulls }, ...(notes.length > 0 ? { notes } : {}) };
}

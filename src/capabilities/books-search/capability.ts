/**
 * books.search (spec 4.6): books (works) from Open Library's search, by words, author and/or subject;
 * page paging; free `details` fetched from the work and its editions, cached on the record.
 */
import { pageOf } from "../framework/cursors.ts";
import { type Static, Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { free } from "../framework/costs.ts";
import { type ActionOutput, defineCapability, type RecordView } from "../framework/define.ts";
import { httpSource } from "../framework/http-source.ts";
import { atLeastOne } from "../framework/rules.ts";
import type { CapabilityContext } from "../types.ts";
import {
  redirectTarget,
  toDetail,
  toEditionsRequest,
  toSearchPage,
  toSearchRequest,
  toWorkRequest,
  WORK_ID_PATTERN,
} from "./openlibrary.ts";
import { DAY } from "../framework/durations.ts";
import { type BooksSearchQuery, booksSearchSchema } from "./schema.ts";

export { type BooksSearchQuery, booksSearchSchema } from "./schema.ts";

/** The work and its first page of editions, asked together. */
function fetchWork(ctx: CapabilityContext<unknown>, id: string) {
  return Promise.all([
    ctx.upstream.send(toWorkRequest(id), ctx.signal),
    ctx.upstream.send(toEditionsRequest(id), ctx.signal),
  ]);
}

/** A work's details: the work (one redirect followed) and its first page of editions, both free. */
/** What `details` needs: the record's Open Library work id (WORK_ID_PATTERN). */
const needsWork = {
  ref: Type.Object({ work_id: Type.String({ pattern: WORK_ID_PATTERN }) }),
  refusal: "The record carries no Open Library work id.",
  message: "This record has no stored work id, so its details cannot be fetched.",
};

async function workDetails(ctx: CapabilityContext<unknown>, record: RecordView<BooksSearchQuery, Static<typeof needsWork.ref>>): Promise<ActionOutput> {
  let id = record.ref.work_id;
  let [work, editions] = await fetchWork(ctx, id);
  const moved = work.status === 200 ? redirectTarget(work.body) : undefined;
  if (moved !== undefined) {
    id = moved;
    [work, editions] = await fetchWork(ctx, id);
  }
  if (work.status === 404) {
    throw invalidRequest(
      [{ path: "/record_id", message: `Open Library no longer has work ${id}.` }],
      "The work of this record is gone from Open Library; search again.",
    );
  }
  return toDetail(id, work.body, editions.status === 404 ? undefined : editions.body);
}

export const booksSearch = defineCapability({
  id: "books.search",
  title: "Book search",
  summary: "Books (works) from Open Library by words, author or subject, with editions, ISBNs and covers.",
  description:
    "Searches Open Library's catalogue of works. Give at least one of `query` (words), `author` and " +
    "`subject`; given together they all apply. Each record is a work: title, Open Library URL and, when " +
    "Open Library has them, `authors`, `first_published` (year), `editions` (count), `rating` (average of " +
    "readers' ratings, 1-5), up to 10 `subjects`, one `isbn` (an ISBN-13 when the work has one) and " +
    "`cover_url`; records carry no snippet. Page paging: `more` asks Open Library for the next page. " +
    "`details` fetches the work's description, full subject list, up to 20 editions with their ISBNs, " +
    "publishers and dates, the cover and the work's links (free, cached after the first call).",
  topic: "research and reading",
  schema: booksSearchSchema,
  recordKeys: Type.Object({
    authors: Type.Optional(Type.Array(Type.String())),
    first_published: Type.Optional(Type.Integer({ description: "Year of first publication." })),
    editions: Type.Optional(Type.Integer({ minimum: 0, description: "Number of editions." })),
    rating: Type.Optional(Type.Number({ description: "Average reader rating (1-5)." })),
    subjects: Type.Optional(Type.Array(Type.String(), { description: "Up to 10 subjects." })),
    isbn: Type.Optional(Type.String({ description: "One ISBN of the work (ISBN-13 when it has one)." })),
    cover_url: Type.Optional(Type.String({ description: "Cover image (medium size)." })),
  }),
  paging: "page",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: DAY,
  cost: free("Free: Open Library is a free public catalogue; searches and details cost 0 credits."),
  rules: [atLeastOne(["query", "author", "subject"], `Provide at least one of \`query\`, \`author\` or \`subject\`.`)],
  sources: [
    httpSource({
      id: "openlibrary",
      title: "Open Library",
      provider: "openlibrary",
      request: (query: BooksSearchQuery, cursor) => toSearchRequest(query, pageOf(cursor)),
      toPage: (body, query, cursor) => toSearchPage(body, pageOf(cursor), query.num),
    }),
  ],
  update: { example: { title: "The same search, 3 a page", params: { num: 3 } } },
  actions: {
    details: {
      description: "Description, subjects, up to 20 editions with ISBNs, cover and links of the work (free, cached).",
      mode: "fetched",
      needs: needsWork,
      run: workDetails,
    },
  },
  examples: [
    { title: "Books titled Quiet", body: { query: "quiet" } },
    { title: "Books about Denver, 2 a page", body: { query: "denver", num: 2 } },
  ],
});

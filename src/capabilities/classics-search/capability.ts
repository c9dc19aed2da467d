/**
 * classics.search (spec 4.6): public-domain books from Project Gutenberg's catalogue (Gutendex),
 * with English Wikisource's search as the fallback when Gutendex fails. Page paging (Gutendex
 * pages of 32 sliced into pages of `num`: gutendex.ts; Wikisource offsets: wikisource.ts), free.
 * `details` gives the excerpt and download links: for a Gutenberg book the excerpt is fetched once
 * from its plain-text file (free, then cached on the record and, per book, in the bounded cache);
 * for a Wikisource page it is the search snippet kept at search time (no provider call).
 */
import { Type } from "@sinclair/typebox";
import { STORED_DETAIL_GONE, sessionExpired } from "../../errors.ts";
import { free } from "../framework/costs.ts";
import { defineCapability } from "../framework/define.ts";
import { httpSource } from "../framework/http-source.ts";
import { atLeastOne } from "../framework/rules.ts";
import type { CapabilityContext, } from "../types.ts";
import { excerptOf, toExcerptRequest } from "./gutenberg.ts";
import { type GutendexPage, gutendexSlice, needsNextPage, parseGutendexCursor, toGutenbergRecord, toGutendexRequest } from "./gutendex.ts";
import { parseWikisourceCursor, toWikisourcePage, toWikisourceRequest, wikisourceFallbackNotes } from "./wikisource.ts";
import { DAY } from "../framework/durations.ts";
import { type ClassicsSearchQuery, classicsSearchSchema, EITHER } from "./schema.ts";

export { type ClassicsSearchQuery, classicsSearchSchema } from "./schema.ts";

/** How long a book's excerpt stays in the bounded cache (the text of a public-domain book rarely changes). */
const EXCERPT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

async function gutendexPage(ctx: CapabilityContext<unknown>, query: ClassicsSearchQuery, page: number): Promise<GutendexPage> {
  const response = await ctx.upstream.send(toGutendexRequest(query, page), ctx.signal);
  return response.body;
}

const storedLinks = Type.Array(Type.Object({ label: Type.String(), url: Type.String() }));
/** What `details` needs: a Wikisource page, or a Gutenberg book's id and whether it has a plain text; both with their links. */
const classicRef = Type.Union([
  Type.Object({ source: Type.Literal("wikisource"), links: storedLinks }),
  Type.Object({ source: Type.Literal("gutenberg"), gutenberg_id: Type.Integer(), has_plain_text: Type.Boolean(), links: storedLinks }),
]);

export const classicsSearch = defineCapability({
  id: "classics.search",
  title: "Classic books search",
  summary: "Find public-domain classics on Project Gutenberg, with excerpts and plain-text, EPUB and HTML downloads.",
  description:
    "Searches Project Gutenberg's catalogue through Gutendex by title and author words (`query`, `author`; give at " +
    "least one, both are searched together) and optionally by book language (`language`, ISO 639-1). Records carry " +
    "`source` (`gutenberg`), authors, languages, subjects and download counts. Page paging: `more` continues exactly " +
    "after the last book returned. When Gutendex is unavailable, English Wikisource's search answers instead: its " +
    "records carry `source` `wikisource`, title, url and `words` (word count) only, and `notes[]` says which keys " +
    "are absent and that the language filter was not applied; `more` stays on the source that answered. `details` " +
    "(free, cached) gives an excerpt and the download links: for a Gutenberg book the opening of its plain text " +
    "(fetched once) with links to the plain text, EPUB and HTML editions; for a Wikisource page the search excerpt " +
    "and the page link.",
  topic: "research and reading",
  schema: classicsSearchSchema,
  recordKeys: Type.Object({
    source: Type.String({ enum: ["gutenberg", "wikisource"], description: "Which catalogue answered." }),
    authors: Type.Optional(Type.Array(Type.String(), { description: "As the catalogue writes them (Gutenberg: \"Surname, Given\")." })),
    languages: Type.Optional(Type.Array(Type.String(), { description: "ISO 639-1 codes." })),
    subjects: Type.Optional(Type.Array(Type.String())),
    downloads: Type.Optional(Type.Integer({ minimum: 0, description: "Project Gutenberg downloads in the last 30 days." })),
    words: Type.Optional(Type.Integer({ minimum: 0, description: "Word count (Wikisource)." })),
  }),
  paging: "page",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: DAY,
  cost: free("Free: Gutendex, Project Gutenberg and Wikisource are free public services; searches and details cost 0 credits."),
  rules: [atLeastOne(["query", "author"], EITHER)],
  sources: [
    {
      id: "gutendex",
      title: "Gutendex",
      providers: ["gutendex"],
      async search(ctx, query, cursor) {
        const at = parseGutendexCursor(cursor);
        const first = await gutendexPage(ctx, query, at.page);
        const second = needsNextPage(first, at, query.num) ? await gutendexPage(ctx, query, at.page + 1) : null;
        const slice = gutendexSlice(first, second, at, query.num);
        return { records: slice.books.flatMap((b) => toGutenbergRecord(b) ?? []), next: slice.next === null ? null : { ...slice.next } };
      },
    },
    httpSource({
      id: "wikisource",
      title: "Wikisource",
      provider: "wikisource",
      request: (query: ClassicsSearchQuery, cursor) => toWikisourceRequest(query, parseWikisourceCursor(cursor)),
      toPage: (body, _query, cursor) => toWikisourcePage(body, parseWikisourceCursor(cursor)),
      fallbackNotes: wikisourceFallbackNotes,
    }),
  ],
  update: { example: { title: "The same search, books in English only", params: { language: "en" } } },
  actions: {
    details: {
      description:
        "Excerpt and download links (free, cached). Gutenberg books: the opening of the plain text, fetched once, with " +
        "plain-text, EPUB and HTML links; Wikisource pages: the search excerpt and the page link.",
      mode: "fetched",
      needs: { ref: classicRef, refusal: "The record carries no Project Gutenberg book id." },
      async run(ctx, record) {
        const ref = record.ref;
        if (record.detail === null) throw sessionExpired(STORED_DETAIL_GONE);
        const links = ref.links.map((l) => ({ ...l }));
        if (ref.source === "wikisource") return { detail: record.detail, links, billed: false };
        const id = ref.gutenberg_id;
        if (!ref.has_plain_text) {
          return { detail: { ...record.detail, excerpt: null, excerpt_note: "Project Gutenberg has no plain-text edition of this book." }, links, billed: false };
        }
        const excerpt = await ctx.cache.getOrLoad("gutenberg-excerpt", String(id), { ttlMs: EXCERPT_TTL_MS }, async () => {
          const response = await ctx.upstream.send(toExcerptRequest(id), ctx.signal);
          const type = response.headers["content-type"];
          return { text: excerptOf(response.body, Array.isArray(type) ? type[0] : type) };
        });
        return { detail: { ...record.detail, excerpt: excerpt.text }, links };
      },
    },
  },
  // The first example's first recorded book is Frankenstein (Gutenberg #84), whose plain text's
  // opening is recorded for the replay upstream (fixtures/providers/gutenberg).
  examples: [
    { title: "Frankenstein", body: { query: "Frankenstein" } },
    { title: "Books by Jane Austen in English, 5 a page", body: { author: "Austen", language: "en", num: 5 } },
  ],
});

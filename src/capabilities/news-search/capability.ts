/**
 * news.search (spec 4.6): Google News results through Serper `POST /news`, page paging, charged
 * from the credits Serper reports ($0.001 each). Details are stored at search time: the news
 * index's metadata and the original link, never the article.
 */
import { Type } from "@sinclair/typebox";
import { defineCapability } from "../framework/define.ts";
import { serperSource } from "../shared/serper.ts";
import { listedNewsCredits, PUBLISHER_PAGE_NOTE, toNewsPage } from "./serper-news.ts";
import { HOUR } from "../framework/durations.ts";
import { newsSearchSchema } from "./schema.ts";

export { type NewsSearchQuery, newsSearchSchema } from "./schema.ts";

export const newsSearch = defineCapability({
  id: "news.search",
  title: "News search",
  summary: "Google News articles (title, link, publisher, relative date) through Serper; the articles themselves are not included.",
  description:
    "Searches Google News through Serper. Each record is the news index's metadata of one article: title, link, " +
    "snippet, and when present `publisher`, `published_label` (the date as Google shows it, e.g. \"6 hours ago\") and " +
    "`image_url`; always `source` (the index), `fetched_at` (when Quarry asked) and `content_scope` " +
    `(\`indexed_metadata\`). \`details\` is that stored metadata and the original link, free. ${PUBLISHER_PAGE_NOTE} ` +
    "Page paging (a short page is the last; Google serves about the first 100 results).",
  topic: "web and news",
  schema: newsSearchSchema,
  recordKeys: Type.Object({
    publisher: Type.Optional(Type.String({ description: "The outlet that published the article." })),
    published_label: Type.Optional(Type.String({ description: "When it was published, as Google shows it (e.g. \"6 hours ago\")." })),
    image_url: Type.Optional(Type.String()),
    source: Type.String({ description: "The index the metadata comes from." }),
    fetched_at: Type.String({ description: "When Quarry fetched it (ISO 8601)." }),
    content_scope: Type.String({ description: "What the record holds of the article: `indexed_metadata`." }),
  }),
  paging: "page",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: HOUR,
  cost: {
    perUnit: 0.001,
    maxUnits: (query) => listedNewsCredits(query.num),
    basis:
      "$0.001 (1 credit) per credit Serper reports for the search, including the whole fetched page: 1 for up to 10 " +
      "results, 2 above (reserved as such); `more` and `update` are billed the same; `details` is free.",
  },
  sources: [
    serperSource("/news", (body, page, query, now) => toNewsPage(body, page, query.num, now.toISOString())),
  ],
  update: { example: { title: "The same news, past week only", params: { time_range: "week" } } },
  actions: {
    details: { description: "The stored index metadata and the original link (free); the publisher's page is not included.", mode: "stored" },
  },
  examples: [
    { title: "News about a company, up to 20 articles", body: { query: "apple inc", num: 20 } },
    { title: "US edition in English, past week", body: { query: "apple inc", country: "us", language: "en", time_range: "week", num: 20 } },
  ],
});

/**
 * web.search (spec 4.6): Google web results through Serper `POST /search`: the answer box, the
 * knowledge graph and the organic results, page paging, 1 credit a search. The record action
 * `read` reads a record's page through the reader (src/reader, the same as web.read): 5 credits,
 * fetched once then cached on the record.
 */
import { Type } from "@sinclair/typebox";
import { type ReaderOptions, readerSettings, readPage } from "../../reader/reader.ts";
import { defineCapability } from "../framework/define.ts";
import { serperSource } from "../shared/serper.ts";
import { toSearchPage } from "./serper-search.ts";
import { HOUR } from "../framework/durations.ts";
import { webSearchSchema } from "./schema.ts";

export { type WebSearchQuery, webSearchSchema } from "./schema.ts";

/** Characters of a page `read` returns (web.read's default `max_chars`). */
export const READ_MAX_CHARS = 20_000;

/** The capability, with the reader's test options (a stub resolver); the registry's uses the defaults. */
export function webSearchCapability(options: ReaderOptions = {}) {
  return defineCapability({
    id: "web.search",
    title: "Web search",
    summary: "Google web results (answer box, knowledge graph, organic results); `read` turns a result's page into Markdown.",
    description:
      "Searches the web through Serper (Google results). Records have `kind` `answer_box`, `knowledge_graph` or " +
      "`organic`: organic ones carry their `position` (rank) and `date` when Google shows one; the knowledge graph " +
      "carries `type` and `attributes`; answer boxes and knowledge graphs also keep Serper's own extra keys. " +
      "`time_range` limits results to the past day, week, month or year; `country` and `language` localise them. " +
      "Page paging (`more` asks for the next page; a short page is the last, and Google serves about the first 100 " +
      `results). \`read\` fetches a record's page and returns its main content as Markdown (at most ${READ_MAX_CHARS} ` +
      "characters), through the same reader as web.read, then cached on the record; a record without a " +
      "`url` (some answer boxes) cannot be read.",
    topic: "web and news",
    schema: webSearchSchema,
    recordKeys: Type.Object({
      kind: Type.Union([Type.Literal("organic"), Type.Literal("answer_box"), Type.Literal("knowledge_graph")]),
      position: Type.Optional(Type.Integer({ minimum: 1, description: "Rank among the organic results." })),
      date: Type.Optional(Type.String({ description: "Date Google shows for the result, as shown." })),
      type: Type.Optional(Type.String({ description: "Knowledge graph: what the entity is." })),
      attributes: Type.Optional(Type.Object({}, { additionalProperties: true, description: "Knowledge graph: facts about the entity." })),
      answer: Type.Optional(Type.String({ description: "Answer box (Serper's key): the answer." })),
      snippetHighlighted: Type.Optional(Type.Array(Type.String(), { description: "Answer box (Serper's key): highlighted parts." })),
      website: Type.Optional(Type.String({ description: "Knowledge graph (Serper's key): the entity's website." })),
      imageUrl: Type.Optional(Type.String({ description: "Knowledge graph (Serper's key): an image." })),
      descriptionSource: Type.Optional(Type.String({ description: "Knowledge graph (Serper's key): where the description is from." })),
      descriptionLink: Type.Optional(Type.String({ description: "Knowledge graph (Serper's key): the description's source page." })),
    }),
    paging: "page",
    deadlineMs: 15_000,
    // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
    cacheTtlMs: HOUR,
    cost: {
      perCall: 0.001,
      basis: "1 credit ($0.001) per Serper search, charged whenever Serper answers; `more` and `update` are billed the same. `read`: 5 credits ($0.005) a page, then cached (0).",
    },
    sources: [
      serperSource("/search", (body, page, query) => toSearchPage(body, page, query.num)),
    ],
    update: { example: { title: "The same search, past year only", params: { time_range: "year" } } },
    actions: {
      read: {
        description: `The record's page as Markdown (main content, at most ${READ_MAX_CHARS} characters). 5 credits, then cached.`,
        mode: "fetched",
        cost: { perCall: 0.005 },
        // An answer box without a link has no page.
        needs: {
          ref: Type.Object({ url: Type.String() }),
          refusal: (record) => `this ${String(record.summary.kind ?? "record")} carries no url, so there is no page to read`,
          message: "This record has no page to read: answer boxes without a link cannot be read.",
        },
        async run(ctx, record) {
          const url = record.ref.url;
          const page = await readPage(ctx, { url, format: "markdown", maxChars: READ_MAX_CHARS, pointer: "/record_id" });
          return {
            detail: {
              url: page.url,
              ...(page.title === undefined ? {} : { title: page.title }),
              content: page.content,
              chars: page.chars,
              truncated: page.truncated,
              format: page.format,
              ...(page.notes.length > 0 ? { notes: page.notes } : {}),
            },
            links: [{ label: "Page", url: page.url }],
          };
        },
      },
    },
    settings: (env: Readonly<Record<string, string | undefined>>) => readerSettings(env, options),
    examples: [
      { title: "Web results for a company", body: { query: "apple inc" } },
      { title: "Past year, from the US, in English", body: { query: "apple inc", country: "us", language: "en", time_range: "year" } },
    ],
  });
}

export const webSearch = webSearchCapability();

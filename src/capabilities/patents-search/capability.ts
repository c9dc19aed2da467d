/**
 * patents.search: US patents from the PatentsView PatentSearch API (needs PATENTSVIEW_API_KEY).
 * The spec shows neither fields nor records (2.11, 4.6: "not shown"); this is Quarry's design, in the
 * style of the others and documented in inspect, OpenAPI and docs/providers.md: words in title and
 * abstract, a grant-date range, assignee and inventor filters; records with number, title, date,
 * assignees, inventors, abstract snippet and CPC groups; token paging on PatentSearch's `after`
 * cursor; free `details` fetched once and cached.
 */
import { type Static, Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { free } from "../framework/costs.ts";
import { defineCapability } from "../framework/define.ts";
import { isoDate, num, oneOf, oneOfOr, text } from "../framework/fields.ts";
import { atLeastOne, custom, range, validDate } from "../framework/rules.ts";
import { parseCursor, patentId, toDetail, toDetailRequest, toSearchPage, toSearchRequest } from "./patentsview.ts";

const FILTER = "Give at least one of `query`, `assignee`, `inventor`, `from_date`, `to_date`; they combine.";

export const patentsSearchSchema = Type.Object(
  {
    query: Type.Optional(text(1, 300, "Words to find in the title or abstract (how they match: `match`).")),
    match: oneOf(
      ["all", "any", "phrase"],
      "How `query` matches (needs `query`): `all` its words (the default), `any` of them, or the exact `phrase`.",
    ),
    from_date: Type.Optional(isoDate("Granted on or after this date (YYYY-MM-DD); not after `to_date`.")),
    to_date: Type.Optional(isoDate("Granted on or before this date (YYYY-MM-DD)")),
    assignee: Type.Optional(text(1, 200, `Assignee organization, as a phrase, e.g. "Teikoku Seiyaku".`)),
    inventor: Type.Optional(text(1, 200, `Inventor: "First Last" or a last name, e.g. "Noriyuki Sasaki".`)),
    sort: oneOfOr(["newest", "oldest"], "newest", "Grant date order: `newest` first (default) or `oldest` first."),
    num: num(25, 10),
  },
  { additionalProperties: false, description: FILTER },
);

export type PatentsSearchQuery = Static<typeof patentsSearchSchema>;

/**
 * `match` needs `query`. The vocabulary's `requires` says this, but publishes it as
 * `dependentRequired`, which the schema fuzzer's oracle (test/helpers/fuzz-schema.ts) does not know
 * yet; this rule reports the same violation at the same pointers without a schema fragment.
 */
export const matchNeedsQuery = custom("`match` requires `query`.", ({ query, sent }) => {
  if (query.match === undefined || query.query !== undefined) return [];
  const at = sent !== undefined && !sent.has("match") && sent.has("query") ? "/query" : "/match";
  return [{ path: at, message: at === "/match" ? "`match` requires `query`." : "`match` (from the search) requires `query`." }];
});

export const patentsSearch = defineCapability({
  id: "patents.search",
  title: "Patent search",
  summary: "US granted patents from PatentsView by words, grant dates, assignee or inventor, with CPC classes.",
  description:
    "Searches US granted patents in the PatentsView PatentSearch API (USPTO data). Filters, all optional but " +
    "at least one required, combine: `query` (words in the title or abstract; `match`: `all` words by " +
    "default, `any`, or the exact `phrase`), `from_date`/`to_date` (grant date range, YYYY-MM-DD, valid dates, " +
    "`from_date` not after `to_date`), `assignee` (organization name as a phrase) and `inventor` (\"First Last\" " +
    "or a last name). `sort`: `newest` (default) or `oldest` grant first. Each record has `patent_id` (the US " +
    "patent number, e.g. 5116621, D912345), the title, a Google Patents URL, the start of the abstract as " +
    "snippet and, when PatentsView has them, `date` (grant date), `type` (utility, design, plant, reissue), " +
    "up to 10 `assignees` and `inventors`, up to 10 `cpc` groups (current CPC, e.g. A61K9/7061) and `cited_by` " +
    "(times cited by US patents). Token paging: `more` continues after the last patent of the page " +
    "(PatentSearch's `after` cursor). `details` (free, cached) gives the full abstract, kind code, application " +
    "and filing dates, assignees and inventors with their places, all CPC groups and subclasses, citation " +
    "counts and foreign priority claims. Needs PATENTSVIEW_API_KEY (a free key from PatentsView).",
  topic: "research and reading",
  schema: patentsSearchSchema,
  recordKeys: Type.Object({
    patent_id: Type.String({ description: "US patent number as PatentsView writes it (5116621, D912345, RE49000)." }),
    date: Type.Optional(Type.String({ description: "Grant date, YYYY-MM-DD." })),
    type: Type.Optional(Type.String({ description: "utility, design, plant, reissue…" })),
    assignees: Type.Optional(Type.Array(Type.String(), { description: "Up to 10 assignees (organizations or people)." })),
    inventors: Type.Optional(Type.Array(Type.String(), { description: "Up to 10 inventors, First Last." })),
    cpc: Type.Optional(Type.Array(Type.String(), { description: "Up to 10 current CPC groups, e.g. A61K9/7061." })),
    cited_by: Type.Optional(Type.Integer({ minimum: 0, description: "Times cited by US patents." })),
  }),
  paging: "token",
  deadlineMs: 15_000,
  cost: free("Free: PatentsView's API is free with a key; searches and details cost 0 credits."),
  rules: [
    atLeastOne(["query", "assignee", "inventor", "from_date", "to_date"], "Provide at least one of `query`, `assignee`, `inventor`, `from_date` or `to_date`."),
    matchNeedsQuery,
    validDate("from_date"),
    validDate("to_date"),
    range("from_date", "to_date"),
  ],
  sources: [
    {
      id: "patentsview",
      title: "PatentsView",
      requiredKeys: ["PATENTSVIEW_API_KEY"],
      async search(ctx, query, cursor) {
        const at = parseCursor(cursor);
        const response = await ctx.upstream.send<unknown>(toSearchRequest(query, at), ctx.signal);
        return toSearchPage(response, query, at);
      },
    },
  ],
  update: { example: { title: "The same patents, oldest grant first", params: { sort: "oldest" } } },
  actions: {
    details: {
      description: "Full abstract, application, assignees and inventors with places, CPC groups, citation counts (free, cached).",
      mode: "fetched",
      async run(ctx, record) {
        const id = patentId(record.ref?.patent_id);
        if (id === undefined) {
          throw invalidRequest(
            [{ path: "/record_id", message: "The record carries no patent number." }],
            "This record has no stored patent number, so its details cannot be fetched.",
          );
        }
        const response = await ctx.upstream.send<unknown>(toDetailRequest(id), ctx.signal);
        const detail = toDetail(response, id);
        if (detail === undefined) {
          throw invalidRequest(
            [{ path: "/record_id", message: `PatentsView no longer lists patent ${id} (withdrawn patents leave the index).` }],
            "This patent is gone from PatentsView; search again.",
          );
        }
        return detail;
      },
    },
  },
  examples: [
    { title: "Patents about anti-inflammatory analgesic patches", body: { query: "anti-inflammatory analgesic patch" } },
    {
      title: "Teikoku Seiyaku's patents granted 1990-1995, oldest first",
      body: { assignee: "Teikoku Seiyaku", from_date: "1990-01-01", to_date: "1995-12-31", sort: "oldest" },
    },
    { title: "Patents by inventor Noriyuki Sasaki mentioning any of patch or plaster", body: { inventor: "Noriyuki Sasaki", query: "patch plaster", match: "any", num: 5 } },
  ],
});

/**
 * The Serper family (google.serper.dev), shared by web.search (`POST /search`) and news.search
 * (`POST /news`): the request (a JSON body: `q`, `num`, `page`, `gl`, `hl`, `tbs`; the key in the
 * `X-API-KEY` header, added by the client), the page cursor and its next-page rule, and how an
 * answer is read.
 *
 * Every request declares the schema of its endpoint's answer (the fields its mapper reads: a renamed
 * or retyped one is `502 provider_error` naming it) and carries `serperRefusal`, which reads Serper's
 * errors before that schema. Errors, as Serper sends them (a JSON body `{message, statusCode}`):
 * - 401 and 403 (a missing or wrong key, "Unauthorized."), or a 400 whose message is about the key or
 *   credits: about this deployment's own Serper account. The caller is told only that Serper refused
 *   the deployment's account; Serper's words go to the log (the error's cause);
 * - another 400 (a parameter Serper refused): `502 provider_error` carrying Serper's message;
 * - 429 and 5xx: the upstream client's (retried where allowed, then `provider_error`).
 */
import { pageOf } from "../framework/cursors.ts";
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { Source } from "../framework/sources.ts";
import type { JsonValue, SourcePage } from "../types.ts";
import { defined, obj, str } from "./read.ts";

export const TIME_RANGES = ["day", "week", "month", "year"] as const;
export type TimeRange = (typeof TIME_RANGES)[number];

/** `time_range` → Google's `tbs` (past day, week, month, year). */
const TBS: Record<TimeRange, string> = { day: "qdr:d", week: "qdr:w", month: "qdr:m", year: "qdr:y" };

/**
 * Google serves about the first 100 results of a search; a next page is offered while the results
 * read so far stay under it.
 */
export const SERPER_RESULT_CAP = 100;

/** The request fields web.search and news.search share. */
export interface SerperQuery {
  query: string;
  num: number;
  country?: string;
  language?: string;
  time_range?: TimeRange;
}

/** A box's or the knowledge graph's fields the mapper reads; their other keys are kept as Serper sends them. */
const boxFields = {
  answer: Type.Optional(Type.String()),
  snippet: Type.Optional(Type.String()),
  link: Type.Optional(Type.String()),
  date: Type.Optional(Type.String()),
};

/** One organic result: a title and the page's link (a result without them is not one). */
export const serperOrganic = Type.Object({
  title: Type.String(),
  link: Type.String(),
  snippet: Type.Optional(Type.String()),
  position: Type.Optional(Type.Number()),
  date: Type.Optional(Type.String()),
});

/** `POST /search`: organic results (always listed, maybe empty), the answer box and knowledge graph when Google shows them. */
export const serperSearchAnswer = Type.Object({
  organic: Type.Array(serperOrganic),
  answerBox: Type.Optional(Type.Object({ title: Type.Optional(Type.String()), ...boxFields })),
  knowledgeGraph: Type.Optional(
    Type.Object({
      title: Type.String(),
      type: Type.Optional(Type.String()),
      website: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      descriptionLink: Type.Optional(Type.String()),
      attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
  credits: Type.Optional(Type.Number()),
});
export type SerperSearchAnswer = Static<typeof serperSearchAnswer>;

/** One news article: a title and the article's link. */
export const serperNewsItem = Type.Object({
  title: Type.String(),
  link: Type.String(),
  snippet: Type.Optional(Type.String()),
  source: Type.Optional(Type.String()),
  date: Type.Optional(Type.String()),
  imageUrl: Type.Optional(Type.String()),
  position: Type.Optional(Type.Number()),
});

/** `POST /news`: the articles and the credits Serper billed (older answers leave them out). */
export const serperNewsAnswer = Type.Object({ news: Type.Array(serperNewsItem), credits: Type.Optional(Type.Number()) });
export type SerperNewsAnswer = Static<typeof serperNewsAnswer>;

/** The answer each endpoint declares. */
const ANSWERS = { "/search": serperSearchAnswer, "/news": serperNewsAnswer } as const;
type SerperEndpoint = keyof typeof ANSWERS;

/** `POST <endpoint>` with the query as Serper's JSON body, page `page` (1-based). */
export function serperRequest<E extends SerperEndpoint>(endpoint: E, query: SerperQuery, page: number): JsonRequest<(typeof ANSWERS)[E]> {
  return {
    provider: "serper",
    method: "POST",
    path: endpoint,
    body: defined({
      q: query.query,
      num: query.num,
      page,
      gl: query.country?.toLowerCase(),
      hl: query.language?.toLowerCase(),
      tbs: query.time_range === undefined ? undefined : TBS[query.time_range],
    }),
    // A search is billed once it runs: never retried blindly (POST); its 4xx bodies are read by the refusal.
    refusal: serperRefusal,
    response: ANSWERS[endpoint],
  };
}

/**
 * The next page's cursor. Serper reports no total, and Google often lists a few results fewer than
 * asked on pages that are not the last (8 or 9 of 10: the recorded "apple inc" page has 8), so a page
 * holding at least half of `num` is taken to mean more may follow; one holding fewer, to be the last.
 * No page starts past Google's first `SERPER_RESULT_CAP` results.
 */
export function nextSerperPage(page: number, num: number, listed: number): JsonValue {
  return listed >= Math.ceil(num / 2) && page * num < SERPER_RESULT_CAP ? { page: page + 1 } : null;
}

/** A 400's message about the account rather than the request (Serper's "Not enough credits"). */
const ACCOUNT_MESSAGE = /credit|api[ _-]?key|unauthori[sz]ed|account|plan/i;

/** Serper's refusals (see the header); undefined for an answer. Runs before the schema, whatever the status. */
export function serperRefusal(body: unknown, status: number): ApiError | undefined {
  if (status !== 400 && status !== 401 && status !== 403) return undefined;
  const message = str(obj(body)?.message);
  if (status === 401 || status === 403 || (status === 400 && message !== undefined && ACCOUNT_MESSAGE.test(message))) {
    return new ApiError("provider_error", "Serper refused this deployment's account (its key or credits); nothing was charged.", {
      retryable: false,
      hint: "Retrying will not help until the operator fixes the deployment's Serper account; the cause is in its log.",
      cause: new Error(`Serper (HTTP ${status}): ${message ?? "no message"}`),
    });
  }
  return new ApiError("provider_error", `Serper refused the search: ${message ?? `HTTP ${status}`}`, {
    retryable: false,
    hint: "Serper refused this request; nothing was charged. The same request is likely to be refused again: change it.",
  });
}

/** Credits Serper reports for an answer (`credits`), when it reports them. */
export function serperCredits(root: { credits?: number }): number | undefined {
  const c = root.credits;
  return typeof c === "number" && Number.isInteger(c) && c >= 0 ? c : undefined;
}

/**
 * The Serper source of a capability (web.search, news.search): the request for `endpoint` and the
 * page number of the cursor, mapped by `toPage(body, page, query, now)` (the answer checked against
 * the endpoint's schema). Serper's key is required (its provider's).
 */
export function serperSource<Q extends SerperQuery, S, E extends SerperEndpoint>(
  endpoint: E,
  toPage: (body: Static<(typeof ANSWERS)[E]>, page: number, query: Q, now: Date) => SourcePage,
): Source<Q, S> {
  return {
    id: "serper",
    title: "Serper",
    providers: ["serper"],
    async search(ctx, query, cursor) {
      const page = pageOf(cursor);
      const response = await ctx.upstream.send(serperRequest(endpoint, query, page), ctx.signal);
      return toPage(response.body, page, query, ctx.now());
    },
  };
}

/** The live check's probe: one web search, web.search's first example (Serper bills it: 1 credit, $0.001 or less). */
export const serperProbe: ProviderProbe = {
  provider: "serper",
  what: "one web search (1 credit)",
  request: serperRequest("/search", { query: "apple inc", num: 10 }, 1),
};

/**
 * A declared HTTP source: the shape most sources have, one provider request per slice, as data plus
 * two pure functions. `request(query, cursor)` builds the provider request with its declared
 * `response` schema, the engine sends it through the one upstream client (which checks the answer
 * against the schema: a drifted answer is `502 provider_error` naming the field, never an empty
 * page), and `toPage(body, query, cursor)` maps the checked body. The keys it needs come from the
 * provider table. Sources whose slice takes several requests (geocode then route, search then
 * details) write `search(ctx, …)` themselves and send the same declared requests.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import type { ProviderId } from "../../providers.ts";
import type { JsonRequest, UpstreamResponse } from "../../upstream/types.ts";
import type { JsonValue, SourcePage } from "../types.ts";
import type { Source } from "./sources.ts";

export interface HttpSourceDecl<Q, Settings, S extends TSchema> {
  /** Names the source in cursors (stable: stored in sessions). */
  id: string;
  /** The provider's name as people know it, for notes. */
  title: string;
  /** The provider it calls (its key, when the table says it needs one, is required). */
  provider: ProviderId;
  /** The provider request for one slice (pure): `cursor` is null for the first, else a `next` of `toPage`. */
  request(query: Q, cursor: JsonValue, settings: Settings): JsonRequest<S>;
  /** The checked answer → records, next cursor, notes (pure). Throw `ApiError("provider_error", …)` for an answer that says the provider failed. */
  toPage(body: Static<S>, query: Q, cursor: JsonValue, response: UpstreamResponse<Static<S>>): SourcePage;
  /** As Source.fallbackNotes. */
  fallbackNotes?(query: Q): string[];
}

export function httpSource<Q, Settings, S extends TSchema>(decl: HttpSourceDecl<Q, Settings, S>): Source<Q, Settings> {
  return {
    id: decl.id,
    title: decl.title,
    providers: [decl.provider],
    async search(ctx, query, cursor) {
      const response = await ctx.upstream.send(decl.request(query, cursor, ctx.settings), ctx.signal);
      return decl.toPage(response.body, query, cursor, response);
    },
    ...(decl.fallbackNotes === undefined ? {} : { fallbackNotes: decl.fallbackNotes }),
  };
}

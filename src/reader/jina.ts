/**
 * Jina Reader (`WEB_READ_ENGINE=jina`): `GET https://r.jina.ai/<url>` with `Accept:
 * application/json` answers `{code, status, data: {title, url, content, …}}`; `X-Return-Format`
 * asks for markdown or text. Pure mappers; the request goes through the provider client, its
 * failures counted per target host (`breakerKey`), so one broken or slow site never pauses Jina
 * for other callers' sites.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../errors.ts";
import type { ProviderProbe } from "../upstream/probe.ts";
import { nullish } from "../upstream/response-check.ts";
import type { JsonRequest } from "../upstream/types.ts";
import { num, obj, str } from "../capabilities/shared/read.ts";
import type { ReadFormat } from "./extract.ts";

/** What the mapper reads of a Jina answer: the page's content, and its URL and title when Jina gives them. */
export const jinaAnswer = Type.Object({
  data: Type.Object({ content: Type.String(), url: nullish(Type.String()), title: nullish(Type.String()) }),
});

/**
 * Jina's own error answers (its statuses 400-451 carry a body with `code`, `message`,
 * `readableMessage`), and a 200 whose `code` says the page failed: the error to answer.
 */
export function jinaRefusal(body: unknown, status: number): ApiError | undefined {
  const root = obj(body);
  if (status === 401 || status === 402 || status === 403) {
    return new ApiError("provider_error", "Jina Reader refused this deployment's account (its key or balance); nothing was charged.", {
      retryable: false,
      hint: "Retrying will not help until the operator fixes the deployment's Jina account; the cause is in its log.",
      cause: new Error(`Jina Reader (HTTP ${status}): ${str(root?.message) ?? "no message"}`),
    });
  }
  const code = num(root?.code);
  if (status !== 200 || (code !== undefined && code !== 200)) {
    const message = str(root?.readableMessage) ?? str(root?.message) ?? `HTTP ${status}`;
    return new ApiError("provider_error", `Jina Reader could not read the page: ${message}`, {
      hint: "The page failed to load at Jina Reader; nothing was charged.",
    });
  }
  return undefined;
}

export function jinaRequest(url: URL, format: ReadFormat): JsonRequest<typeof jinaAnswer> {
  return {
    provider: "jina",
    method: "GET",
    path: `/${url.href}`,
    headers: { "x-return-format": format === "text" ? "text" : "markdown" },
    breakerKey: `jina:${url.hostname}`,
    refusal: jinaRefusal,
    response: jinaAnswer,
  };
}

export interface JinaPage {
  url?: string;
  title?: string;
  content: string;
}

/** A checked Jina answer → the page. */
export function jinaPage(body: Static<typeof jinaAnswer>): JinaPage {
  const { data } = body;
  const url = str(data.url);
  const title = str(data.title);
  return { ...(url === undefined ? {} : { url }), ...(title === undefined ? {} : { title }), content: data.content.trim() };
}

/** The live check's probe: a small page read by Jina (billed by Jina like any read). */
export const jinaProbe: ProviderProbe = {
  provider: "jina",
  what: "one small page (example.com)",
  request: jinaRequest(new URL("https://example.com/"), "text"),
};

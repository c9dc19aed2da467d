/**
 * Jina Reader (`WEB_READ_ENGINE=jina`): `GET https://r.jina.ai/<url>` with `Accept:
 * application/json` answers `{code, status, data: {title, url, content, …}}`; `X-Return-Format`
 * asks for markdown or text. Pure mappers; the request goes through the provider client, its
 * failures counted per target host (`breakerKey`), so one broken or slow site never pauses Jina
 * for other callers' sites.
 */
import { ApiError } from "../errors.ts";
import type { UpstreamRequest } from "../upstream/types.ts";
import { num, obj, str } from "../capabilities/shared/read.ts";
import type { ReadFormat } from "./extract.ts";

/** Statuses Jina answers with its own error body: read, not retried as failures. */
const JINA_ANSWERS = [400, 401, 402, 403, 422, 451];

export function jinaRequest(url: URL, format: ReadFormat): UpstreamRequest {
  return {
    provider: "jina",
    method: "GET",
    path: `/${url.href}`,
    headers: { "x-return-format": format === "text" ? "text" : "markdown" },
    acceptStatus: JINA_ANSWERS,
    breakerKey: `jina:${url.hostname}`,
  };
}

export interface JinaPage {
  url?: string;
  title?: string;
  content: string;
}

/** A Jina answer → the page, or the error it reports. */
export function jinaPage(status: number, body: unknown): JinaPage {
  const root = obj(body);
  if (root === undefined) throw new ApiError("provider_error", `Jina Reader answered HTTP ${status} with a non-object body.`);
  if (status === 401 || status === 402 || status === 403) {
    throw new ApiError("provider_error", "Jina Reader refused this deployment's account (its key or balance); nothing was charged.", {
      hint: "Retrying will not help until the operator fixes the deployment's Jina account; the cause is in its log.",
      cause: new Error(`Jina Reader (HTTP ${status}): ${str(root.message) ?? "no message"}`),
    });
  }
  const data = obj(root.data);
  const code = num(root.code);
  if (status !== 200 || (code !== undefined && code !== 200) || data === undefined) {
    const message = str(root.readableMessage) ?? str(root.message) ?? `HTTP ${status}`;
    throw new ApiError("provider_error", `Jina Reader could not read the page: ${message}`, {
      hint: "The page failed to load at Jina Reader; nothing was charged.",
    });
  }
  const content = typeof data.content === "string" ? data.content.trim() : "";
  const url = str(data.url);
  const title = str(data.title);
  return { ...(url === undefined ? {} : { url }), ...(title === undefined ? {} : { title }), content };
}

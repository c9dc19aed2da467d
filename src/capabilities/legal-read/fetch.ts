/**
 * Fetching a document for legal.read: the bytes as the source sent them (their SHA-256 is the
 * details' `source_sha256`), decoded by the charset the source declares (header, byte-order mark or
 * HTML `<meta>`; src/reader/decode.ts). All I/O goes through `ctx.upstream` and a provider of the
 * table; no caller-chosen URL is ever fetched. The upstream client recognises a bot challenge in any
 * answer (src/upstream/challenge.ts): a challenge page is an error, never a document's text.
 */
import { decodePage } from "../../reader/decode.ts";
import type { DocumentKind } from "../../upstream/response-check.ts";
import type { BytesRequest, RequestBase } from "../../upstream/types.ts";
import type { CapabilityContext } from "../types.ts";

export interface Fetched {
  status: number;
  bytes: Uint8Array;
  text: string;
  contentType: string;
}

function header(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

/** `request` declaring its answer: a document of `kind` (an HTML page unless said otherwise), read as bytes. */
export function documentRequest(request: RequestBase, kind: DocumentKind = "html"): BytesRequest {
  return { ...request, responseType: "bytes", response: kind };
}

/** Fetch `request`'s document (an HTML page unless `kind` says otherwise) as the bytes the source sent. */
export async function fetchDocument(ctx: CapabilityContext<unknown>, request: RequestBase, kind: DocumentKind = "html"): Promise<Fetched> {
  const res = await ctx.upstream.send(documentRequest(request, kind), ctx.signal);
  const contentType = header(res.headers["content-type"]);
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  const bytes = res.body;
  return { status: res.status, bytes, text: decodePage(bytes, charset, /html|xml/i.test(contentType) || contentType === ""), contentType };
}

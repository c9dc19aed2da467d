/**
 * Fetching one page for the local reader: GET through the guarded agent (connector.ts), redirects
 * followed by hand (at most `MAX_REDIRECTS`, each target checked again as a new URL), the response
 * read up to a byte cap, and its content type checked before its body is read. It never uses the
 * provider client (src/upstream): the address here is the caller's choice, not a provider's.
 */
import type { Agent } from "undici";
import { request } from "undici";
import { type AddressPolicy, checkUrl, clipUrl } from "./address.ts";
import type { PageRoute } from "../upstream/types.ts";

/** Redirects followed at most (the sixth is refused). */
export const MAX_REDIRECTS = 5;

/** What the reader reads: HTML, plain text (and Markdown) as text, and PDF. */
export type PageKind = "html" | "text" | "pdf";

const KINDS: Record<string, PageKind> = {
  "text/html": "html",
  "application/xhtml+xml": "html",
  "text/plain": "text",
  "text/markdown": "text",
  "text/x-markdown": "text",
  "application/pdf": "pdf",
};

/** A page of a type the reader does not read: `400 invalid_request` naming the type. */
export class UnsupportedType extends Error {
  constructor(readonly type: string) {
    super(`the page is ${type}; the reader reads HTML, plain text and PDF`);
    this.name = "UnsupportedType";
  }
}

/** The site failed to give a page (an HTTP error status, too many redirects, a broken answer): 502. */
export class PageFailed extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = "PageFailed";
  }
}

export interface FetchOptions {
  agent: Agent;
  policy: AddressPolicy;
  userAgent: string;
  /** Largest response read, bytes; an HTML or text page beyond it is read to the cap, a PDF refused. */
  maxBytes: number;
  signal: AbortSignal;
  /**
   * Where pages are fetched from instead of their own address, when the deployment installed a route
   * (tests and the offline demo: the replay upstream); the URL is still checked as given, and the
   * connection as made.
   */
  route?: PageRoute;
}

export interface FetchedPage {
  /** The address the page came from, after redirects. */
  url: string;
  kind: PageKind;
  /** The media type as sent (`text/html`), or `sniffed` when the page sent none. */
  type: string;
  /** `charset` of the Content-Type header, when given. */
  charset?: string;
  bytes: Uint8Array;
  /** The body was longer than `maxBytes` and was cut there. */
  cut: boolean;
  /** Read through a route: what the route says about where the page's text came from. */
  routeNotes?: string[];
}

const ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.1";
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `text/html; charset=UTF-8` → the media type and charset. */
export function parseContentType(value: string | undefined): { type?: string; charset?: string } {
  if (value === undefined) return {};
  const [type, ...params] = value.split(";");
  const charset = params
    .map((p) => p.trim())
    .find((p) => /^charset=/i.test(p))
    ?.slice(8)
    .replace(/^["']|["']$/g, "")
    .trim();
  const t = type?.trim().toLowerCase();
  return { ...(t ? { type: t } : {}), ...(charset ? { charset } : {}) };
}

/** A page that sent no type: `%PDF-` is a PDF, markup is HTML; anything else is refused. */
function sniff(bytes: Uint8Array): PageKind | undefined {
  const head = Buffer.from(bytes.subarray(0, 512)).toString("latin1").replace(/^\uFEFF|^\xEF\xBB\xBF/, "").trimStart();
  if (head.startsWith("%PDF-")) return "pdf";
  if (/^<(?:!doctype html|html|head|body|!--)/i.test(head)) return "html";
  return undefined;
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, max: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > max) {
      chunks.push(chunk.subarray(0, max - size));
      size = max;
      body.destroy();
      return { bytes: Buffer.concat(chunks, size), cut: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks, size), cut: false };
}

/** Fetch `raw` (an absolute http(s) URL): see the module comment. Throws TargetRefused, UnsupportedType, PageFailed. */
export async function fetchPage(raw: string, options: FetchOptions): Promise<FetchedPage> {
  let url = checkUrl(raw, options.policy);
  for (let hop = 0; ; hop++) {
    const target = options.route === undefined ? url.href : options.route.target(url);
    const res = await request(target, {
      method: "GET",
      dispatcher: options.agent,
      signal: options.signal,
      headers: { "user-agent": options.userAgent, accept: ACCEPT, "accept-encoding": "identity" },
    });
    if (REDIRECTS.has(res.statusCode)) {
      await res.body.dump();
      const location = header(res.headers, "location");
      if (location === undefined) throw new PageFailed(`the page answered HTTP ${res.statusCode} without a Location`, res.statusCode);
      if (hop >= MAX_REDIRECTS) throw new PageFailed(`the page redirected more than ${MAX_REDIRECTS} times`);
      let next: string;
      try {
        next = new URL(location, url).href;
      } catch {
        throw new PageFailed(`the page redirected to "${clipUrl(location)}", which is not a URL`);
      }
      // Each hop is a new target: checked as the caller's URL was, and connected through the guard.
      url = checkUrl(next, options.policy);
      continue;
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      await res.body.dump();
      throw new PageFailed(`the page answered HTTP ${res.statusCode}`, res.statusCode);
    }
    const { type, charset } = parseContentType(header(res.headers, "content-type"));
    const encoding = header(res.headers, "content-encoding")?.trim().toLowerCase();
    if (encoding !== undefined && encoding !== "" && encoding !== "identity") {
      await res.body.dump();
      throw new PageFailed(`the page was sent ${encoding}-encoded though the reader asked for it unencoded`);
    }
    let kind = type === undefined ? undefined : KINDS[type];
    if (type !== undefined && kind === undefined) {
      await res.body.dump();
      throw new UnsupportedType(type);
    }
    const length = Number(header(res.headers, "content-length"));
    if (kind === "pdf" && length > options.maxBytes) {
      await res.body.dump();
      throw new PageFailed(`the PDF is ${length} bytes; the reader reads PDFs up to ${options.maxBytes} bytes`);
    }
    const { bytes, cut } = await readCapped(res.body, options.maxBytes);
    kind ??= sniff(bytes);
    if (kind === undefined) throw new UnsupportedType("of no declared type and not recognisably HTML or PDF");
    if (kind === "pdf" && cut) throw new PageFailed(`the PDF is larger than the ${options.maxBytes} bytes the reader reads`);
    const routeNotes = options.route === undefined ? [] : options.route.notes(url.href, res.headers);
    return {
      url: url.href,
      kind,
      type: type ?? "sniffed",
      ...(charset === undefined ? {} : { charset }),
      bytes,
      cut,
      ...(routeNotes.length === 0 ? {} : { routeNotes }),
    };
  }
}

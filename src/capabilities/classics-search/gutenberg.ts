/**
 * The excerpt of a Project Gutenberg book for classics.search `details`: the request for the
 * beginning of its plain-text file and the excerpt taken from it. Pure; the capability sends the
 * request once per book and keeps the excerpt (bounded cache and the record's cached action).
 *
 * The plain-text link in Gutendex's `formats` (`/ebooks/<id>.txt.utf-8`) answers with a redirect
 * to the file itself, `/cache/epub/<id>/pg<id>.txt`, which is asked for directly (the upstream
 * client does not follow redirects). Only the first 48 KiB are asked for (`Range`); a server that
 * ignores the range sends the whole file, within the client's size limit. The excerpt is the text
 * after Project Gutenberg's "*** START OF THE PROJECT GUTENBERG EBOOK … ***" line (the licence
 * header before it is left out), blank-line runs shortened, cut at `EXCERPT_CHARS` on a word
 * boundary. An HTML page where the plain text was expected (a mirror's error or landing page) is
 * drift, never an excerpt.
 *
 * Where: `GUTENBERG_BASE_URL`, by default Project Gutenberg's own mirror https://gutenberg.pglaf.org
 * (the same `/cache/epub/` tree): gutenberg.org is for human readers and blocks automated access
 * (its robot policy points programs at the mirrors; docs/providers.md, classics.search).
 */
import { looksLikeHtml } from "../../upstream/challenge.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { ProviderDrift } from "../../upstream/response-check.ts";
import type { TextRequest } from "../../upstream/types.ts";

/** Bytes of the plain-text file asked for. */
export const EXCERPT_RANGE_BYTES = 48 * 1024;
/** Characters of the excerpt. */
export const EXCERPT_CHARS = 2000;

export function toExcerptRequest(gutenbergId: number): TextRequest {
  return {
    provider: "gutenberg",
    method: "GET",
    path: `/cache/epub/${gutenbergId}/pg${gutenbergId}.txt`,
    headers: { range: `bytes=0-${EXCERPT_RANGE_BYTES - 1}` },
    responseType: "text",
    response: "text",
  };
}

const START = /^\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK[^\n]*$/im;

/** The excerpt of a plain-text file's beginning; null when it holds no text; an HTML page is drift. */
export function excerptOf(text: string, contentType?: string): string | null {
  if (looksLikeHtml(text, contentType)) throw new ProviderDrift("gutenberg", "", "is an HTML page where the book's plain text was expected");
  let body = text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n");
  const start = START.exec(body);
  if (start !== null) body = body.slice(start.index + start[0].length);
  const tidy = body
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (tidy === "") return null;
  if (tidy.length <= EXCERPT_CHARS) return tidy;
  const cut = tidy.slice(0, EXCERPT_CHARS - 1);
  const space = cut.search(/\s\S*$/);
  return `${(space > EXCERPT_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The live check's probe: the opening of Frankenstein's plain text (#84), as details ask for it. */
export const gutenbergProbe: ProviderProbe = {
  provider: "gutenberg",
  what: "the opening of one book's plain text (#84)",
  request: toExcerptRequest(84),
};

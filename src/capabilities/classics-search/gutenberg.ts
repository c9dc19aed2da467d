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
 * boundary.
 */
import type { UpstreamRequest } from "../../upstream/types.ts";

/** Bytes of the plain-text file asked for. */
export const EXCERPT_RANGE_BYTES = 48 * 1024;
/** Characters of the excerpt. */
export const EXCERPT_CHARS = 2000;

export function toExcerptRequest(gutenbergId: number): UpstreamRequest {
  return {
    provider: "gutenberg",
    method: "GET",
    path: `/cache/epub/${gutenbergId}/pg${gutenbergId}.txt`,
    headers: { range: `bytes=0-${EXCERPT_RANGE_BYTES - 1}` },
    responseType: "text",
  };
}

const START = /^\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK[^\n]*$/im;

/** The excerpt of a plain-text file's beginning; null when it holds no text. */
export function excerptOf(text: string): string | null {
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

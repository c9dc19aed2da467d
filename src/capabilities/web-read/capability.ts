/**
 * web.read (spec 4.6): one web page's main content as Markdown or text, through the reader
 * (src/reader: the local engine by default, Jina Reader with `WEB_READ_ENGINE=jina`). One record a
 * call, 5 credits; no update, no record actions.
 */
import { Type } from "@sinclair/typebox";
import { type ReaderOptions, readerSettings, readPage } from "../../reader/reader.ts";
import { defineCapability } from "../framework/define.ts";
import { webReadSchema } from "./schema.ts";

export { type WebReadQuery, webReadSchema } from "./schema.ts";

/** The capability, with the reader's test options (a stub resolver); the registry's uses the defaults. */
export function webReadCapability(options: ReaderOptions = {}) {
  return defineCapability({
    id: "web.read",
    title: "Read a web page",
    summary: "A web page's main content as Markdown or text (HTML through Readability, PDF as text).",
    description:
      "Fetches one page and returns its main content: HTML pages through Mozilla Readability (navigation, ads " +
      "and comments left out) as Markdown or text, plain text as it is, PDF as text; other types are refused " +
      "(400, naming the type). One record: `content` (at most `max_chars` characters), `chars` (characters of " +
      "the whole content), `truncated` and `format`. Only http and https URLs on public addresses are read " +
      "(ports 80, 443, 8080 and 8443 by default); private, loopback and link-local targets are refused with a " +
      "400 that says why, charged nothing. No update, no record actions.",
    topic: "web and news",
    schema: webReadSchema,
    recordKeys: Type.Object({
      content: Type.String({ description: "The content, at most `max_chars` characters." }),
      chars: Type.Integer({ minimum: 0, description: "Characters of the whole content (Unicode code points)." }),
      truncated: Type.Boolean({ description: "The content was cut to `max_chars` (or the page to the reader's byte cap)." }),
      format: Type.Union([Type.Literal("markdown"), Type.Literal("text")]),
    }),
    paging: "single",
    deadlineMs: 15_000,
    cost: { perCall: 0.005, basis: "5 credits ($0.005) per page read; refused and failed reads cost 0." },
    sources: [
      {
        id: "reader",
        title: "Reader",
        // The page's own site, not a provider of the table (Jina, when chosen, is: its key then needed).
        providers: [],
        requiredKeys: (settings) => (settings.engine === "jina" ? ["JINA_API_KEY"] : []),
        async search(ctx, query) {
          const page = await readPage(ctx, { url: query.url, format: query.format, maxChars: query.max_chars, pointer: "/url" });
          return {
            records: [
              {
                summary: {
                  title: page.title ?? page.url,
                  url: page.url,
                  content: page.content,
                  chars: page.chars,
                  truncated: page.truncated,
                  format: page.format,
                },
              },
            ],
            next: null,
            ...(page.notes.length > 0 ? { notes: page.notes } : {}),
          };
        },
      },
    ],
    actions: {},
    settings: (env: Readonly<Record<string, string | undefined>>) => readerSettings(env, options),
    examples: [
      { title: "An article as Markdown", body: { url: "https://hacks.mozilla.org/2015/03/this-api-is-so-fetching/" } },
      { title: "A page as plain text, first 2000 characters", body: { url: "https://www.mozilla.org/en-US/firefox/developer/", format: "text", max_chars: 2000 } },
    ],
  });
}

export const webRead = webReadCapability();

/**
 * The replay upstream as the reader's page route (upstream/types.ts, PageRoute): tests and the
 * offline demo read every page from `<base>/<host><path>` (the replay's `webpages` folder) instead of
 * its address, set by `WEB_READ_REPLAY_BASE_URL` (replay-env.ts). The address is still checked as
 * given and the connection as made (the replay's own address must be allowed). Each page read this
 * way says where its text came from: the recorded copy, a copy not made with some of the request's
 * params, or the stand-in page for an address the replay holds no copy of.
 */
import type { PageRoute } from "../../upstream/types.ts";
import { answeredByStandInPage, parseUnheldHeader, UNHELD_HEADER, unheldNote } from "./replay-headers.ts";

/** The route through the replay at `base` (`<replay>/webpages`). */
export function replayPageRoute(base: string): PageRoute {
  const root = base.replace(/\/+$/, "");
  return {
    target: (url) => `${root}/${url.host}${url.pathname}${url.search}`,
    notes(url, headers) {
      const unheld = parseUnheldHeader(headers[UNHELD_HEADER]);
      if (answeredByStandInPage(unheld)) {
        return [`DEMO: the offline demo holds no copy of ${url}; the content is the demo's stand-in page, not this page's text.`];
      }
      if (unheld.length > 0) return [unheldNote(unheld)];
      return [`DEMO: read from the offline demo's recorded copy of ${url}, not from the live page.`];
    },
  };
}

/** The route the environment asks for: the replay's when `WEB_READ_REPLAY_BASE_URL` is set (never in production). */
export function pageRouteFromEnv(env: Readonly<Record<string, string | undefined>>): PageRoute | undefined {
  const base = env.WEB_READ_REPLAY_BASE_URL?.trim();
  return base ? replayPageRoute(base) : undefined;
}

/**
 * Drift of the legal providers (legal.search, legal.read): each serves a recording with one field
 * its mapper reads renamed (test/helpers/drift.ts), or, for the HTML documents, a marker its reader
 * needs replaced, and must answer 502 naming the provider, free, with a warning logged.
 *
 * HTML answers are checked by the reader after the upstream client has returned them
 * (legal-read/document-check.ts), so their warning is the error's own log line (the error handler's
 * `provider_error` at warn), not the client's "provider answer drifted"; those cases are written out
 * here instead of through `driftSuite`, which expects the client's line.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, describe, test } from "node:test";
import { providerDef } from "../src/providers.ts";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";
import { driftSuite } from "./helpers/drift.ts";

const US_SEARCH = { search: { jurisdiction: "us", query: "foo", courts: "all" } };
const EU_SEARCH = { search: { jurisdiction: "eu", query: "privacy electronic communications", kind: "legislation", language: "EN" } };
const NOEM = { document: { source: "case_index", caselaw_id: "10376225" } };
const BROWN = { document: { source: "us_reports", item_id: "usrep347483" } };

driftSuite("legal providers: a changed JSON answer is an error", [
  { provider: "courtlistener", capability: "legal.search", body: US_SEARCH, pointer: "/results" },
  { provider: "courtlistener", capability: "legal.search", body: US_SEARCH, pointer: "/results/0/cluster_id" },
  { provider: "courtlistener", capability: "legal.read", body: NOEM, pointer: "/sub_opinions" },
  { provider: "courtlistener", capability: "legal.read", body: NOEM, pointer: "/plain_text" },
  { provider: "eu_publications", capability: "legal.search", body: EU_SEARCH, pointer: "/results/bindings" },
  { provider: "eu_publications", capability: "legal.search", body: EU_SEARCH, pointer: "/results/bindings/0/celex" },
  { provider: "loc", capability: "legal.read", body: BROWN, pointer: "/item/title" },
]);

interface HtmlDriftCase {
  provider: string;
  body: Record<string, unknown>;
  /** The marker replaced, and with what. */
  find: string;
  with: string;
  /** What the error says of the body. */
  problem: RegExp;
}

/** Hiding the body's content from the reader: a template's content is not the page's text. */
const HIDE_BODY = { find: "<body>", with: "<body><template>" };

const HTML_CASES: readonly HtmlDriftCase[] = [
  // The act's text: CELLAR's 303 is followed to the item, whose body then holds no act.
  { provider: "eu_publications", body: { document: { source: "eu_official", celex: "02002L0058-20091219", language: "EN" } }, ...HIDE_BODY, problem: /the body holds no text of CELEX:02002L0058-20091219 \(EN\)/ },
  // The UN's page: the `main` element the text is read from is gone (the site's chrome is never read instead).
  { provider: "un", body: { document: { source: "historical", work_id: "universal_declaration_of_human_rights" } }, find: "<main", with: "<div", problem: /the body has no `main` element/ },
  { provider: "avalon", body: { document: { source: "historical", work_id: "magna_carta_1215" } }, ...HIDE_BODY, problem: /the body holds no text of Magna Carta/ },
  { provider: "gesetze", body: { document: { source: "historical", work_id: "basic_law_germany" } }, ...HIDE_BODY, problem: /the body holds no text of Basic Law/ },
];

describe("legal providers: a changed HTML document is an error, never other text", () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  let kit: CapabilityKit | undefined;
  after(async () => {
    await kit?.close();
  });

  for (const c of HTML_CASES) {
    test(`${c.provider}: legal.read with "${c.find}" replaced is 502 naming it, free, and logged`, async () => {
      kit ??= await startCapabilityKit("legal.read", { logger: { level: "warn", stream: sink } });
      const ok = await kit.execute(c.body);
      assert.equal(ok.status, 200, `the recording reads: ${JSON.stringify(ok.body)}`);
      const used = await kit.used();
      const from = lines.length;
      kit.h.replay.setFault(c.provider, { kind: "replace", find: c.find, with: c.with });
      try {
        const res = await kit.execute(c.body);
        assert.equal(res.status, 502, JSON.stringify(res.body));
        assert.equal(res.body.error.code, "provider_error");
        const title = providerDef(c.provider)!.title;
        assert.ok(res.body.error.message.startsWith(`${title} answered in a shape Quarry does not read:`), res.body.error.message);
        assert.match(res.body.error.message, c.problem);
        assert.equal(res.body.error.retryable, false);
      } finally {
        kit.h.replay.setFault(c.provider, null);
      }
      assert.equal(await kit.used(), used, "nothing charged");
      const logged = lines.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>);
      const warning = logged.find((l) => l.code === "provider_error" && String(l.msg).includes("answered in a shape Quarry does not read"));
      assert.ok(warning, `a warning was logged: ${JSON.stringify(logged)}`);
      assert.equal(warning.level, 40);
    });
  }
});

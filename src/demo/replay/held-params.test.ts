/**
 * unheldParams: what of a request the recording answering it was not made with, on the project's own
 * recordings; and the header that carries it to the gateway.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type FixtureEntry, loadFixtureIndex } from "./fixture-index.ts";
import { unheldParams } from "./held-params.ts";
import { parseUnheldHeader, unheldHeader, unheldNote } from "./replay-headers.ts";

const index = loadFixtureIndex();
const entry = (id: string): FixtureEntry => {
  const found = index.entries.find((e) => e.id === id);
  assert.ok(found, id);
  return found;
};
const query = (params: Record<string, string>): Map<string, string[]> => new Map(Object.entries(params).map(([k, v]) => [k, [v]]));

test("a request as recorded is held; the query, a filter or an order the recording lacks is named", () => {
  const openalex = entry("openalex/works_search_state_of_open_access");
  assert.deepEqual(unheldParams(openalex, query({ search: "state of open access" })), []);
  assert.deepEqual(unheldParams(openalex, query({ search: "state of open access", sort: "cited_by_count:desc" })), [
    "sort=cited_by_count:desc",
  ]);
  // Another value of a recorded param is named too (the recording answers another query).
  assert.deepEqual(unheldParams(openalex, query({ search: "climate" })), ["search=climate"]);
  // Gutendex's recording is the unfiltered first page: a search for a title is not what it holds.
  assert.deepEqual(unheldParams(entry("gutendex/books_page1"), query({ search: "Frankenstein", page: "1" })), ["search=Frankenstein"]);
});

test("shape params, provider defaults, keys, placeholders and a window's offset and size are held", () => {
  const openalex = entry("openalex/works_search_state_of_open_access");
  const shaped = query({ search: "state of open access", select: "id,doi", per_page: "10", page: "1", api_key: "k" });
  assert.deepEqual(unheldParams(openalex, shaped), []);
  // page 2 is not the provider's default: the recording (page 1) does not hold it.
  assert.deepEqual(unheldParams(openalex, query({ search: "state of open access", page: "2" })), ["page=2"]);
  // Defaults are per provider: CourtListener's `type=o` is its default, elsewhere it is a filter.
  assert.deepEqual(unheldParams(entry("courtlistener/search_v4_q_foo"), query({ q: "foo", type: "o", order_by: "score desc" })), []);
  assert.deepEqual(unheldParams(openalex, query({ search: "state of open access", type: "o" })), ["type=o"]);
  // A windowed recording answers any offset and size inside what it holds.
  assert.deepEqual(unheldParams(entry("openlibrary/search_denver"), query({ q: "denver", limit: "3", offset: "2" })), []);
  // SerpApi's recorded key is a placeholder; any key is held.
  assert.deepEqual(unheldParams(entry("serpapi-google_finance/quote"), query({ engine: "google_finance", q: "GOOGL:NASDAQ", hl: "en", api_key: "real", window: "1D" })), []);
  assert.deepEqual(unheldParams(entry("serpapi-google_finance/quote"), query({ engine: "google_finance", q: "GOOGL:NASDAQ", window: "5Y" })), ["window=5Y"]);
});

test("a stand-in placeholder answers any value but is named; an elided value or a key is held", () => {
  const property = entry("serpapi-google_hotels/property_details_for_lucknow");
  assert.deepEqual([...property.standIns], ["property_token"]);
  const asked = Object.fromEntries(Object.entries(property.query).map(([k, v]) => [k, k === "property_token" ? "tok123" : v]));
  assert.deepEqual(unheldParams(property, query(asked)), ["property_token=tok123"]);
  const nominatim = entry("nominatim/search_empty_jsonv2");
  assert.ok(nominatim.standIns.has("q"), "nominatim.standIns.has(\"q\")");
  // Elided per-request values (YouTube's signed timedtext URL) and a scrubbed key match anything.
  const timedtext = entry("youtube/transcript_timedtext");
  assert.equal(timedtext.standIns.size, 0);
  const signed = Object.fromEntries(Object.entries(timedtext.query).map(([k, v]) => [k, v === "..." ? "signed-value" : v]));
  assert.deepEqual(unheldParams(timedtext, query(signed)), []);
  assert.equal(entry("youtube/error_400_key_invalid").standIns.size, 0);
});

test("a JSON body is compared with the recorded one, key by key; without a recorded body it is not", () => {
  const serper = entry("serper/search_apple_inc");
  assert.deepEqual(unheldParams(serper, new Map(), { q: "apple inc", page: 1, num: 10 }), []);
  assert.deepEqual(unheldParams(serper, new Map(), { q: "apple inc", page: 1, num: 10, tbs: "qdr:y" }), ["tbs=qdr:y"]);
  const matrix = entry("ors/matrix_distances_km");
  assert.deepEqual(unheldParams(matrix, new Map(), { locations: [[-49.280018, -25.459935], [-50.31173, -23.302276]], metrics: ["distance"], units: "km" }), []);
  assert.deepEqual(
    unheldParams(matrix, new Map(), { locations: [[-49.280018, -25.459935], [-50.31173, -23.302276]], metrics: ["distance", "duration"], units: "km" }),
    ['metrics=["distance","duration"]'],
  );
  // Recorded without its request body: what it was asked is unknown, so nothing is named.
  const unknownBody: FixtureEntry = { ...matrix, requestBody: undefined, bodyPattern: undefined };
  assert.deepEqual(unheldParams(unknownBody, new Map(), { locations: [[0, 0]], metrics: ["duration"], units: "m" }), []);
});

test("long values are cut; the header carries any text and reads back as sent", () => {
  const openalex = entry("openalex/works_search_state_of_open_access");
  const [long] = unheldParams(openalex, query({ search: "state of open access", filter: "x".repeat(200) }));
  assert.equal(long, `filter=${"x".repeat(80)}…`);
  const params = ["q=café & crème", "tbs=qdr:y,sbd:1", long!];
  const header = unheldHeader(params);
  assert.match(header, /^[\x21-\x7e]+$/, "ASCII, no spaces");
  assert.deepEqual(parseUnheldHeader(header), params);
  assert.deepEqual(parseUnheldHeader(undefined), []);
  // A request body may hold a lone surrogate (JSON's "\ud800"): the header is still written.
  assert.deepEqual(parseUnheldHeader(unheldHeader(["q=a\ud800b"])), ["q=a\ufffdb"]);
  assert.deepEqual(parseUnheldHeader("a%3D1&%E0%A4%A&b%3D2"), ["a=1", "b=2"], "a malformed part is dropped");
  assert.match(unheldNote(["sort=date"]), /^DEMO: .*not made with sort=date/);
});

/**
 * Record keys as published: every record each reference capability maps from its recordings (each
 * inspect example, the other music kinds and the MusicBrainz fallback, and the pages after them)
 * carries exactly the keys of its OpenAPI component `RecordSummary.<id>` (spec 2.4 and 4.6), with
 * the published types, and every required ("always") key; and each execute answer validates against
 * its path's published 200 schema.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { registry } from "../src/capabilities/registry.ts";
import { recordComponent } from "../src/http/openapi.ts";
import { fixture } from "./helpers/capability-kit.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";

let h: Harness;
let key: string;
let doc: { components: { schemas: Record<string, Record<string, unknown>> } };
const DOC_ID = "https://quarry.test/openapi.json";

// Every example and extra body of every capability, and their `more`: more than 60 calls a minute.
const PLANS = JSON.stringify([{ id: "wide", name: "Wide", credits: 1_000_000, period: "monthly", rateLimitPerMinute: 100_000, capabilities: "*" }]);

before(async () => {
  h = await startHarness({ env: { QUARRY_PLANS: PLANS } });
  ({ key } = await h.account("wide"));
  doc = (await h.call("GET", "/v1/openapi.public.json")).body;
});
after(async () => {
  await h.close();
});

/** Bodies beyond the inspect examples that reach other recordings (other record shapes). */
const MORE_BODIES: Record<string, object[]> = {
  "music.search": [
    { query: "Daft Punk", kind: "album", num: 5 },
    { query: "Daft Punk", kind: "artist" },
    // Not on Deezer's recordings (404): answered by the MusicBrainz fallback, tracks and artists.
    { query: "ミックスナッツ" },
    { query: "YOASOBI", kind: "artist" },
  ],
  // 25 and 25 more: reaches Beowulf (no authors) and a page that crosses Gutendex's 32-book page.
  "classics.search": [{ query: "Beowulf", num: 25 }],
  // The whole index: records without an author (Plank) and without secondary muscles (Crunches).
  "fitness.exercises": [{ num: 20 }],
  // The other Google Trends data types (documented-example datasets).
  "trends.search": [
    { query: "Klima", geo: "CH", data_type: "RELATED_QUERIES", time_range: "2004-01-01 2022-12-31", timezone_offset_minutes: -60 },
    { query: "Klima", geo: "CH", data_type: "RELATED_TOPICS", time_range: "2004-01-01 2022-12-31", timezone_offset_minutes: -60 },
    { query: "Klima,Wetter", geo: "CH", data_type: "GEO_MAP", region: "REGION", time_range: "2004-01-01 2022-12-31", timezone_offset_minutes: -60 },
  ],
  // Listings filtered by home type (a lot among them: no beds or baths).
  "realestate.search": [{ query: "Santa Monica, CA", home_types: ["townhouse", "land"] }],
  "scripture.search": [
    // A phrase within a passage: the shipped KJV, and quran.com's recorded verse.
    { text: "bible", query: "God so loved", reference: "John 3" },
    { text: "quran", query: "merciful", reference: "1:1" },
  ],
  "social.search": [
    { platform: "forum", query: "watchful", kind: "profiles" },
    { platform: "microblog", query: "open data", num: 25 },
  ],
  // openrouteservice has no recorded walking answers: the OSRM fallback's records.
  "navigation.route": [
    {
      origin: { lat: 52.517037, lon: 13.38886 },
      destination: { lat: 52.523219, lon: 13.428555 },
      waypoints: [{ lat: 52.529407, lon: 13.397634 }],
      mode: "walking",
    },
  ],
  "navigation.matrix": [
    {
      locations: [
        { lat: 42.004088575972, lon: 21.0566163803209 },
        { lat: 42.0094518118189, lon: 21.3856064050746 },
        { lat: 41.5286973392856, lon: 20.9574645547597 },
        { lat: 41.0691482795275, lon: 21.1477394809847 },
        { lat: 41.3532256406286, lon: 21.5506463080973 },
      ],
      mode: "walking",
    },
  ],
  "weather.forecast": [{ coordinates: { lat: 52.27, lon: 6.89 }, units: "imperial" }],
  // Vacation rentals with an occupancy the source ignored in part (occupancy_note).
  "hotels.search": [{ destination: "Lucknow", check_in: "2024-09-25", check_out: "2024-09-28", adults: 3, property_type: "vacation_rental" }],
  // The return flights of the recorded outbound (booking tokens, needs_return_selection false).
  "flights.search": [
    {
      origin: "SIN",
      destination: "AUS",
      departure_date: "2025-09-09",
      return_date: "2025-09-19",
      departure_token: (fixture("serpapi-google_flights", "return_flights_by_departure_token.json") as { search_parameters: { departure_token: string } })
        .search_parameters.departure_token,
    },
  ],
  // No location: no distance_m; a whole provider page at once.
  "places.search": [{ query: "Coffee", language: "en", num: 20 }],
  // Coordinates and a requested time (requested_time, requested_time_status unconfirmed).
  "transit.routes": [
    { origin: { lat: 40.758, lon: -73.9855 }, destination: { lat: 40.7061, lon: -73.9969 }, time: { mode: "depart_at", at: "2025-03-03T09:00:00-05:00" } },
  ],
  // Recorded searches beyond the examples: docs without authors or covers (maps), older GitHub
  // repositories without topics or license, and a full YouTube page.
  "books.search": [{ query: "denver,co", num: 5 }],
  "codehost.search": [{ query: "github language:Python", sort: "stars" }],
  "video.search": [{ query: "surfing", num: 25 }],
  "companies.financials": [
    // The documented dimensional example: explicit, typed and scenario members, a number kept as text.
    { company: { cik: "0" }, view: "financials", accession: "0000000000-25-000001", num: 10 },
    { company: { cik: "0" }, view: "revenue_breakdown", accession: "0000000000-25-000001" },
    // A filing of the older submissions page (no report date, primary document or acceptance time).
    { company: { cik: "320193" }, accession: "0001193125-10-012091" },
  ],
  // EU legislation paged one at a time (the page after it), and US courts filtered with years.
  "legal.search": [
    { search: { jurisdiction: "eu", query: "privacy electronic communications", kind: "legislation" }, num: 1 },
    { search: { jurisdiction: "us", query: "foo", courts: "federal", from_year: 1990, to_year: 2025 } },
  ],
  // The other sources' shapes: headings (official_publication), a translation's articles, paragraphs, a full-text file.
  "legal.read": [
    { document: { source: "historical", work_id: "universal_declaration_of_human_rights" } },
    { document: { source: "historical", work_id: "basic_law_germany" } },
    { document: { source: "us_reports", item_id: "usrep001001" } },
  ],
};

test("every record carries exactly its capability's published keys, with their types", async () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020)(ajv);
  ajv.addSchema({ $id: DOC_ID, ...doc });
  const counted: Record<string, number> = {};
  for (const cap of Object.values(registry)) {
    const component = doc.components.schemas[recordComponent(cap.id)];
    assert.ok(component, `${recordComponent(cap.id)} is published`);
    assert.equal(component.additionalProperties, true, "published: extra keys may appear (spec 9)");
    // What Quarry itself sends: no key beyond the published ones, and every key the capability
    // always sends (published as optional, spec 9, and said to be always present).
    const always: string[] = (cap.recordKeys as { required?: string[] }).required ?? [];
    assert.deepEqual(component.required, ["record_id", "title"], "published: only RecordSummary's own keys are required");
    for (const key of always) {
      const described = (component.properties as Record<string, { description?: string }>)[key]?.description ?? "";
      assert.match(described, /Always present\.$/, `${cap.id}: ${key}`);
    }
    const exact = ajv.compile({ ...component, required: [...(component.required as string[]), ...always], additionalProperties: false });
    const answer = ajv.compile({
      $ref: `${DOC_ID}#/paths/${`/v1/capabilities/${cap.id}/execute`.replaceAll("/", "~1")}/post/responses/200/content/application~1json/schema`,
    });
    const bodies = [...cap.examples.map((e) => e.body), ...(MORE_BODIES[cap.id] ?? [])];
    for (const body of bodies) {
      const where = `${cap.id} ${JSON.stringify(body)}`;
      const ex = await h.call("POST", `/v1/capabilities/${cap.id}/execute`, { key, body });
      assert.equal(ex.status, 200, `${where}: ${JSON.stringify(ex.body)}`);
      const answered: unknown = ex.body; // (the validator is a type guard: keep ex.body as it is)
      assert.ok(answer(answered), `${where}: ${ajv.errorsText(answer.errors)}`);
      const results = [...ex.body.results];
      if (ex.body.has_more && ex.body.next.actions.includes("more")) {
        const more = await h.call("POST", "/v1/follow-up", { key, body: { search_id: ex.body.search_id, action: "more" } });
        // Past the recorded items the replay has nothing (502): only recorded pages are checked.
        if (more.status === 200) results.push(...more.body.results);
      }
      assert.ok(results.length > 0, `${where}: no records`);
      for (const record of results) {
        assert.ok(exact(record), `${where}: ${ajv.errorsText(exact.errors)} in ${JSON.stringify(record)}`);
      }
      counted[cap.id] = (counted[cap.id] ?? 0) + results.length;
    }
  }
  assert.deepEqual(Object.keys(counted).sort(), Object.keys(registry).sort());
});

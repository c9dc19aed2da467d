/**
 * Drift of the navigation, weather and company-filings providers (test/helpers/drift.ts): each serves
 * a recording with one field its mapper reads renamed, and must answer 502 naming the provider and
 * the field, free, with a warning logged. openrouteservice's drift is a provider fault, so the OSRM
 * fallback is tried too (it has no recording for those points): the answer names both. The OSRM
 * cases leave ORS_API_KEY unset so the demo engine answers first.
 *
 * SEC EDGAR's XBRL instance and label linkbase are XML, checked in the extraction worker as they are
 * read (xbrl.ts): their drift is a `replace` of the recorded text, answered and logged the same way,
 * with the pointer of the part that is missing.
 */
import { after } from "node:test";
import { closeXbrlPool } from "../src/capabilities/companies-financials/xbrl-pool.ts";
import { driftSuite } from "./helpers/drift.ts";

after(closeXbrlPool);

const ulmToStuttgart = { origin: { lat: 48.3974003, lon: 9.9934336 }, destination: { lat: 48.7784485, lon: 9.1800132 } };
const parana = { locations: [{ lat: -25.459935, lon: -49.280018 }, { lat: -23.302276, lon: -50.31173 }] };
/** The recorded OSRM route's and table's points (fixtures/providers/osrm). */
const osrmRoute = { origin: { lat: 21.9598, lon: 41.5332 }, destination: { lat: 21.3114, lon: 41.9725 } };
const osrmTable = {
  locations: [
    { lat: 42.004088575972, lon: 21.0566163803209 },
    { lat: 42.0094518118189, lon: 21.3856064050746 },
    { lat: 41.5286973392856, lon: 20.9574645547597 },
    { lat: 41.0691482795275, lon: 21.1477394809847 },
    { lat: 41.3532256406286, lon: 21.5506463080973 },
  ],
};
const noOrs = { ORS_API_KEY: "" };
const NFLX = { company: { cik: "1065280" }, view: "financials", accession: "0001193125-10-235785" };

driftSuite("navigation, weather and company filings providers: a changed answer is an error", [
  { provider: "ors", capability: "navigation.route", body: ulmToStuttgart, pointer: "/routes" },
  { provider: "ors", capability: "navigation.matrix", body: parana, pointer: "/distances" },
  { provider: "osrm", capability: "navigation.route", body: osrmRoute, pointer: "/routes/0/legs", env: noOrs },
  { provider: "osrm", capability: "navigation.matrix", body: osrmTable, pointer: "/durations", env: noOrs },
  { provider: "nominatim", capability: "navigation.route", body: { origin: "Gagarin", destination: ulmToStuttgart.destination }, pointer: "/0/lat" },
  // Geocoding first: a place name looked up once is cached by the kit for the cases after it.
  { provider: "openmeteo-geocoding", capability: "weather.forecast", body: { location: "Enschede" }, pointer: "/results" },
  { provider: "openmeteo", capability: "weather.forecast", body: { location: "Enschede" }, pointer: "/daily/time" },
  {
    provider: "openmeteo",
    capability: "weather.forecast",
    body: { coordinates: { lat: 52.27, lon: 6.89 }, granularity: "hourly", days: 3 },
    pointer: "/timezone",
  },
  // The tickers file first: once read, the kit's cache answers it.
  { provider: "sec-www", capability: "companies.financials", body: { company: { ticker: "AAPL" } }, pointer: "/1/ticker" },
  { provider: "sec", capability: "companies.financials", body: { company: { cik: "320193" } }, pointer: "/filings/recent/accessionNumber" },
  { provider: "sec-www", capability: "companies.financials", body: NFLX, pointer: "/directory/item" },
  // The filing's XML documents (served from www.sec.gov, like its index): an attribute and elements renamed.
  { provider: "sec-www", capability: "companies.financials", body: NFLX, find: "contextRef=", replaceWith: "contextReference=", expectPointer: "/xbrl/*/@contextRef" },
  { provider: "sec-www", capability: "companies.financials", body: NFLX, find: "measure>", replaceWith: "measurement>", expectPointer: "/xbrl/unit/measure" },
  { provider: "sec-www", capability: "companies.financials", body: NFLX, find: "labelArc", replaceWith: "labelArk", expectPointer: "/linkbase/labelLink/labelArc" },
]);

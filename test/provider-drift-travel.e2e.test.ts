/**
 * Drift of the travel and commerce providers (test/helpers/drift.ts): SerpApi's google_hotels,
 * google_flights, google_maps, google_maps_directions, google_shopping and google_immersive_product
 * answers, and the Zillow listing API's (realestate). Each case serves a recording with one field its
 * mapper reads renamed, and must answer 502 naming the provider and the field, free, with a warning
 * logged: the search answers, and the details answers where a recording has them.
 */
import { fixture } from "./helpers/capability-kit.ts";
import { driftSuite } from "./helpers/drift.ts";

const STAY = { destination: "Lucknow", check_in: "2024-09-25", check_out: "2024-09-28" };
const SIN_AUS = { origin: "SIN", destination: "AUS", departure_date: "2025-09-09", return_date: "2025-09-19" };
/** The return flights of the recorded outbound: their `details` are booking options (a provider call). */
const RETURN_FLIGHTS = {
  ...SIN_AUS,
  departure_token: (fixture("serpapi-google_flights", "return_flights_by_departure_token.json") as { search_parameters: { departure_token: string } })
    .search_parameters.departure_token,
};
const COFFEE_NEAR = { query: "Coffee", location: { lat: 40.7455096, lon: -74.0083012 }, language: "en" };
const TRIP = { origin: "Times Square, New York", destination: "Brooklyn Bridge, New York", language: "en" };
const COFFEE = { query: "coffee", country: "us", language: "en" };
const SOCCER = { query: "soccerl", country: "us", language: "en", location: "India" };

driftSuite("travel and commerce providers: a changed answer is an error", [
  { provider: "serpapi", capability: "hotels.search", body: STAY, pointer: "/properties/0/name" },
  { provider: "serpapi", capability: "hotels.search", body: STAY, action: "details", pointer: "/name" },
  { provider: "serpapi", capability: "flights.search", body: SIN_AUS, pointer: "/best_flights/0/flights" },
  { provider: "serpapi", capability: "flights.search", body: RETURN_FLIGHTS, action: "details", pointer: "/booking_options" },
  { provider: "serpapi", capability: "places.search", body: COFFEE_NEAR, pointer: "/local_results/0/title" },
  { provider: "serpapi", capability: "places.search", body: COFFEE_NEAR, action: "details", pointer: "/place_results" },
  { provider: "serpapi", capability: "transit.routes", body: TRIP, pointer: "/directions" },
  { provider: "serpapi", capability: "shopping.search", body: COFFEE, pointer: "/shopping_results" },
  { provider: "serpapi", capability: "shopping.search", body: SOCCER, pointer: "/shopping_results/0/title" },
  { provider: "serpapi", capability: "shopping.search", body: COFFEE, action: "details", pointer: "/product_results" },
  { provider: "realestate", capability: "realestate.search", body: { query: "Santa Monica, CA" }, pointer: "/props/0/zpid" },
  { provider: "realestate", capability: "realestate.search", body: { query: "Santa Monica, CA" }, action: "details", pointer: "/zpid" },
]);

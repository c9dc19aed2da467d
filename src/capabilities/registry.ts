/**
 * Every implemented capability. Adding one is one folder plus one line here (docs/architecture.md,
 * "How to add a capability"); the id list is derived from the entries, and a test checks that each
 * entry's key is its capability's id. Only these appear in the catalog.
 */
import { academicSearch } from "./academic-search/capability.ts";
import { classicsSearch } from "./classics-search/capability.ts";
import { fitnessExercises } from "./fitness-exercises/capability.ts";
import { jobsSearch } from "./jobs-search/capability.ts";
import { companiesFinancials } from "./companies-financials/capability.ts";
import { legalRead } from "./legal-read/capability.ts";
import { legalSearch } from "./legal-search/capability.ts";
import { marketsQuote } from "./markets-quote/capability.ts";
import { musicSearch } from "./music-search/capability.ts";
import { realestateSearch } from "./realestate-search/capability.ts";
import { newsSearch } from "./news-search/capability.ts";
import { recipesSearch } from "./recipes-search/capability.ts";
import { shoppingSearch } from "./shopping-search/capability.ts";
import { trendsSearch } from "./trends-search/capability.ts";
import { scriptureSearch } from "./scripture-search/capability.ts";
import { navigationMatrix } from "./navigation-matrix/capability.ts";
import { navigationRoute } from "./navigation-route/capability.ts";
import { socialSearch } from "./social-search/capability.ts";
import { flightsSearch } from "./flights-search/capability.ts";
import { hotelsSearch } from "./hotels-search/capability.ts";
import { placesSearch } from "./places-search/capability.ts";
import { transitRoutes } from "./transit-routes/capability.ts";
import { booksSearch } from "./books-search/capability.ts";
import { codehostSearch } from "./codehost-search/capability.ts";
import { patentsSearch } from "./patents-search/capability.ts";
import { videoSearch } from "./video-search/capability.ts";
import type { Capability } from "./types.ts";
import { weatherForecast } from "./weather-forecast/capability.ts";
import { webRead } from "./web-read/capability.ts";
import { webSearch } from "./web-search/capability.ts";

/**
 * The entries as written, held to "each key is its capability's id" by the compiler: a typo, or a
 * folder copied without changing its `id`, fails `npm run typecheck`.
 */
function byId<T extends { [K in keyof T]: Capability<K & string> }>(entries: T): T {
  return entries;
}

export const capabilities = byId({
  "academic.search": academicSearch,
  "music.search": musicSearch,
  "recipes.search": recipesSearch,
  "markets.quote": marketsQuote,
  "classics.search": classicsSearch,
  "fitness.exercises": fitnessExercises,
  "jobs.search": jobsSearch,
  "trends.search": trendsSearch,
  "shopping.search": shoppingSearch,
  "realestate.search": realestateSearch,
  "scripture.search": scriptureSearch,
  "social.search": socialSearch,
  "weather.forecast": weatherForecast,
  "navigation.route": navigationRoute,
  "navigation.matrix": navigationMatrix,
  "hotels.search": hotelsSearch,
  "flights.search": flightsSearch,
  "places.search": placesSearch,
  "transit.routes": transitRoutes,
  "books.search": booksSearch,
  "codehost.search": codehostSearch,
  "patents.search": patentsSearch,
  "video.search": videoSearch,
  "web.search": webSearch,
  "news.search": newsSearch,
  "web.read": webRead,
  "companies.financials": companiesFinancials,
  "legal.search": legalSearch,
  "legal.read": legalRead,
});

/** The ids Quarry implements: a closed union, derived from the entries. */
export type CapabilityId = keyof typeof capabilities;

export type Registry = Readonly<Record<string, Capability>>;

export const registry: Registry = capabilities;

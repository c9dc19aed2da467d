/**
 * Every implemented capability. Adding one is one folder plus one line here (docs/architecture.md,
 * "How to add a capability"); the id list is derived from the entries, and a test checks that each
 * entry's key is its capability's id. Only these appear in the catalog.
 */
import { academicSearch } from "./academic-search/capability.ts";
import { companiesFinancials } from "./companies-financials/capability.ts";
import { marketsQuote } from "./markets-quote/capability.ts";
import { musicSearch } from "./music-search/capability.ts";
import { recipesSearch } from "./recipes-search/capability.ts";
import type { Capability } from "./types.ts";

export const capabilities = {
  "academic.search": academicSearch,
  "music.search": musicSearch,
  "recipes.search": recipesSearch,
  "markets.quote": marketsQuote,
  "companies.financials": companiesFinancials,
} satisfies Record<string, Capability>;

export type CapabilityId = keyof typeof capabilities;

export type Registry = Readonly<Record<string, Capability>>;

export const registry: Registry = capabilities;

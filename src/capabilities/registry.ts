/**
 * Every implemented capability. Adding one is one folder plus one line here; the compiler checks
 * that each id in `CapabilityId` has exactly one entry. Only these appear in the catalog.
 */
import { academicSearch } from "./academic-search/capability.ts";
import { marketsQuote } from "./markets-quote/capability.ts";
import { musicSearch } from "./music-search/capability.ts";
import { recipesSearch } from "./recipes-search/capability.ts";
import type { Capability, JsonObject } from "./types.ts";

export type CapabilityId = "academic.search" | "music.search" | "recipes.search" | "markets.quote";

// Each capability is typed by its own query; the registry holds them by their common shape.
type AnyCapability = Capability<JsonObject>;

export const capabilities = {
  "academic.search": academicSearch as unknown as AnyCapability,
  "music.search": musicSearch as unknown as AnyCapability,
  "recipes.search": recipesSearch as unknown as AnyCapability,
  "markets.quote": marketsQuote as unknown as AnyCapability,
} satisfies Record<CapabilityId, AnyCapability>;

export type Registry = Readonly<Record<string, AnyCapability>>;

export const registry: Registry = capabilities;

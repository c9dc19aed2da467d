/**
 * What the social.search adapters share: the platform and kind values and reading a provider's
 * time into ISO 8601.
 */
export const PLATFORMS = ["microblog", "forum"] as const;
export type Platform = (typeof PLATFORMS)[number];

export const SOCIAL_KINDS = ["posts", "profiles"] as const;
export type SocialKind = (typeof SOCIAL_KINDS)[number];

/**
 * A provider's time as ISO 8601 UTC: twitterapi.io's "Tue Dec 10 07:00:30 +0000 2024", or Reddit's
 * epoch seconds. A string that does not parse is kept as the provider wrote it.
 */
export function isoTime(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return new Date(value * 1000).toISOString();
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? value.trim() : at.toISOString();
}

/** Durations for declarations (answer-cache times to live, refresh intervals), in milliseconds. */
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

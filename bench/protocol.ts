/**
 * Messages between the bench driver (parent, runs autocannon) and the server process (child,
 * runs the replay upstream, the bare route and Quarry) over the fork IPC channel.
 */

/** Sent once by the child when every server listens. */
export interface ReadyMessage {
  type: "ready";
  gatewayUrl: string;
  bareUrl: string;
  replayUrl: string;
  /** An API key of an account on the bench plan (huge credits and rate limit). */
  key: string;
  accountId: string;
  dbFile: string;
  storeKind: string;
  /** Whether the MCP routes were registered (src/mcp/mcp-routes.ts present). */
  mcp: boolean;
}

/** Bytes, from process.memoryUsage() in the server process. */
export interface MemorySample {
  /** RSS as found, garbage included. */
  rawRss: number;
  /** After a full GC when one was asked for (else as found): what the process retains. */
  rss: number;
  heapUsed: number;
}

export type ChildRequest =
  /** `gc`: run a full collection first (the server process runs with --expose-gc). */
  | { id: number; type: "rss"; gc: boolean }
  | { id: number; type: "sweep"; before: number; limit: number }
  | { id: number; type: "stop" };

export type ChildReply =
  | { id: number; type: "rss"; memory: MemorySample }
  | { id: number; type: "sweep"; ms: number; deleted: number }
  | { id: number; type: "stop" }
  | { id: number; type: "error"; message: string };

export type ChildMessage = ReadyMessage | ChildReply;

/** The plan the bench account is on: large enough that 402 and 429 never shape the figures. */
export const BENCH_PLAN = {
  id: "bench",
  name: "Bench",
  credits: 1e12,
  period: "monthly",
  rateLimitPerMinute: 100_000_000,
  capabilities: "*",
};

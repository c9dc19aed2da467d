/**
 * The upstream client's per-provider pacing against the replay upstream (recorded MusicBrainz answers):
 * starts at least the interval apart in arrival order, retries included; a request whose turn would
 * come after its deadline fails at once without holding a turn; an aborted waiting request frees its
 * turn and leaves nothing behind; unpaced providers are not delayed.
 *
 * What reached MusicBrainz comes from the replay upstream's log; the order of dispatch from undici's
 * `undici:request:create` diagnostics channel; start times from the pacer itself (a recording Pacer
 * given to the client), asserted as lower bounds. Times measured at the replay upstream or at dispatch
 * would shrink a gap whenever the machine stalls the process between a start and its dispatch (seen
 * here under a load average of 17 on 2 CPUs); the pacer's own times do not. Queue effects are checked
 * through `pacingState`, "at once" as "before the event loop's next turn", so no upper time bounds.
 */
import { Type } from "@sinclair/typebox";
import assert from "node:assert/strict";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { getEventListeners } from "node:events";
import { after, before, describe, test } from "node:test";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { ApiError } from "../errors.ts";
import { type RecordedRequest, type ReplayServer, startReplay } from "../demo/replay/replay-server.ts";
import { replayEnvironment } from "../demo/replay/replay-env.ts";
import { HttpUpstreamClient, type PacingSettings } from "./client.ts";
import { DeadlineSignals } from "./deadlines.ts";
import { Pacer } from "./pacing.ts";
import { PROVIDERS, type ProviderDef, pacingIntervalOf } from "../providers.ts";
import type { UpstreamRequest } from "./types.ts";

/** A recorded MusicBrainz search (fixtures/providers/musicbrainz: match on query and fmt); `offset` tells requests apart. */
const artist = (offset: number): UpstreamRequest => ({
  provider: "musicbrainz",
  method: "GET",
  path: "/ws/2/artist",
  query: { query: "YOASOBI", fmt: "json", offset },
  response: Type.Unknown(),
});
const WORK: UpstreamRequest = { provider: "openalex", method: "GET", path: "/works/W2741809807", response: Type.Unknown() };

/** A Pacer that keeps the start times it gives (performance.now() clock). */
class RecordingPacer extends Pacer {
  readonly starts: number[] = [];
  override async take(signal: AbortSignal, deadlineAt: number | undefined): Promise<number> {
    const at = await super.take(signal, deadlineAt);
    this.starts.push(at);
    return at;
  }
}

let replay: ReplayServer;
let config: Config;
const deadlines = new DeadlineSignals();
const deadline = (ms: number) => deadlines.signal(ms);
const clients: HttpUpstreamClient[] = [];

/** The `offset` of each MusicBrainz request undici dispatched, in dispatch order. */
const dispatched: string[] = [];
function onCreate(message: unknown): void {
  const { request } = message as { request: { path: string } };
  const url = new URL(request.path, "http://replay");
  if (url.pathname.startsWith("/musicbrainz/")) dispatched.push(url.searchParams.get("offset") ?? "");
}

before(async () => {
  subscribe("undici:request:create", onCreate);
  replay = await startReplay();
  config = loadConfig(replayEnvironment(replay.url));
});
after(async () => {
  unsubscribe("undici:request:create", onCreate);
  for (const c of clients) await c.close();
  await replay.close();
});

function client(pacing?: PacingSettings): HttpUpstreamClient {
  const c = new HttpUpstreamClient(config, undefined, { threshold: 1000, halfOpenAfterMs: 30_000 }, pacing);
  clients.push(c);
  return c;
}

/** MusicBrainz requests the replay upstream logged from index `from` on. */
function musicbrainzSince(from: number): RecordedRequest[] {
  return replay.requests.slice(from).filter((r) => r.prefix === "musicbrainz");
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => assert.fail("expected a rejection"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApiError, String(err));
  return err;
}

/** Whether a promise settles within this turn of the event loop, i.e. without waiting on any timer. */
function settlesAtOnce(promise: Promise<unknown>): Promise<boolean> {
  const settled = promise.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
}

function assertStartsApart(starts: number[], intervalMs: number): void {
  for (let i = 1; i < starts.length; i++) {
    const gap = starts[i]! - starts[i - 1]!;
    assert.ok(gap >= intervalMs, `start ${i} came ${gap.toFixed(1)} ms after the one before`);
  }
}

describe("pacing", () => {
  test("MusicBrainz is paced at 1 s by its provider definition; Deezer, OpenAlex and SerpApi are not", () => {
    const c = client();
    assert.deepEqual(c.pacingState("musicbrainz"), { intervalMs: 1000, waiting: 0, timer: false });
    for (const p of ["deezer", "openalex", "serpapi"]) assert.equal(c.pacingState(p), undefined, p);
    assert.equal(client({ musicbrainz: 0 }).pacingState("musicbrainz"), undefined, "0 turns pacing off");
  });

  test("three concurrent requests start at least the interval apart, in arrival order", async () => {
    const pacer = new RecordingPacer(150);
    const c = client({ musicbrainz: pacer });
    const from = replay.requests.length;
    const sent = dispatched.length;
    await c.send(artist(0), deadline(5000)); // takes the first turn
    const answers = await Promise.all([1, 2, 3].map((i) => c.send(artist(i), deadline(5000))));
    for (const a of answers) assert.equal(a.status, 200);
    assert.deepEqual(dispatched.slice(sent), ["0", "1", "2", "3"]);
    const seen = musicbrainzSince(from);
    assert.equal(seen.length, 4);
    for (const r of seen) assert.ok(r.matched, "served from the recording");
    assert.equal(pacer.starts.length, 4);
    assertStartsApart(pacer.starts, 150);
    assert.deepEqual(c.pacingState("musicbrainz"), { intervalMs: 150, waiting: 0, timer: false });
  });

  test("retries take their turn too", async () => {
    const pacer = new RecordingPacer(150);
    const c = client({ musicbrainz: pacer });
    const from = replay.requests.length;
    replay.setFault("musicbrainz", { kind: "status", status: 503, times: 1 });
    try {
      assert.equal((await c.send(artist(0), deadline(5000))).status, 200);
    } finally {
      replay.setFault("musicbrainz", null);
    }
    assert.deepEqual(
      musicbrainzSince(from).map((r) => r.fault),
      ["status", null],
    );
    assert.equal(pacer.starts.length, 2);
    assertStartsApart(pacer.starts, 150);
  });

  test("a request whose turn would come after its deadline fails at once with provider_error, charged to nobody", async () => {
    const c = client(); // MusicBrainz's own 1 s
    const from = replay.requests.length;
    const first = c.send(artist(0), deadline(5000)); // takes the turn now; the next is 1 s away
    const refused = c.send(artist(1), deadline(300));
    assert.equal(await settlesAtOnce(refused), true, "refused without waiting");
    const err = await rejection(refused);
    assert.equal((await first).status, 200);
    assert.equal(err.code, "provider_error");
    assert.equal(err.status, 502);
    assert.equal(err.retryable, true);
    assert.equal(err.retryAfter, 1);
    const envelope = err.toEnvelope("req_1");
    assert.equal(envelope.error.code, "provider_error");
    assert.equal(envelope.error.retryable, true);
    assert.match(envelope.error.hint ?? "", /MusicBrainz allows about one request a second/);
    assert.match(envelope.error.hint ?? "", /nothing was charged/);
    assert.equal(musicbrainzSince(from).length, 1, "the refused request never reached MusicBrainz");
    assert.equal(c.breakerState("musicbrainz"), "closed");
    assert.deepEqual(c.pacingState("musicbrainz"), { intervalMs: 1000, waiting: 0, timer: false });
  });

  test("a refused request holds no turn: the next one queues right behind the one before it", async () => {
    const pacer = new RecordingPacer(200);
    const c = client({ musicbrainz: pacer });
    const sent = dispatched.length;
    const first = c.send(artist(1), deadline(5000)); // starts now
    const second = c.send(artist(2), deadline(5000)); // waits one interval
    const refused = c.send(artist(3), deadline(150)); // its turn: two intervals away
    assert.equal(await settlesAtOnce(refused), true, "refused without waiting");
    assert.equal((await rejection(refused)).code, "provider_error");
    assert.equal(c.pacingState("musicbrainz")?.waiting, 1, "only the second is waiting");
    const fourth = c.send(artist(4), deadline(5000));
    assert.equal(c.pacingState("musicbrainz")?.waiting, 2, "the fourth queued right behind the second");
    for (const a of await Promise.all([first, second, fourth])) assert.equal(a.status, 200);
    assert.deepEqual(dispatched.slice(sent), ["1", "2", "4"]);
    assert.equal(pacer.starts.length, 3);
    assertStartsApart(pacer.starts, 200);
  });

  test("a retry whose turn would come after the deadline is not sent; the provider's failure is reported", async () => {
    const c = client({ musicbrainz: 60_000 });
    const from = replay.requests.length;
    replay.setFault("musicbrainz", { kind: "status", status: 503 });
    try {
      // Waiting until the deadline would have ended in provider_timeout.
      const err = await rejection(c.send(artist(0), deadline(5000)));
      assert.equal(err.code, "provider_error");
      assert.match(err.message, /HTTP 503/);
    } finally {
      replay.setFault("musicbrainz", null);
    }
    assert.equal(musicbrainzSince(from).length, 1);
    assert.deepEqual(c.pacingState("musicbrainz"), { intervalMs: 60_000, waiting: 0, timer: false });
  });

  test("an aborted waiting request leaves the queue at once, frees its turn and leaves no listener", async () => {
    const pacer = new RecordingPacer(200);
    const c = client({ musicbrainz: pacer });
    const from = replay.requests.length;
    const sent = dispatched.length;
    const first = c.send(artist(1), deadline(5000));
    const caller = new AbortController();
    const aborted = c.send(artist(2), caller.signal);
    const thirdSignal = new AbortController().signal;
    const third = c.send(artist(3), thirdSignal);
    assert.equal(c.pacingState("musicbrainz")?.waiting, 2);
    caller.abort(new Error("caller gone"));
    assert.equal(await settlesAtOnce(aborted), true, "left the queue at once");
    const err = await rejection(aborted);
    assert.equal(err.code, "provider_timeout");
    assert.match(err.hint ?? "", /MusicBrainz allows/);
    assert.equal(c.pacingState("musicbrainz")?.waiting, 1, "the third is next");
    assert.equal(getEventListeners(caller.signal, "abort").length, 0);
    for (const a of await Promise.all([first, third])) assert.equal(a.status, 200);
    assert.deepEqual(dispatched.slice(sent), ["1", "3"]);
    assert.equal(musicbrainzSince(from).length, 2, "the aborted request never reached MusicBrainz");
    assert.equal(pacer.starts.length, 2);
    assertStartsApart(pacer.starts, 200);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(getEventListeners(thirdSignal, "abort").length, 0);
    assert.deepEqual(c.pacingState("musicbrainz"), { intervalMs: 200, waiting: 0, timer: false });
  });

  test("when the last waiting request aborts, the turn timer is cleared", async () => {
    const c = client(); // 1 s
    const first = c.send(artist(0), deadline(5000));
    const caller = new AbortController();
    const waiting = c.send(artist(1), caller.signal);
    assert.deepEqual(c.pacingState("musicbrainz"), { intervalMs: 1000, waiting: 1, timer: true });
    caller.abort();
    assert.equal((await rejection(waiting)).code, "provider_timeout");
    assert.deepEqual(c.pacingState("musicbrainz"), { intervalMs: 1000, waiting: 0, timer: false });
    assert.equal((await first).status, 200);
  });

  test("unpaced providers are not delayed, even while a paced one has a queue", async () => {
    const c = client({ musicbrainz: 60_000 }); // the waiting MusicBrainz request waits until aborted
    assert.equal((await c.send(artist(0), deadline(5000))).status, 200);
    const caller = new AbortController();
    const waiting = c.send(artist(1), caller.signal);
    const from = replay.requests.length;
    const answers = await Promise.all(Array.from({ length: 5 }, () => c.send(WORK, deadline(5000))));
    for (const a of answers) assert.equal(a.status, 200);
    assert.equal(c.pacingState("musicbrainz")?.waiting, 1, "all five answered while MusicBrainz still waited its turn");
    assert.equal(replay.requests.slice(from).filter((r) => r.prefix === "openalex").length, 5);
    caller.abort();
    await rejection(waiting);
  });
});

describe("pacing intervals that depend on the deployment's configuration (issue 39)", () => {
  const intervals = (env: Record<string, string>) => {
    const c = new HttpUpstreamClient(loadConfig(env), undefined, { threshold: 1000, halfOpenAfterMs: 30_000 });
    clients.push(c);
    return { reddit: c.pacingState("reddit")?.intervalMs, twitterapi: c.pacingState("twitterapi")?.intervalMs };
  };

  test("Reddit: about 10 a minute keyless, 100 a minute with the OAuth client; twitterapi.io one every 5 s by default", () => {
    assert.deepEqual(intervals({}), { reddit: 6000, twitterapi: 5000 });
    assert.deepEqual(intervals({ REDDIT_CLIENT_ID: "app", REDDIT_CLIENT_SECRET: "secret" }), { reddit: 600, twitterapi: 5000 });
    // Half a client is no client: keyless, so keyless pacing.
    assert.deepEqual(intervals({ REDDIT_CLIENT_ID: "app" }), { reddit: 6000, twitterapi: 5000 });
  });

  test("the operator's variable replaces the interval (a funded twitterapi.io account: 50 ms); 0 turns pacing off", () => {
    assert.deepEqual(intervals({ TWITTERAPI_MIN_INTERVAL_MS: "50" }), { reddit: 6000, twitterapi: 50 });
    assert.deepEqual(intervals({ TWITTERAPI_MIN_INTERVAL_MS: "0", REDDIT_MIN_INTERVAL_MS: "0" }), { reddit: undefined, twitterapi: undefined });
    assert.deepEqual(intervals({ REDDIT_MIN_INTERVAL_MS: "1500", REDDIT_CLIENT_ID: "app", REDDIT_CLIENT_SECRET: "secret" }), { reddit: 1500, twitterapi: 5000 });
    assert.deepEqual(intervals({ TWITTERAPI_MIN_INTERVAL_MS: "" }), { reddit: 6000, twitterapi: 5000 }, "empty is unset");
    assert.throws(() => loadConfig({ TWITTERAPI_MIN_INTERVAL_MS: "fast" }), (e: unknown) => e instanceof ConfigError && /TWITTERAPI_MIN_INTERVAL_MS must be an integer >= 0/.test(e.message));
    assert.throws(() => loadConfig({ REDDIT_MIN_INTERVAL_MS: "-1" }), ConfigError);
  });

  test("pacingIntervalOf: the operator's interval, else the OAuth client's, else the table's; every interval variable is documented", () => {
    const reddit: ProviderDef = PROVIDERS.reddit;
    assert.equal(pacingIntervalOf(reddit), 6000);
    assert.equal(pacingIntervalOf(reddit, { client: { id: "a", secret: "b" } }), 600);
    assert.equal(pacingIntervalOf(reddit, { client: { id: "a", secret: "b" }, minIntervalMs: 0 }), 0);
    assert.equal(pacingIntervalOf(PROVIDERS.musicbrainz, { client: {} }), 1000, "a provider without a client interval keeps its own");
    assert.equal(pacingIntervalOf(PROVIDERS.openalex), undefined);
    for (const def of Object.values(PROVIDERS) as ProviderDef[]) {
      if (def.intervalVar === undefined) continue;
      assert.ok(def.extraVars?.some((v) => v.name === def.intervalVar), `${def.id}: ${def.intervalVar} is one of its extraVars (docs/providers.md, .env.example)`);
      assert.ok(def.minIntervalMs !== undefined, `${def.id}: a default interval to replace`);
    }
  });

  test("a paced Reddit request from a keyless deployment waits its turn; with the operator's 0 it does not", async () => {
    // The replay environment turns the operator-set pacings off; unset here, Reddit's keyless default applies.
    const paced = new HttpUpstreamClient(loadConfig({ ...replayEnvironment(replay.url), REDDIT_MIN_INTERVAL_MS: "" }), undefined, { threshold: 1000, halfOpenAfterMs: 30_000 });
    clients.push(paced);
    const search: UpstreamRequest = { provider: "reddit", method: "GET", path: "/search.json", query: { q: "pop", type: "link", limit: 1, raw_json: 1 }, response: Type.Unknown() };
    assert.equal((await paced.send(search, deadline(5000))).status, 200);
    // The second one's turn is 6 s away: past a 2 s deadline, so refused at once without calling Reddit.
    const from = replay.requests.length;
    const late = await rejection(paced.send(search, deadline(2000)));
    assert.equal(late.code, "provider_error");
    assert.match(late.hint ?? "", /Reddit allows about one request every 6 s/);
    assert.equal(replay.requests.length, from);
    const unpaced = new HttpUpstreamClient(loadConfig({ ...replayEnvironment(replay.url), REDDIT_MIN_INTERVAL_MS: "0" }), undefined, { threshold: 1000, halfOpenAfterMs: 30_000 });
    clients.push(unpaced);
    for (let i = 0; i < 3; i++) assert.equal((await unpaced.send(search, deadline(2000))).status, 200);
  });
});

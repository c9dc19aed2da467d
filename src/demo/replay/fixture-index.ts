/**
 * Loads the recorded provider responses (fixtures/providers/<folder>/index.json plus body files)
 * into memory and answers "which recording serves this request?". Used by the replay server.
 *
 * Routing: each folder is served under a URL prefix equal to its provider id (see prefixForFolder).
 * Matching inside a prefix: method, then path (exact, `{name}` template segment, or
 * `match_path_regex`), then query and a POST's JSON body (subset semantics, see entryScore and
 * bodyLeaves: an entry's `match_body`). Most matched params wins;
 * ties prefer an exact path, then exact values over placeholders, then file order.
 *
 * Offset paging: an entry with a `window` (see PageWindow) answers any page that lies inside the
 * items it recorded, with just those items (pageBody); a page beyond them is not held (404).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** `<repo>/fixtures/providers`, resolved from this module so callers need no cwd assumptions. */
export const DEFAULT_FIXTURES_DIR = fileURLToPath(new URL("../../../fixtures/providers", import.meta.url));

/** Folders whose name is not their provider id. `serpapi-<engine>` folders are handled by rule. */
export const FOLDER_PREFIX_OVERRIDES: Readonly<Record<string, string>> = {
  "x-api-v2": "xapi",
  sec: "sec",
};

/** Query params never required to match: recordings carry placeholder keys, clients send real ones. */
export const IGNORED_QUERY_PARAMS: ReadonlySet<string> = new Set(["api_key", "apikey"]);

/** The URL prefix (provider id, without slashes) a fixture folder is served under. */
export function prefixForFolder(folder: string): string {
  const override = FOLDER_PREFIX_OVERRIDES[folder];
  if (override !== undefined) return override;
  // SerpApi is one provider; its engines are recorded in separate folders and told apart by `engine`.
  if (folder.startsWith("serpapi-")) return "serpapi";
  return folder;
}

/** One recording, as loaded and precomputed for serving. */
export interface FixtureEntry {
  /** `<folder>/<case>`, unique across the index; also sent as the `x-replay-case` header. */
  id: string;
  folder: string;
  prefix: string;
  case: string;
  method: string;
  urlPath: string;
  /** Recorded query (all params, including ignored ones). */
  query: Readonly<Record<string, string>>;
  /** Params that must be present on a request, with their expected values (null = any value). */
  required: ReadonlyArray<readonly [name: string, value: string | null]>;
  /**
   * Params the recording answers for any value though it was made for one (`<any query>`,
   * `<property_token>`, `<no match>`): a stand-in. Not elided values (`...`) or keys.
   */
  standIns: ReadonlySet<string>;
  /** The recording answers any path its pattern matches though it holds none of them (`stand_in`). */
  standInPath: boolean;
  status: number;
  contentType: string;
  /** Other response headers the recording answers with (a redirect's `location`). */
  headers?: Readonly<Record<string, string>>;
  body: Buffer;
  /** Set when the path is matched by pattern rather than exactly. */
  pathPattern?: RegExp;
  /** Set when the recording answers pages inside the items it holds (offset paging). */
  window?: LoadedWindow;
  /** The recorded request's JSON body, when recorded. */
  requestBody?: unknown;
  /** What a request body must contain (match_body); unset: any body. */
  bodyPattern?: unknown;
}

/**
 * `window` in an index entry: the request params that give a page's offset and size, where the
 * items are in the body and (optionally) where the provider's total count is. The recording holds
 * items [o, o + n) for its own recorded offset o (the recorded query's offset param, else 0); a
 * request for [offset, offset + limit) inside that range is answered with those items and every
 * other field as recorded. When the recording reaches the total, pages past its end are held too
 * (they are short or empty, as the provider's would be).
 */
export interface PageWindow {
  offset: string;
  limit: string;
  items: string;
  total?: string;
}

interface LoadedWindow extends PageWindow {
  recordedOffset: number;
  parsed: Record<string, unknown>;
  list: readonly unknown[];
  /** The recording holds every item from its offset to the provider's total. */
  toTheEnd: boolean;
}

export interface FixtureMatch {
  entry: FixtureEntry;
  /** Number of request params the entry required and found. */
  matchedParams: number;
}

export interface FixtureIndex {
  dir: string;
  entries: readonly FixtureEntry[];
  /** Folder name -> URL prefix, for every folder loaded. */
  folders: Readonly<Record<string, string>>;
  /** Distinct prefixes with at least one recording. */
  prefixes: readonly string[];
  /** Resolves the first path segment to a prefix with recordings (see resolvePrefix), or undefined. */
  resolvePrefix(segment: string): string | undefined;
  /**
   * Best recording for a request under `prefix`. `path` is the part after the prefix (starting
   * with "/"); `query` maps each param to all of its values.
   */
  match(
    prefix: string,
    method: string,
    path: string,
    query: ReadonlyMap<string, readonly string[]>,
    /** The request's JSON body, parsed (POST recordings may require parts of it). */
    body?: unknown,
  ): FixtureMatch | undefined;
}

interface RawEntry {
  case: string;
  file?: string;
  method: string;
  url_path: string;
  query?: Record<string, string>;
  match_query?: Record<string, string>;
  match_path_regex?: string;
  status: number;
  content_type?: string;
  /** Response headers besides content-type (a redirect's `location`), as recorded. */
  headers?: Record<string, string>;
  window?: PageWindow;
  /** The JSON body of the recorded request (POST), as recorded. */
  request_body?: unknown;
  /**
   * What a request's JSON body must contain to be answered by this recording (a subset: objects by
   * key, arrays element by element, `...` or `<…>` any value). Without it any body matches
   * (`request_body` only documents what was recorded).
   */
  match_body?: unknown;
  /** A page written to stand in for any path its match_path_regex matches (not a recording of them). */
  stand_in?: boolean;
}

interface PrefixRoutes {
  /** Key: `METHOD normalized-path`. */
  exact: Map<string, FixtureEntry[]>;
  /** Pattern entries per method. */
  patterns: Map<string, FixtureEntry[]>;
}

/**
 * Path form used for comparison: percent-decoded (recordings store `/john%203:16`, clients may
 * encode differently) and without a trailing slash (`/ws/2/artist/` and `/ws/2/artist` are one path).
 */
export function normalizePath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Malformed escapes: compare the raw text rather than failing the request.
  }
  if (decoded.length > 1 && decoded.endsWith("/")) decoded = decoded.replace(/\/+$/, "");
  return decoded === "" ? "/" : decoded;
}

/** A param that carries the caller's key (its recorded value is scrubbed, any value matches). */
const KEY_PARAM = /^(api_?key|key)$/i;

/** `<SERPAPI_KEY>`, `<caption_id>`, `...`: recordings that scrubbed or elided a value; any value matches. */
export function isPlaceholder(value: string): boolean {
  return value === "..." || /^<[^<>]*>$/.test(value);
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `/Archives/edgar/data/1065280/{accession}/x.xml`: each `{name}` stands for one path segment. */
function templatePattern(normalized: string): RegExp | undefined {
  if (!/\{[^/{}]+\}/.test(normalized)) return undefined;
  const parts = normalized.split(/\{[^/{}]+\}/);
  return new RegExp(`^${parts.map(escapeRegex).join("[^/]+")}$`);
}

function fail(where: string, message: string): never {
  throw new Error(`fixture index ${where}: ${message}`);
}

function stringRecord(value: unknown, where: string, field: string): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) fail(where, `${field} must be an object`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === "string") out[k] = v;
    else if (typeof v === "number" || typeof v === "boolean") out[k] = String(v);
    else fail(where, `${field}.${k} must be a string`);
  }
  return out;
}

function parseRawEntry(value: unknown, where: string): RawEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    fail(where, "entry is not an object");
  const o = value as Record<string, unknown>;
  const str = (field: string, optional: boolean): string | undefined => {
    const v = o[field];
    if (v === undefined && optional) return undefined;
    if (typeof v !== "string" || v === "") fail(where, `${field} must be a non-empty string`);
    return v;
  };
  const status = o.status;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 100 || status > 599) {
    fail(where, "status must be an HTTP status code");
  }
  return {
    case: str("case", false)!,
    file: str("file", true),
    method: str("method", false)!,
    url_path: str("url_path", false)!,
    query: stringRecord(o.query, where, "query"),
    match_query: stringRecord(o.match_query, where, "match_query"),
    match_path_regex: str("match_path_regex", true),
    status,
    content_type: str("content_type", true),
    headers: stringRecord(o.headers, where, "headers"),
    window: parseWindow(o.window, where),
    ...(o.request_body === undefined || o.request_body === null ? {} : { request_body: o.request_body }),
    ...(o.match_body === undefined || o.match_body === null ? {} : { match_body: o.match_body }),
    ...(o.stand_in === true ? { stand_in: true } : {}),
  };
}

function parseWindow(value: unknown, where: string): PageWindow | undefined {
  if (value === undefined) return undefined;
  const w = stringRecord(value, where, "window") ?? {};
  const need = (field: keyof PageWindow): string => {
    const v = w[field];
    if (v === undefined || v === "") fail(where, `window.${field} must be a non-empty string`);
    return v;
  };
  const window: PageWindow = { offset: need("offset"), limit: need("limit"), items: need("items") };
  if (w.total !== undefined) window.total = need("total");
  return window;
}

function loadWindow(window: PageWindow, query: Record<string, string>, body: Buffer, where: string): LoadedWindow {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch (err) {
    fail(where, `window needs a JSON body: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) fail(where, "window needs a JSON object body");
  const record = parsed as Record<string, unknown>;
  const list = record[window.items];
  if (!Array.isArray(list)) fail(where, `window.items: the body has no list at "${window.items}"`);
  const recordedOffset = query[window.offset] === undefined ? 0 : Number(query[window.offset]);
  if (!Number.isSafeInteger(recordedOffset) || recordedOffset < 0) fail(where, "the recorded offset is not a count");
  const total = window.total === undefined ? undefined : record[window.total];
  const toTheEnd = typeof total === "number" && recordedOffset + list.length >= total;
  return { ...window, recordedOffset, parsed: record, list, toTheEnd };
}

/** A request param read as a count; undefined when absent, NaN when not a count. */
function countParam(query: ReadonlyMap<string, readonly string[]>, name: string): number | undefined {
  const value = query.get(name)?.[0];
  if (value === undefined) return undefined;
  return /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
}

/**
 * The body that answers this request from `entry`: the recording itself, or for a windowed entry
 * the page the request asks for (the recording again when the page is the one recorded). Undefined
 * when the page lies outside what the recording holds.
 */
export function pageBody(entry: FixtureEntry, query: ReadonlyMap<string, readonly string[]>): Buffer | undefined {
  const w = entry.window;
  if (w === undefined) return entry.body;
  const offset = countParam(query, w.offset) ?? 0;
  const limit = countParam(query, w.limit) ?? w.list.length;
  if (Number.isNaN(offset) || Number.isNaN(limit)) return undefined;
  const start = offset - w.recordedOffset;
  if (start < 0) return undefined;
  if (start + limit > w.list.length && !w.toTheEnd) return undefined;
  if (start === 0 && limit >= w.list.length) return entry.body;
  return Buffer.from(JSON.stringify({ ...w.parsed, [w.items]: w.list.slice(start, start + limit) }));
}

function buildEntry(
  raw: RawEntry,
  folder: string,
  folderDir: string,
  where: string,
  bodies: Map<string, Buffer>,
): FixtureEntry {
  const file = raw.file ?? `${raw.case}.json`;
  const bodyPath = join(folderDir, file);
  // Several cases may share one body file (re-keyed recordings); load it once.
  let body = bodies.get(bodyPath);
  if (body === undefined) {
    try {
      body = readFileSync(bodyPath);
    } catch (err) {
      fail(where, `cannot read ${file}: ${(err as Error).message}`);
    }
    bodies.set(bodyPath, body);
  }
  const query = raw.query ?? {};
  // match_query, when given, is the whole requirement; otherwise the recorded query minus keys.
  const source =
    raw.match_query ??
    Object.fromEntries(Object.entries(query).filter(([k]) => !IGNORED_QUERY_PARAMS.has(k)));
  const required = Object.entries(source).map(([k, v]) => [k, isPlaceholder(v) ? null : v] as const);
  const standIns = new Set(
    Object.entries({ ...query, ...source })
      .filter(([k, v]) => isPlaceholder(v) && v !== "..." && !KEY_PARAM.test(k) && !/key/i.test(v))
      .map(([k]) => k),
  );
  let pathPattern: RegExp | undefined;
  if (raw.match_path_regex !== undefined) {
    try {
      pathPattern = new RegExp(`^(?:${raw.match_path_regex})$`);
    } catch (err) {
      fail(where, `bad match_path_regex: ${(err as Error).message}`);
    }
  } else {
    pathPattern = templatePattern(normalizePath(raw.url_path));
  }
  const prefix = prefixForFolder(folder);
  const window = raw.window === undefined ? undefined : loadWindow(raw.window, query, body, where);
  const bodyPattern = raw.match_body;
  return {
    ...(window === undefined ? {} : { window }),
    ...(raw.request_body === undefined ? {} : { requestBody: raw.request_body }),
    ...(bodyPattern === undefined ? {} : { bodyPattern }),
    id: `${folder}/${raw.case}`,
    folder,
    prefix,
    case: raw.case,
    method: raw.method.toUpperCase(),
    urlPath: raw.url_path,
    query,
    required,
    standIns,
    standInPath: raw.stand_in === true,
    status: raw.status,
    contentType: raw.content_type ?? "application/json",
    ...(raw.headers === undefined ? {} : { headers: raw.headers }),
    body,
    pathPattern,
  };
}

/**
 * How many leaves of `pattern` `actual` holds (a subset match: objects by key, arrays element by
 * element, placeholders match any value); undefined when it does not hold them all.
 */
export function bodyLeaves(pattern: unknown, actual: unknown): number | undefined {
  if (typeof pattern === "string" && isPlaceholder(pattern)) return actual === undefined ? undefined : 0;
  if (Array.isArray(pattern)) {
    if (!Array.isArray(actual) || actual.length !== pattern.length) return undefined;
    let n = 0;
    for (let i = 0; i < pattern.length; i++) {
      const m = bodyLeaves(pattern[i], actual[i]);
      if (m === undefined) return undefined;
      n += m;
    }
    return n;
  }
  if (pattern !== null && typeof pattern === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return undefined;
    let n = 0;
    for (const [k, v] of Object.entries(pattern)) {
      const m = bodyLeaves(v, (actual as Record<string, unknown>)[k]);
      if (m === undefined) return undefined;
      n += m;
    }
    return n;
  }
  return pattern === actual ? 1 : undefined;
}

/**
 * How well `entry` fits the request params (and JSON body): undefined when a required param is
 * missing or differs, or the body does not hold the entry's body pattern; else [matched params and
 * body leaves, of which exact values]. Extra request params never disqualify.
 */
function entryScore(
  entry: FixtureEntry,
  query: ReadonlyMap<string, readonly string[]>,
  body?: unknown,
): [matched: number, exact: number] | undefined {
  let leaves = 0;
  if (entry.bodyPattern !== undefined) {
    const m = bodyLeaves(entry.bodyPattern, body);
    if (m === undefined) return undefined;
    leaves = m;
  }
  let exact = leaves;
  for (const [name, expected] of entry.required) {
    const values = query.get(name);
    if (values === undefined || values.length === 0) return undefined;
    if (expected === null) continue;
    if (!values.includes(expected)) return undefined;
    exact += 1;
  }
  return [entry.required.length + leaves, exact];
}

/** Loads every `<dir>/*\/index.json` and its body files. Throws on malformed indexes or missing files. */
export function loadFixtureIndex(dir: string = DEFAULT_FIXTURES_DIR): FixtureIndex {
  const entries: FixtureEntry[] = [];
  const folders: Record<string, string> = {};
  const routes = new Map<string, PrefixRoutes>();
  const bodies = new Map<string, Buffer>();

  // Sorted so merged prefixes (serpapi-*) have a stable "first wins" order.
  const names = readdirSync(dir).sort();
  for (const folder of names) {
    const folderDir = join(dir, folder);
    if (!statSync(folderDir).isDirectory()) continue;
    const indexPath = join(folderDir, "index.json");
    let rawIndex: unknown;
    try {
      rawIndex = JSON.parse(readFileSync(indexPath, "utf8"));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
      fail(indexPath, (err as Error).message);
    }
    if (!Array.isArray(rawIndex)) fail(indexPath, "index.json must be an array");
    folders[folder] = prefixForFolder(folder);
    rawIndex.forEach((value: unknown, i: number) => {
      const where = `${indexPath}[${i}]`;
      const entry = buildEntry(parseRawEntry(value, where), folder, folderDir, where, bodies);
      entries.push(entry);
      let r = routes.get(entry.prefix);
      if (r === undefined) {
        r = { exact: new Map(), patterns: new Map() };
        routes.set(entry.prefix, r);
      }
      if (entry.pathPattern !== undefined) {
        const list = r.patterns.get(entry.method) ?? [];
        list.push(entry);
        r.patterns.set(entry.method, list);
      } else {
        const key = `${entry.method} ${normalizePath(entry.urlPath)}`;
        const list = r.exact.get(key) ?? [];
        list.push(entry);
        r.exact.set(key, list);
      }
    });
  }

  const prefixes = [...routes.keys()].sort();
  // Longest first so `/sec-data` resolves to `sec` rather than a shorter accidental match.
  const byLength = [...prefixes].sort((a, b) => b.length - a.length);

  function resolvePrefix(segment: string): string | undefined {
    if (routes.has(segment)) return segment;
    // Non-default hosts are served at `/<providerId>-<host>` (see replay-env.ts); their
    // recordings live in the provider's folder, and paths differ between hosts.
    for (const p of byLength) if (segment.startsWith(`${p}-`)) return p;
    return undefined;
  }

  function match(
    prefix: string,
    method: string,
    path: string,
    query: ReadonlyMap<string, readonly string[]>,
    body?: unknown,
  ): FixtureMatch | undefined {
    const r = routes.get(prefix);
    if (r === undefined) return undefined;
    const m = method.toUpperCase();
    const normalized = normalizePath(path);
    let best: FixtureMatch | undefined;
    let bestRank: [number, number, number] | undefined;
    const consider = (candidates: readonly FixtureEntry[] | undefined, exactPath: number): void => {
      if (candidates === undefined) return;
      for (const entry of candidates) {
        if (exactPath === 0 && !(entry.pathPattern!.test(normalized) || entry.pathPattern!.test(path)))
          continue;
        const score = entryScore(entry, query, body);
        if (score === undefined) continue;
        const rank: [number, number, number] = [score[0], exactPath, score[1]];
        // Strictly greater only: on a full tie the earlier entry (file order) stays.
        if (bestRank === undefined || compareRank(rank, bestRank) > 0) {
          best = { entry, matchedParams: score[0] };
          bestRank = rank;
        }
      }
    };
    consider(r.exact.get(`${m} ${normalized}`), 1);
    consider(r.patterns.get(m), 0);
    return best;
  }

  return { dir, entries, folders, prefixes, resolvePrefix, match };
}

function compareRank(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}


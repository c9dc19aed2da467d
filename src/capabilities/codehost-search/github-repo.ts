/**
 * GitHub repository details for codehost.search: `GET /repos/{o}/{r}` (stats), then its README
 * (`/readme`, base64) and top-level listing (`/contents/`) → the `details` object. Pure mappers;
 * the capability's action sends the requests.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, Link } from "../types.ts";
import { arr, bool, defined, httpUrl, int, obj, str, strings } from "../shared/read.ts";
import { READ_STATUSES } from "./github.ts";

/** The README's first characters kept in details, cut at a line end. */
export const README_HEAD_CHARS = 3_000;
/** Top-level entries listed in details. */
export const MAX_FILES = 100;

/** `owner/repo` as GitHub names repositories; anything else (paths, dots only) is refused. */
export function repoName(value: unknown): string | undefined {
  const name = str(value);
  return name !== undefined && /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(name) && !/(^|\/)\.{1,2}(\/|$)/.test(name) ? name : undefined;
}

/** 404 is an answer (no such repository, no README, an empty repository); 403 and 422 are read too. */
const read = [404, ...READ_STATUSES];

export function repoRequest(repo: string): UpstreamRequest {
  return { provider: "github", method: "GET", path: `/repos/${repo}`, acceptStatus: read };
}

export function readmeRequest(repo: string): UpstreamRequest {
  return { provider: "github", method: "GET", path: `/repos/${repo}/readme`, acceptStatus: read, optionalPart: true };
}

export function contentsRequest(repo: string): UpstreamRequest {
  return { provider: "github", method: "GET", path: `/repos/${repo}/contents/`, acceptStatus: read, optionalPart: true };
}

/** The head of a README body (`encoding: base64`, newlines inside): at most README_HEAD_CHARS, cut at a line end. */
export function readmeHead(body: unknown): { name?: string; head: string; truncated: boolean; url?: string } | undefined {
  const readme = obj(body);
  const content = str(readme?.content);
  if (readme === undefined || content === undefined || str(readme.encoding) !== "base64") return undefined;
  const text = Buffer.from(content.replace(/\s+/g, ""), "base64").toString("utf8").replace(/\r\n/g, "\n");
  if (text.trim() === "") return undefined;
  let head = text;
  if (text.length > README_HEAD_CHARS) {
    const cut = text.slice(0, README_HEAD_CHARS);
    const lineEnd = cut.lastIndexOf("\n");
    head = lineEnd > README_HEAD_CHARS / 2 ? cut.slice(0, lineEnd) : cut;
  }
  const url = httpUrl(readme.html_url) ?? httpUrl(obj(readme._links)?.html);
  return { ...(str(readme.name) === undefined ? {} : { name: str(readme.name) }), head: head.trimEnd(), truncated: head.length < text.length, ...(url ? { url } : {}) };
}

/** A directory listing (an array) → its entries: name, type and the size of files. */
export function topLevelFiles(body: unknown): JsonObject[] | undefined {
  const entries = arr(body);
  if (entries === undefined) return undefined;
  const files = entries.slice(0, MAX_FILES).flatMap((value) => {
    const entry = obj(value);
    const name = str(entry?.name);
    if (entry === undefined || name === undefined) return [];
    const type = str(entry.type);
    return [defined({ name, type, size: type === "file" ? int(entry.size) : undefined })];
  });
  return files;
}

/** The repository object and its README and listing (either may be absent) → details. */
export function toRepoDetail(repoBody: unknown, readmeBody: unknown, contentsBody: unknown): { detail: JsonObject; links: Link[] } {
  const repo = obj(repoBody);
  const name = str(repo?.full_name);
  if (repo === undefined || name === undefined) throw new ApiError("provider_error", "GitHub answered a repository without its name.");
  const license = obj(repo.license);
  const spdx = str(license?.spdx_id);
  const readme = readmeHead(readmeBody);
  const files = topLevelFiles(contentsBody);
  const detail = defined({
    repo: name,
    description: str(repo.description),
    homepage: httpUrl(repo.homepage),
    language: str(repo.language),
    license: spdx !== undefined && spdx !== "NOASSERTION" ? spdx : str(license?.name),
    topics: strings(repo.topics),
    archived: bool(repo.archived),
    fork: bool(repo.fork),
    default_branch: str(repo.default_branch),
    stats: defined({
      stars: int(repo.stargazers_count),
      forks: int(repo.forks_count),
      watchers: int(repo.subscribers_count),
      open_issues: int(repo.open_issues_count),
      size_kb: int(repo.size),
    }),
    created_at: str(repo.created_at),
    updated_at: str(repo.updated_at),
    pushed_at: str(repo.pushed_at),
    readme: readme === undefined ? undefined : defined({ name: readme.name, head: readme.head, truncated: readme.truncated }),
    files: files === undefined || files.length === 0 ? undefined : files,
  });
  const links: Link[] = [];
  const html = httpUrl(repo.html_url);
  if (html !== undefined) links.push({ label: "Repository", url: html });
  const homepage = httpUrl(repo.homepage);
  if (homepage !== undefined && homepage !== html) links.push({ label: "Homepage", url: homepage });
  if (readme?.url !== undefined) links.push({ label: "README", url: readme.url });
  return { detail, links };
}

/**
 * GitHub repository details for codehost.search: `GET /repos/{o}/{r}` (stats), then its README
 * (`/readme`, base64) and top-level listing (`/contents/`) → the `details` object. Each request
 * declares the fields its mapper reads; pure mappers, the capability's action sends the requests.
 */
import { type Static, Type } from "@sinclair/typebox";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, Link } from "../types.ts";
import { defined, httpUrl, str, strings } from "../shared/read.ts";

/** The README's first characters kept in details, cut at a line end. */
export const README_HEAD_CHARS = 3_000;
/** Top-level entries listed in details. */
export const MAX_FILES = 100;

/** The repository object (`GET /repos/{o}/{r}`); `pushed_at` is null for an empty repository. */
export const githubRepository = Type.Object({
  full_name: Type.String(),
  html_url: nullish(Type.String()),
  description: nullish(Type.String()),
  homepage: nullish(Type.String()),
  language: nullish(Type.String()),
  license: nullish(Type.Object({ spdx_id: nullish(Type.String()), name: nullish(Type.String()) })),
  topics: Type.Optional(Type.Array(Type.String())),
  archived: Type.Optional(Type.Boolean()),
  fork: Type.Optional(Type.Boolean()),
  default_branch: nullish(Type.String()),
  stargazers_count: Type.Optional(Type.Integer()),
  forks_count: Type.Optional(Type.Integer()),
  subscribers_count: Type.Optional(Type.Integer()),
  open_issues_count: Type.Optional(Type.Integer()),
  size: Type.Optional(Type.Integer()),
  created_at: nullish(Type.String()),
  updated_at: nullish(Type.String()),
  pushed_at: nullish(Type.String()),
});

/** A README (`GET …/readme`, default media type): base64 content; old answers have only `_links.html`. */
export const githubReadme = Type.Object({
  name: nullish(Type.String()),
  content: Type.String(),
  encoding: Type.String(),
  html_url: nullish(Type.String()),
  _links: Type.Optional(Type.Object({ html: nullish(Type.String()) })),
});

/** A directory listing (`GET …/contents/`): an array of entries. */
export const githubContents = Type.Array(Type.Object({ name: Type.String(), type: Type.String(), size: Type.Optional(Type.Integer()) }));

export type GitHubRepository = Static<typeof githubRepository>;
export type GitHubReadme = Static<typeof githubReadme>;
export type GitHubContents = Static<typeof githubContents>;

/** `owner/repo` as GitHub names repositories; anything else (paths, dots only) is refused. */
/** `owner/name` of GitHub's characters, neither part `.` or `..` (a path step): the record actions' ref pattern. */
export const REPO_NAME_PATTERN = "^(?!\\.{1,2}/)(?!.*/\\.{1,2}$)[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$";
const REPO_NAME = new RegExp(REPO_NAME_PATTERN);

export function repoName(value: unknown): string | undefined {
  const name = str(value);
  return name !== undefined && REPO_NAME.test(name) ? name : undefined;
}

/** 404 is an answer (no such repository, no README, an empty repository); a 403 is read for GitHub's rate limit. */
const read = [404, 403];

/** `GET /repos/{o}/{r}`; a renamed repository answers 301 with its new address (the capability follows it). */
export function repoRequest(repo: string): JsonRequest<typeof githubRepository> {
  return { provider: "github", method: "GET", path: `/repos/${repo}`, acceptStatus: [301, ...read], response: githubRepository };
}

/** `GET /repositories/{id}`: where a renamed repository's 301 points. */
export function repoByIdRequest(id: string): JsonRequest<typeof githubRepository> {
  return { provider: "github", method: "GET", path: `/repositories/${id}`, acceptStatus: read, response: githubRepository };
}

export function readmeRequest(repo: string): JsonRequest<typeof githubReadme> {
  return { provider: "github", method: "GET", path: `/repos/${repo}/readme`, acceptStatus: read, optionalPart: true, response: githubReadme };
}

export function contentsRequest(repo: string): JsonRequest<typeof githubContents> {
  return { provider: "github", method: "GET", path: `/repos/${repo}/contents/`, acceptStatus: read, optionalPart: true, response: githubContents };
}

/** The id of the repository a 301 answer points to (`{message, url: …/repositories/{id}}`). */
export function movedTo(body: unknown): string | undefined {
  const url = typeof body === "object" && body !== null && "url" in body ? str((body as { url: unknown }).url) : undefined;
  return /\/repositories\/(\d+)$/.exec(url ?? "")?.[1];
}

/** The head of a README (`encoding: base64`, newlines inside): at most README_HEAD_CHARS, cut at a line end. */
export function readmeHead(readme: GitHubReadme): { name?: string; head: string; truncated: boolean; url?: string } | undefined {
  if (readme.encoding !== "base64") return undefined;
  const text = Buffer.from(readme.content.replace(/\s+/g, ""), "base64").toString("utf8").replace(/\r\n/g, "\n");
  if (text.trim() === "") return undefined;
  let head = text;
  if (text.length > README_HEAD_CHARS) {
    const cut = text.slice(0, README_HEAD_CHARS);
    const lineEnd = cut.lastIndexOf("\n");
    head = lineEnd > README_HEAD_CHARS / 2 ? cut.slice(0, lineEnd) : cut;
  }
  const url = httpUrl(readme.html_url) ?? httpUrl(readme._links?.html);
  const name = str(readme.name);
  return { ...(name === undefined ? {} : { name }), head: head.trimEnd(), truncated: head.length < text.length, ...(url ? { url } : {}) };
}

/** A directory listing → its entries: name, type and the size of files. */
export function topLevelFiles(entries: GitHubContents): JsonObject[] {
  return entries.slice(0, MAX_FILES).flatMap((entry) => {
    const name = str(entry.name);
    if (name === undefined) return [];
    const type = str(entry.type);
    return [defined({ name, type, size: type === "file" ? entry.size : undefined })];
  });
}

const count = (value: number | undefined) => (value !== undefined && value >= 0 ? value : undefined);

/** The repository object and its README and listing (either may be absent) → details. */
export function toRepoDetail(repo: GitHubRepository, readmeBody: GitHubReadme | undefined, contents: GitHubContents | undefined): { detail: JsonObject; links: Link[] } {
  const spdx = str(repo.license?.spdx_id);
  const readme = readmeBody === undefined ? undefined : readmeHead(readmeBody);
  const files = contents === undefined ? undefined : topLevelFiles(contents);
  const detail = defined({
    repo: repo.full_name,
    description: str(repo.description),
    homepage: httpUrl(repo.homepage),
    language: str(repo.language),
    license: spdx !== undefined && spdx !== "NOASSERTION" ? spdx : str(repo.license?.name),
    topics: strings(repo.topics),
    archived: repo.archived,
    fork: repo.fork,
    default_branch: str(repo.default_branch),
    stats: defined({
      stars: count(repo.stargazers_count),
      forks: count(repo.forks_count),
      watchers: count(repo.subscribers_count),
      open_issues: count(repo.open_issues_count),
      size_kb: count(repo.size),
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

/**
 * The dashboard's pages, rendered on the server (html.ts escapes every value). Every page works
 * without JavaScript: forms post and redirect; dashboard.js only adds copy buttons and a confirmation
 * before a revocation. Nothing is loaded from elsewhere: one style sheet, one script, one icon, all
 * served by Quarry under /dashboard/assets/.
 */
import type { AccountRow, KeyRow, LedgerEntry, OAuthGrantRow } from "../store/types.ts";
import { html, type SafeHtml } from "./html.ts";

export const ASSETS = "/dashboard/assets";

export interface PersonView {
  email: string;
  accountName: string;
  accountId: string;
}

export interface LayoutOptions {
  title: string;
  body: SafeHtml;
  person?: PersonView;
  /** The CSRF token of the sign-out form (signed-in pages). */
  csrf?: string;
  active?: "overview" | "keys" | "usage";
  notice?: string;
  error?: string;
}

const NAV: [NonNullable<LayoutOptions["active"]>, string, string][] = [
  ["overview", "Overview", "/dashboard"],
  ["keys", "Keys & apps", "/dashboard/keys"],
  ["usage", "Usage", "/dashboard/usage"],
];

export function layout(o: LayoutOptions): string {
  const nav = o.person
    ? html`<nav class="nav" aria-label="Dashboard">${NAV.map(
        ([id, label, href]) => html`<a href="${href}"${o.active === id ? html` aria-current="page"` : ""}>${label}</a>`,
      )}</nav>
      <div class="who"><span class="who-text"><span class="who-email">${o.person.email}</span><span class="who-account">${o.person.accountName}</span></span>
        <form method="post" action="/dashboard/sign-out"><input type="hidden" name="_csrf" value="${o.csrf}"><button type="submit" class="button subtle">Sign out</button></form></div>`
    : "";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${o.title} · Quarry</title>
<link rel="icon" href="${ASSETS}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSETS}/dashboard.css">
<script src="${ASSETS}/dashboard.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="topbar"><div class="topbar-inner">
<a class="brand" href="/dashboard"><img src="${ASSETS}/favicon.svg" alt="" width="22" height="22"> Quarry</a>
${nav}
</div></header>
<main id="main" class="page">
${o.notice ? html`<p class="flash notice" role="status">${o.notice}</p>` : ""}
${o.error ? html`<p class="flash error" role="alert">${o.error}</p>` : ""}
${o.body}
</main>
<footer class="footer">Quarry dashboard · times in UTC · <a href="/v1/openapi.public.json">API reference</a></footer>
<div class="sr-only" aria-live="polite" id="live"></div>
</body>
</html>
`.value;
}

const fmtTime = (ms: number | null): SafeHtml =>
  ms === null ? html`<span class="muted">never</span>` : html`<time datetime="${new Date(ms).toISOString()}">${new Date(ms).toISOString().slice(0, 16).replace("T", " ")}</time>`;
const fmtDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const number = (n: number) => n.toLocaleString("en-US");

export function signInPage(o: { csrf: string; email?: string; next?: string; error?: string; notice?: string }): string {
  return layout({
    title: "Sign in",
    ...(o.error ? { error: o.error } : {}),
    ...(o.notice ? { notice: o.notice } : {}),
    body: html`<section class="card narrow">
<h1>Sign in</h1>
<p class="muted">Manage your API keys, connected apps and usage.</p>
<form method="post" action="/dashboard/sign-in" class="stack">
<input type="hidden" name="_csrf" value="${o.csrf}">
${o.next ? html`<input type="hidden" name="next" value="${o.next}">` : ""}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${o.email ?? ""}" autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">
<button type="submit" class="button primary">Sign in</button>
</form>
<p class="muted small">No login yet? The operator of this Quarry creates one for you.</p>
</section>`,
  });
}

export interface OverviewView {
  account: AccountRow;
  planName: string;
  used: number;
  cap: number;
  periodEnd: number | null;
  sharpenTier: string;
  /** The stage calls are served at now, and whether it is saved or the plan's default. */
  sharpenStage: string;
  savedStage: string | null;
  planDefaultStage: string;
  allowedStages: { stage: string; tier: string }[];
  enabledCount: number;
  keysActive: number;
  appsConnected: number;
}

export function overviewPage(v: OverviewView, common: Omit<LayoutOptions, "title" | "body">): string {
  const left = Math.max(0, v.cap - v.used);
  const share = v.cap > 0 ? Math.min(1, v.used / v.cap) : 1;
  const period =
    v.periodEnd === null
      ? html`One-time grant: it does not renew.`
      : html`Renews on ${fmtTime(v.periodEnd)}.`;
  const options = [
    html`<option value="default"${v.savedStage === null ? html` selected` : ""}>Plan default (${v.planDefaultStage})</option>`,
    html`<option value="stock"${v.savedStage === "stock" ? html` selected` : ""}>Off (stock)</option>`,
    ...v.allowedStages.map(
      (s) => html`<option value="${s.stage}"${v.savedStage === s.stage ? html` selected` : ""}>${s.stage} (tier ${s.tier})</option>`,
    ),
  ];
  return layout({
    ...common,
    title: "Overview",
    active: "overview",
    body: html`<h1>Overview</h1>
<div class="grid">
<section class="card" aria-labelledby="plan-h">
<h2 id="plan-h">Plan</h2>
<p class="big">${v.planName}</p>
<dl class="facts"><dt>Status</dt><dd><span class="badge status-${v.account.status}">${v.account.status.replace("_", " ")}</span></dd>
<dt>Billing</dt><dd>${v.account.cadence ?? "none"}</dd>
<dt>Account</dt><dd><code>${v.account.id}</code></dd></dl>
</section>
<section class="card" aria-labelledby="credits-h">
<h2 id="credits-h">Credits</h2>
<p class="big">${number(v.used)} <span class="muted">/ ${number(v.cap)} used</span></p>
<svg class="meter" viewBox="0 0 100 8" preserveAspectRatio="none" role="img" aria-label="${number(v.used)} of ${number(v.cap)} credits used (${Math.round(share * 100)}%)"><rect class="meter-track" x="0" y="0" width="100" height="8" rx="4"></rect><rect class="meter-fill${share >= 0.9 ? " high" : ""}" x="0" y="0" width="${(share * 100).toFixed(2)}" height="8" rx="4"></rect></svg>
<p>${number(left)} left. ${period}</p>
<p class="muted small">1 credit = USD 0.001 of provider cost; refused and failed calls cost nothing.</p>
</section>
<section class="card" aria-labelledby="sharpen-h">
<h2 id="sharpen-h">Sharpen</h2>
<p class="small">Sharpen has a model from another family than your assistant's review a draft answer. A higher stage asks a stronger reviewer (stage3+ asks two) and costs more credits.</p>
<dl class="facts"><dt>Plan tier</dt><dd>${v.sharpenTier}</dd><dt>Calls are served at</dt><dd>${v.sharpenStage}</dd></dl>
<form method="post" action="/dashboard/sharpen-stage" class="inline-form">
<input type="hidden" name="_csrf" value="${common.csrf}">
<label for="stage">Saved stage</label>
<select id="stage" name="stage">${options}</select>
<button type="submit" class="button">Save</button>
</form>
<p class="muted small">Stages above your plan's tier are not offered. Your assistant can still ask for another stage on a single call.</p>
</section>
<section class="card" aria-labelledby="access-h">
<h2 id="access-h">Access</h2>
<dl class="facts"><dt>Active API keys</dt><dd>${v.keysActive}</dd><dt>Connected apps</dt><dd>${v.appsConnected}</dd><dt>Capabilities on your plan</dt><dd>${v.enabledCount}</dd></dl>
<p><a class="button" href="/dashboard/keys">Manage keys and apps</a></p>
</section>
</div>`,
  });
}

export interface KeysView {
  keys: KeyRow[];
  /** Each key's use this period, by key id (only keys with a limit have one: keyUse in accounts.ts). */
  keyUse: Map<string, number>;
  grants: OAuthGrantRow[];
  base: string;
  /** The create-key form's one-use token (a re-post makes no second key). */
  formToken: string;
}

export function keysPage(v: KeysView, common: Omit<LayoutOptions, "title" | "body">): string {
  const active = v.keys.filter((k) => k.revokedAt === null);
  const revoked = v.keys.filter((k) => k.revokedAt !== null);
  const keyRows = [...active, ...revoked].map(
    (k) => html`<tr${k.revokedAt !== null ? html` class="revoked"` : ""}>
<th scope="row"><bdi>${k.name}</bdi></th><td><code>${k.hint}…</code></td>
<td class="budget">${keyBudget(k, v.keyUse.get(k.id) ?? 0)}${k.revokedAt === null ? limitForm(k, common.csrf ?? "") : ""}</td>
<td>${fmtTime(k.createdAt)}</td><td>${fmtTime(k.lastUsedAt)}</td>
<td>${
      k.revokedAt === null
        ? html`<form method="post" action="/dashboard/keys/${k.id}/revoke" data-confirm="Revoke the key “${k.name}” (${k.hint}…)? Calls with it will be refused at once.">
<input type="hidden" name="_csrf" value="${common.csrf}"><button type="submit" class="button danger" aria-label="Revoke key ${k.name} (${k.hint}…)">Revoke</button></form>`
        : html`<span class="badge">Revoked ${fmtTime(k.revokedAt)}</span>`
    }</td></tr>`,
  );
  const grantRows = v.grants.map(
    (g) => html`<tr><th scope="row"><bdi>${g.clientName}</bdi></th><td>${fmtTime(g.createdAt)}</td><td>${fmtTime(g.lastUsedAt)}</td>
<td><form method="post" action="/dashboard/apps/${g.id}/revoke" data-confirm="Disconnect “${g.clientName}”? Its tokens stop working at once.">
<input type="hidden" name="_csrf" value="${common.csrf}"><button type="submit" class="button danger" aria-label="Disconnect ${g.clientName}">Disconnect</button></form></td></tr>`,
  );
  return layout({
    ...common,
    title: "Keys & apps",
    active: "keys",
    body: html`<h1>Keys &amp; apps</h1>
<section class="card" aria-labelledby="new-h">
<h2 id="new-h">Create an API key</h2>
<form method="post" action="/dashboard/keys" class="inline-form">
<input type="hidden" name="_csrf" value="${common.csrf}">
<input type="hidden" name="once" value="${v.formToken}">
<label for="key-name">Key name</label>
<input id="key-name" name="name" type="text" maxlength="100" placeholder="e.g. laptop, CI, Claude" required>
<label for="key-limit">Limit</label>
<input id="key-limit" name="limit" type="text" inputmode="numeric" pattern="[0-9]*" maxlength="13" class="limit-input" placeholder="no limit" aria-describedby="key-limit-help">
<button type="submit" class="button primary">Create key</button>
</form>
<p class="muted small">The key is shown once, right after you create it. Quarry keeps only a hash of it.</p>
<p class="muted small" id="key-limit-help">A limit is the most credits the key may spend in a billing period (for an agent that runs on its own); a call that would go past it is refused. Leave it empty for no limit: the account's cap applies to every key either way.</p>
</section>
<section class="card" aria-labelledby="keys-h">
<h2 id="keys-h">API keys</h2>
${
  v.keys.length === 0
    ? html`<p class="muted">No keys yet.</p>`
    : html`<div class="table-wrap"><table><caption class="sr-only">Your API keys</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Limit</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${keyRows}</tbody></table></div>`
}
</section>
<section class="card" aria-labelledby="apps-h">
<h2 id="apps-h">Connected apps</h2>
<p class="muted small">MCP hosts that sign in with OAuth connect to <code>${v.base}/mcp</code> without a key: they send you here to approve them, and appear below until you disconnect them.</p>
${
  v.grants.length === 0
    ? html`<p class="muted">No apps connected.</p>`
    : html`<div class="table-wrap"><table><caption class="sr-only">Apps connected with OAuth</caption>
<thead><tr><th scope="col">App</th><th scope="col">Connected</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${grantRows}</tbody></table></div>`
}
</section>`,
  });
}

/** A key's use against its own limit this period, or "no limit". */
function keyBudget(k: KeyRow, used: number): SafeHtml {
  if (k.creditLimit === null) return html`<span class="muted">no limit</span>`;
  const share = k.creditLimit === 0 ? 1 : Math.min(1, used / k.creditLimit);
  return html`<span class="budget-text">${number(used)} of ${number(k.creditLimit)} credits this period</span>
<svg class="meter small-meter" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true"><rect class="meter-track" x="0" y="0" width="100" height="8" rx="4"></rect><rect class="meter-fill${share >= 0.9 ? " high" : ""}" x="0" y="0" width="${(share * 100).toFixed(2)}" height="8" rx="4"></rect></svg>`;
}

/** The small form that sets or removes an active key's limit. */
function limitForm(k: KeyRow, csrf: string): SafeHtml {
  return html`<form method="post" action="/dashboard/keys/${k.id}/limit" class="limit-form">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="limit-${k.id}"><span class="sr-only">Credit limit per period of key ${k.name} (${k.hint}…), empty for none</span></label>
<input id="limit-${k.id}" name="limit" type="text" inputmode="numeric" pattern="[0-9]*|none" maxlength="13" class="limit-input" value="${k.creditLimit === null ? "" : String(k.creditLimit)}" placeholder="none">
<button type="submit" class="button small" aria-label="Set the limit of key ${k.name} (${k.hint}…)">Set limit</button></form>`;
}

/** A block of text with a copy button (the button works with JavaScript; the text can always be selected). */
function copyBlock(id: string, label: string, content: string, multiline = false): SafeHtml {
  return html`<div class="copy-block">
<div class="copy-head"><span id="${id}-label" class="copy-label">${label}</span><button type="button" class="button small" data-copy="${id}" aria-describedby="${id}-label">Copy</button></div>
${multiline ? html`<pre id="${id}" class="code" tabindex="0" aria-labelledby="${id}-label">${content}</pre>` : html`<code id="${id}" class="code one-line" tabindex="0" aria-labelledby="${id}-label">${content}</code>`}
</div>`;
}

export function keyCreatedPage(v: { key: string; row: KeyRow; base: string }, common: Omit<LayoutOptions, "title" | "body">): string {
  const headerConfig = JSON.stringify(
    { mcpServers: { quarry: { type: "http", url: `${v.base}/mcp`, headers: { Authorization: `Bearer ${v.key}` } } } },
    null,
    2,
  );
  const urlConfig = JSON.stringify({ mcpServers: { quarry: { type: "http", url: `${v.base}/mcp/k/${v.key}` } } }, null, 2);
  const curl = `curl -s ${v.base}/v1/catalog -H "Authorization: Bearer ${v.key}"`;
  return layout({
    ...common,
    title: "Your new key",
    active: "keys",
    body: html`<h1>Your new key “${v.row.name}”</h1>
<section class="card">
<p class="flash warning" role="alert"><strong>Copy it now.</strong> This is the only time the key is shown: Quarry keeps only a hash of it and cannot show it again.</p>
${copyBlock("new-key", "API key", v.key)}
${copyBlock("curl-line", "Try it with curl", curl)}
<h2>Use it from an MCP host</h2>
<p class="muted small">Header form, for hosts that can send headers (Claude Code, VS Code):</p>
${copyBlock("mcp-header", "MCP configuration (header form)", headerConfig, true)}
<p class="muted small">URL form, for hosts that cannot send headers. The URL holds the key: treat it as a secret.</p>
${copyBlock("mcp-url", "MCP configuration (URL form)", urlConfig, true)}
<p><a class="button primary" href="/dashboard/keys">Done, I have copied it</a></p>
</section>`,
  });
}

export interface UsageView {
  since: number;
  periodEnd: number | null;
  chart: SafeHtml;
  chartUnit: string;
  byCapability: { capability: string; calls: number; credits: number }[];
  byDay: { day: number; calls: number; credits: number }[];
  recent: (LedgerEntry & { via: string })[];
}

export function usagePage(v: UsageView, common: Omit<LayoutOptions, "title" | "body">): string {
  const total = v.byCapability.reduce((t, r) => ({ calls: t.calls + r.calls, credits: t.credits + r.credits }), { calls: 0, credits: 0 });
  return layout({
    ...common,
    title: "Usage",
    active: "usage",
    body: html`<h1>Usage</h1>
<p>Calls that were answered, with what each cost. Refused and failed calls cost nothing and are not listed; each answer your app got carries its own request id.</p>
<p class="muted">This period: since ${fmtDay(v.since)}${v.periodEnd === null ? "" : html`, until ${fmtDay(v.periodEnd)}`} · ${number(total.calls)} calls · ${number(total.credits)} credits</p>
<section class="card" aria-labelledby="chart-h">
<h2 id="chart-h">${v.chartUnit === "credits" ? "Credits" : "Calls"} per day</h2>
${v.chart}
<details><summary>The same by day, as a table</summary>
<div class="table-wrap"><table><caption class="sr-only">Calls and credits per day</caption>
<thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Credits</th></tr></thead>
<tbody>${v.byDay.map((d) => html`<tr><th scope="row">${fmtDay(d.day)}</th><td class="num">${number(d.calls)}</td><td class="num">${number(d.credits)}</td></tr>`)}</tbody></table></div>
</details>
</section>
<section class="card" aria-labelledby="cap-h">
<h2 id="cap-h">By capability</h2>
${
  v.byCapability.length === 0
    ? html`<p class="muted">No answered calls yet this period.</p>`
    : html`<div class="table-wrap"><table><caption class="sr-only">Calls and credits per capability this period</caption>
<thead><tr><th scope="col">Capability</th><th scope="col" class="num">Calls</th><th scope="col" class="num">Credits</th></tr></thead>
<tbody>${v.byCapability.map((r) => html`<tr><th scope="row">${r.capability}</th><td class="num">${number(r.calls)}</td><td class="num">${number(r.credits)}</td></tr>`)}</tbody>
<tfoot><tr><th scope="row">Total</th><td class="num">${number(total.calls)}</td><td class="num">${number(total.credits)}</td></tr></tfoot></table></div>`
}
</section>
<section class="card" aria-labelledby="recent-h">
<h2 id="recent-h">Latest calls</h2>
${
  v.recent.length === 0
    ? html`<p class="muted">No answered calls yet.</p>`
    : html`<div class="table-wrap"><table><caption class="sr-only">The latest answered calls</caption>
<thead><tr><th scope="col">Time (UTC)</th><th scope="col">Capability</th><th scope="col">Operation</th><th scope="col" class="num">Credits</th><th scope="col">Via</th><th scope="col">Request id</th></tr></thead>
<tbody>${v.recent.map(
        (r) =>
          html`<tr><td>${fmtTime(r.createdAt)}</td><th scope="row">${r.capability}</th><td>${r.operation}</td><td class="num">${number(r.credits)}</td><td>${r.via}</td><td><code>${r.requestId}</code></td></tr>`,
      )}</tbody></table></div>`
}
</section>`,
  });
}

export function consentPage(
  v: { requestId: string; clientName: string; clientHost?: string; redirectHost: string; accountName: string; email: string },
  common: Omit<LayoutOptions, "title" | "body">,
): string {
  return layout({
    ...common,
    title: "Connect an app",
    body: html`<section class="card narrow">
<h1>Connect “<bdi>${v.clientName}</bdi>”?</h1>
${
  v.clientHost === undefined
    ? ""
    : html`<p class="client-host">The app describes itself at <code>${v.clientHost}</code>; its name is its own.</p>`
}<p><strong><bdi>${v.clientName}</bdi></strong> asks to use Quarry as <strong><bdi>${v.email}</bdi></strong> on the account <strong><bdi>${v.accountName}</bdi></strong>.</p>
<ul class="checks"><li>run searches and Sharpen reviews that spend this account's credits;</li><li>read the account's plan and balance.</li></ul>
<p class="muted small">It will be sent back to <code>${v.redirectHost}</code>. It never sees your password or your API keys, and you can disconnect it at any time under Keys &amp; apps.</p>
<div class="actions">
<form method="post" action="/dashboard/authorize"><input type="hidden" name="_csrf" value="${common.csrf}"><input type="hidden" name="request" value="${v.requestId}"><input type="hidden" name="decision" value="approve"><button type="submit" class="button primary">Connect</button></form>
<form method="post" action="/dashboard/authorize"><input type="hidden" name="_csrf" value="${common.csrf}"><input type="hidden" name="request" value="${v.requestId}"><input type="hidden" name="decision" value="deny"><button type="submit" class="button">Cancel</button></form>
</div>
</section>`,
  });
}

export function messagePage(o: { title: string; message: string; link?: { href: string; label: string }; person?: PersonView; csrf?: string }): string {
  return layout({
    title: o.title,
    ...(o.person ? { person: o.person } : {}),
    ...(o.csrf ? { csrf: o.csrf } : {}),
    body: html`<section class="card narrow"><h1>${o.title}</h1><p>${o.message}</p>${
      o.link ? html`<p><a class="button" href="${o.link.href}">${o.link.label}</a></p>` : ""
    }</section>`,
  });
}

/**
 * The operator CLI's commands: accounts, keys, plan, status, cadence, Sharpen stage, balance,
 * usage, and calls in doubt. Each works directly on the store of the current environment through
 * AccountService, so the rules (plan fields, key format, hashing) are the server's own, not a
 * second copy.
 */
import { type AccountService, balanceOf, keyUse, MAX_KEY_LIMIT, parseKeyLimit } from "../accounts/accounts.ts";
import type { Clock } from "../clock.ts";
import { type Config, findPlan, type SharpenStage } from "../config.ts";
import { allowedStages, STAGES } from "../sharpen/entitlement.ts";
import { listInDoubt, retryUnresolved } from "../store/in-doubt.ts";
import { inDoubtDir, openStore } from "../store/open-store.ts";
import type { LostCallReport } from "../store/postgres/store.ts";
import type { AccountRow, KeyRow, Store } from "../store/types.ts";
import type { LoginService } from "../people/logins.ts";
import { fields, isoOrDash, isoOrNull, json, type Output, table } from "./output.ts";

/** A refusal the operator can fix (bad value, unknown id): one line on stderr, exit code 1. */
export class CliError extends Error {}

/** Options a command may take besides the global `--json` and `--help`. */
export type OptionName = "name" | "plan" | "since" | "provider" | "limit";

/** What a command that works without the store gets (`providers check`). */
export interface StorelessContext {
  config: Config;
  out: Output;
  json: boolean;
  /** `--strict`. */
  strict: boolean;
}

export interface CommandContext {
  config: Config;
  store: Store;
  accounts: AccountService;
  logins: LoginService;
  clock: Clock;
  out: Output;
  json: boolean;
  /**
   * A secret from the operator (a password): prompted without echo on a terminal, else the first
   * line of stdin. Never taken from the command line, where it would land in shell history and `ps`.
   */
  readSecret(prompt: string): Promise<string>;
}

export interface CommandDef {
  /** The words that select the command, e.g. `["keys", "create"]`. */
  words: string[];
  /** Positional arguments after the words, as shown in usage (`<account>`). */
  args: string[];
  options: OptionName[];
  /**
   * Whether the command may make the embedded database when DATA_DIR has none (only `accounts
   * create`): every other command works on what is there, so a mistyped DATA_DIR is refused instead
   * of answered from a new, empty store.
   */
  createsStore?: true;
  /** Usage line without the program name. */
  usage: string;
  /** One line for `--help`. */
  summary: string;
  run(ctx: CommandContext, args: string[], options: Partial<Record<OptionName, string>>): Promise<void>;
  /** A command that needs no store: run instead of `run`, without opening one; returns the exit code. */
  withoutStore?(ctx: StorelessContext, options: Partial<Record<OptionName, string>>): Promise<number>;
}

const STATUSES = ["free", "active", "past_due", "canceled"] as const;
const CADENCES = ["monthly", "annual", "none"] as const;

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new CliError(`invalid ${what} "${value}" (expected one of: ${allowed.join(", ")})`);
}

function planList(config: Config): string {
  return config.plans.map((p) => p.id).join(", ");
}

/** The account as an operator sees it: plan, status, balance, Sharpen stage and keys. */
function accountView(ctx: CommandContext, account: AccountRow, keys: KeyRow[]) {
  const plan = ctx.accounts.plan(account.planId);
  const saved = account.sharpenStage as SharpenStage | null;
  return {
    id: account.id,
    name: account.name,
    plan: {
      id: account.planId,
      name: plan.id === account.planId ? plan.name : `(unknown, billed as ${plan.id})`,
    },
    status: account.status,
    cadence: account.cadence,
    credits: { ...balanceOf(account), reserved: account.creditsReserved },
    // Start of the current subscription, whose monthly anniversaries end paid periods (CLI only:
    // the API's Account resource has no such field).
    period_anchor: isoOrNull(account.periodAnchor),
    sharpen_tier: plan.sharpenTier,
    sharpen_stage: saved ?? plan.sharpenDefaultStage,
    sharpen_stage_source: saved === null ? "plan_default" : "saved",
    keys: { total: keys.length, active: keys.filter((k) => k.revokedAt === null).length },
    created_at: new Date(account.createdAt).toISOString(),
  };
}

/** Fetch an account, rolling its credit period first so the balance shown is the current one. */
async function currentAccount(ctx: CommandContext, id: string): Promise<AccountRow> {
  return ctx.accounts.ensureCurrentPeriod(await ctx.accounts.mustGet(id));
}

function balanceText(b: { used: number; cap: number; period_end: string | null; reserved: number }): string {
  const period = b.period_end === null ? "one-time grant" : `period ends ${b.period_end}`;
  const reserved = b.reserved > 0 ? `, ${b.reserved} reserved by calls in flight` : "";
  return `${b.used} / ${b.cap} used, ${Math.max(0, b.cap - b.used)} left (${period}${reserved})`;
}

async function showAccount(ctx: CommandContext, account: AccountRow): Promise<void> {
  const view = accountView(ctx, account, await ctx.store.listKeys(account.id));
  if (ctx.json) {
    ctx.out.line(json(view));
    return;
  }
  ctx.out.line(
    fields([
      ["Account", view.id],
      ["Name", view.name],
      ["Plan", `${view.plan.id} (${view.plan.name})`],
      ["Status", view.status],
      ["Cadence", view.cadence ?? "none"],
      ["Balance", balanceText(view.credits)],
      ["Subscribed", view.period_anchor ?? "-"],
      [
        "Sharpen",
        `${view.sharpen_stage} (${view.sharpen_stage_source === "plan_default" ? "plan default" : "saved"}), plan tier ${view.sharpen_tier}`,
      ],
      ["Keys", `${view.keys.total} (${view.keys.active} active)`],
      ["Created", view.created_at],
    ]),
  );
}

/** Where people sign in, for the operator to pass on. */
function dashboardUrl(config: Config): string {
  const base = config.publicUrl ?? `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}`;
  return `${base}/dashboard`;
}

/** A key limit from the command line: credits per period, or `none` where `none` is allowed. */
function keyLimitArg(text: string, what: string, noneAllowed: boolean): number | null {
  const limit = parseKeyLimit(text);
  if (limit === undefined || (limit === null && (!noneAllowed || text.trim() === ""))) {
    throw new CliError(
      `invalid ${what} "${text}" (expected a whole number of credits per period, 0 to ${MAX_KEY_LIMIT}${noneAllowed ? ", or none" : ""})`,
    );
  }
  return limit;
}

/**
 * A key's own limit and its use this period, as `keys list` and `keys limit` show them (JSON fields;
 * the use is null for a key without a limit: it is not counted then).
 */
function keyBudgetView(key: KeyRow, account: AccountRow) {
  return key.creditLimit === null
    ? { credit_limit: null, credits_used: null, credits_reserved: null }
    : { credit_limit: key.creditLimit, credits_used: keyUse(key, account), credits_reserved: key.creditsReserved };
}

function keyBudgetText(budget: ReturnType<typeof keyBudgetView>): string {
  return budget.credit_limit === null ? "none" : `${budget.credits_used}/${budget.credit_limit}`;
}

/** Account names are labels for operators (tables, usage); longer ones are refused. */
export const MAX_ACCOUNT_NAME = 200;

export const COMMANDS: CommandDef[] = [
  {
    words: ["providers", "check"],
    args: [],
    options: ["provider"],
    usage: "providers check [--provider ids] [--strict]",
    summary:
      "send each configured provider's probe (one cheap real request) and say whether it still answers as Quarry reads it; exit 1 on drift (--strict: on any failure)",
    run: async () => {
      throw new CliError("providers check runs without the store");
    },
    async withoutStore(ctx, options) {
      // Loaded here: every capability's adapter comes with the probes, which the store commands never need.
      const [{ PROBES }, { HttpUpstreamClient }, { checkProviders, exitCodeOf, formatResults }] = await Promise.all([
        import("../capabilities/probes.ts"),
        import("../upstream/client.ts"),
        import("./providers-check.ts"),
      ]);
      const client = new HttpUpstreamClient(ctx.config);
      try {
        const only = options.provider?.split(",").map((p) => p.trim()).filter(Boolean);
        const unknown = only?.filter((p) => !(p in PROBES));
        if (unknown !== undefined && unknown.length > 0) throw new CliError(`no probe for provider ${unknown.join(", ")} (known: ${Object.keys(PROBES).join(", ")})`);
        const results = await checkProviders(ctx.config, PROBES, client, only === undefined ? {} : { only });
        ctx.out.line(ctx.json ? json({ checked_at: new Date().toISOString(), results }) : formatResults(results));
        return exitCodeOf(results, ctx.strict);
      } finally {
        await client.close();
      }
    },
  },
  {
    words: ["accounts", "create"],
    args: [],
    options: ["name", "plan"],
    createsStore: true,
    usage: "accounts create --name <name> [--plan <plan>]",
    summary: "Create an account (default plan from configuration); prints its id.",
    async run(ctx, _args, options) {
      const name = options.name?.trim();
      if (!name) throw new CliError("accounts create needs --name <name>");
      if ([...name].length > MAX_ACCOUNT_NAME) throw new CliError(`--name is longer than ${MAX_ACCOUNT_NAME} characters`);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
      if (/[\u0000-\u001f\u007f]/.test(name)) throw new CliError("--name must not hold control characters (tabs, line breaks…)");
      const planId = options.plan ?? ctx.config.defaultPlanId;
      if (!findPlan(ctx.config, planId))
        throw new CliError(`unknown plan "${planId}" (plans: ${planList(ctx.config)})`);
      const account = await ctx.accounts.createAccount(name, planId);
      if (ctx.json) ctx.out.line(json(accountView(ctx, account, [])));
      else ctx.out.line(account.id);
    },
  },
  {
    words: ["accounts", "list"],
    args: [],
    options: [],
    usage: "accounts list",
    summary: "List every account with its plan, status and credits used.",
    async run(ctx) {
      const accounts = await ctx.store.listAccounts();
      if (ctx.json) {
        ctx.out.line(
          json(
            accounts.map((a) => ({
              id: a.id,
              name: a.name,
              plan: a.planId,
              status: a.status,
              credits: balanceOf(a),
              created_at: new Date(a.createdAt).toISOString(),
            })),
          ),
        );
        return;
      }
      if (accounts.length === 0) {
        ctx.out.line("No accounts.");
        return;
      }
      ctx.out.line(
        table(
          ["ID", "NAME", "PLAN", "STATUS", "USED/CAP", "CREATED"],
          accounts.map((a) => [
            a.id,
            a.name,
            a.planId,
            a.status,
            `${a.creditsUsed}/${a.creditsCap}`,
            isoOrDash(a.createdAt),
          ]),
        ),
      );
    },
  },
  {
    words: ["accounts", "show"],
    args: ["<account>"],
    options: [],
    usage: "accounts show <account>",
    summary: "Show plan, status, cadence, balance, Sharpen stage and key count.",
    async run(ctx, [id]) {
      await showAccount(ctx, await currentAccount(ctx, id!));
    },
  },
  {
    words: ["keys", "create"],
    args: ["<account>"],
    options: ["name", "limit"],
    usage: "keys create <account> [--name <name>] [--limit <credits>]",
    summary:
      "Create an API key, optionally with its own credit limit per billing period (the account's cap still applies); the key is printed once and only its hash is stored.",
    async run(ctx, [accountId], options) {
      const name = options.name?.trim() || "default";
      const limit = options.limit === undefined ? null : keyLimitArg(options.limit, "--limit", false);
      const { key, row } = await ctx.accounts.createKey(accountId!, name, limit);
      const warning =
        "Save this key now: it is shown once. Quarry stores only its SHA-256 hash and cannot show it again.";
      if (ctx.json) {
        ctx.out.line(
          json({
            id: row.id,
            account_id: row.accountId,
            name: row.name,
            hint: row.hint,
            credit_limit: row.creditLimit,
            created_at: new Date(row.createdAt).toISOString(),
            key,
            warning,
          }),
        );
        return;
      }
      // The key alone on stdout so `KEY=$(quarry keys create …)` captures exactly it; the rest is for the reader.
      const limited = row.creditLimit === null ? "" : `, limited to ${row.creditLimit} credits per period`;
      ctx.out.notice(`Created key ${row.id} ("${row.name}") for account ${row.accountId}${limited}.`);
      ctx.out.line(key);
      ctx.out.notice(warning);
    },
  },
  {
    words: ["keys", "list"],
    args: ["<account>"],
    options: [],
    usage: "keys list <account>",
    summary:
      "List an account's keys: id, hint, name, own limit with its use this period (USED/LIMIT), created, revoked (never the key or its hash).",
    async run(ctx, [accountId]) {
      const account = await currentAccount(ctx, accountId!);
      const keys = await ctx.store.listKeys(accountId!);
      if (ctx.json) {
        ctx.out.line(
          json(
            keys.map((k) => ({
              id: k.id,
              hint: k.hint,
              name: k.name,
              ...keyBudgetView(k, account),
              created_at: isoOrNull(k.createdAt),
              revoked_at: isoOrNull(k.revokedAt),
            })),
          ),
        );
        return;
      }
      if (keys.length === 0) {
        ctx.out.line("No keys.");
        return;
      }
      ctx.out.line(
        table(
          ["ID", "HINT", "NAME", "USED/LIMIT", "CREATED", "REVOKED"],
          keys.map((k) => [
            k.id,
            `${k.hint}…`,
            k.name,
            keyBudgetText(keyBudgetView(k, account)),
            isoOrDash(k.createdAt),
            isoOrDash(k.revokedAt),
          ]),
        ),
      );
    },
  },
  {
    words: ["keys", "limit"],
    args: ["<key-id>", "<credits|none>"],
    options: [],
    usage: "keys limit <key-id> <credits|none>",
    summary:
      "Set a key's own credit limit per billing period, or remove it with none; a call that would take the key past it is refused 402 (a running server sees it within KEY_CACHE_TTL_MS, 1 s by default). A key given a limit counts what it used this period already.",
    async run(ctx, [keyId, value]) {
      const limit = keyLimitArg(value!, "limit", true);
      if (!(await ctx.store.getKey(keyId!))) throw new CliError(`no key "${keyId}"`);
      const key = await ctx.accounts.setKeyLimit(keyId!, limit);
      const budget = keyBudgetView(key, await currentAccount(ctx, key.accountId));
      if (ctx.json) {
        ctx.out.line(json({ id: key.id, account_id: key.accountId, name: key.name, ...budget }));
        return;
      }
      ctx.out.line(
        budget.credit_limit === null
          ? `Key ${key.id} ("${key.name}") has no limit of its own now; the account's cap still applies.`
          : `Key ${key.id} ("${key.name}") may spend ${budget.credit_limit} credits per billing period; ${budget.credits_used} used this period.`,
      );
    },
  },
  {
    words: ["keys", "revoke"],
    args: ["<key-id>"],
    options: [],
    usage: "keys revoke <key-id>",
    summary:
      "Revoke a key by its id (from `keys list`); it answers 401 from then on (a running server sees it within KEY_CACHE_TTL_MS, 1 s by default).",
    async run(ctx, [keyId]) {
      // Revoking twice keeps the first revocation time (the store uses COALESCE), so this is idempotent.
      const now = ctx.clock.now();
      const revokedAt = await ctx.store.revokeKey(keyId!, now);
      if (revokedAt === null) throw new CliError(`no key "${keyId}"`);
      const already = revokedAt !== now;
      if (ctx.json) ctx.out.line(json({ id: keyId, revoked: true, revoked_at: isoOrNull(revokedAt), already_revoked: already }));
      else if (already) ctx.out.line(`Key ${keyId} was already revoked at ${isoOrNull(revokedAt)}; nothing changed.`);
      else
        ctx.out.line(
          `Revoked key ${keyId}. Running servers refuse it within KEY_CACHE_TTL_MS (default 1 s).`,
        );
    },
  },
  {
    words: ["logins", "create"],
    args: ["<account>", "<email>"],
    options: [],
    usage: "logins create <account> <email>",
    summary:
      "Create a dashboard sign-in for a person: the password is prompted (or read from stdin's first line), stored only as a scrypt hash.",
    async run(ctx, [accountId, email]) {
      await ctx.accounts.mustGet(accountId!);
      const password = await ctx.readSecret(`Password for ${email} (at least 10 characters): `);
      const login = await ctx.logins.create(accountId!, email!, password);
      const url = dashboardUrl(ctx.config);
      if (ctx.json) {
        ctx.out.line(
          json({ id: login.id, account_id: login.accountId, email: login.email, created_at: isoOrNull(login.createdAt), sign_in_url: url }),
        );
        return;
      }
      ctx.out.line(login.id);
      ctx.out.notice(`${login.email} can now sign in to account ${login.accountId} at ${url}`);
    },
  },
  {
    words: ["logins", "list"],
    args: ["<account>"],
    options: [],
    usage: "logins list <account>",
    summary: "List an account's dashboard sign-ins: id, email, created, last sign-in (never the password or its hash).",
    async run(ctx, [accountId]) {
      await ctx.accounts.mustGet(accountId!);
      const logins = await ctx.store.listLogins(accountId!);
      if (ctx.json) {
        ctx.out.line(
          json(
            logins.map((l) => ({ id: l.id, email: l.email, created_at: isoOrNull(l.createdAt), last_sign_in_at: isoOrNull(l.lastSignInAt) })),
          ),
        );
        return;
      }
      if (logins.length === 0) {
        ctx.out.line("No logins.");
        return;
      }
      ctx.out.line(
        table(
          ["ID", "EMAIL", "CREATED", "LAST SIGN-IN"],
          logins.map((l) => [l.id, l.email, isoOrDash(l.createdAt), isoOrDash(l.lastSignInAt)]),
        ),
      );
    },
  },
  {
    words: ["logins", "password"],
    args: ["<email>"],
    options: [],
    usage: "logins password <email>",
    summary: "Set a new password (prompted, or stdin's first line); the person's dashboard sessions end.",
    async run(ctx, [email]) {
      const found = await ctx.logins.mustFind(email!);
      const password = await ctx.readSecret(`New password for ${found.email}: `);
      const login = await ctx.logins.setPassword(email!, password);
      if (ctx.json) ctx.out.line(json({ id: login.id, email: login.email, password_changed: true }));
      else ctx.out.line(`New password set for ${login.email}; their dashboard sessions have ended.`);
    },
  },
  {
    words: ["logins", "delete"],
    args: ["<email>"],
    options: [],
    usage: "logins delete <email>",
    summary: "Delete a dashboard sign-in; the person's dashboard sessions end (keys and OAuth grants stay).",
    async run(ctx, [email]) {
      const login = await ctx.logins.remove(email!);
      if (ctx.json) ctx.out.line(json({ id: login.id, email: login.email, deleted: true }));
      else ctx.out.line(`Deleted the login ${login.email}; their dashboard sessions have ended.`);
    },
  },
  {
    words: ["plan", "set"],
    args: ["<account>", "<plan>"],
    options: [],
    usage: "plan set <account> <plan>",
    summary: "Move an account to a plan: another plan sets its cap, status and cadence and starts a new period now; its own plan again only refreshes the cap.",
    async run(ctx, [accountId, planId]) {
      if (!findPlan(ctx.config, planId!)) {
        throw new CliError(`unknown plan "${planId}" (plans: ${planList(ctx.config)})`);
      }
      const account = await ctx.accounts.setPlan(accountId!, planId!);
      const saved = account.sharpenStage as SharpenStage | null;
      if (saved !== null && saved !== "stock") {
        const allowed = allowedStages(ctx.accounts.plan(account.planId).sharpenTier).map((s) => s.stage);
        if (!allowed.includes(saved)) {
          ctx.out.notice(
            `warning: the saved Sharpen stage "${saved}" is above plan "${account.planId}"; ` +
              `consider: sharpen-stage set ${account.id} default`,
          );
        }
      }
      await showAccount(ctx, account);
    },
  },
  {
    words: ["status", "set"],
    args: ["<account>", `<${STATUSES.join("|")}>`],
    options: [],
    usage: `status set <account> ${STATUSES.join("|")}`,
    summary: "Set the subscription status (canceled switches every capability off).",
    async run(ctx, [accountId, value]) {
      const status = oneOf(value!, STATUSES, "status");
      await showAccount(ctx, await ctx.accounts.update(accountId!, { status }));
    },
  },
  {
    words: ["cadence", "set"],
    args: ["<account>", `<${CADENCES.join("|")}>`],
    options: [],
    usage: `cadence set <account> ${CADENCES.join("|")}`,
    summary: "Set the billing cadence (`none` for accounts without a subscription).",
    async run(ctx, [accountId, value]) {
      const cadence = oneOf(value!, CADENCES, "cadence");
      await showAccount(
        ctx,
        await ctx.accounts.update(accountId!, { cadence: cadence === "none" ? null : cadence }),
      );
    },
  },
  {
    words: ["sharpen-stage", "set"],
    args: ["<account>", "<stage>"],
    options: [],
    usage: "sharpen-stage set <account> <stage>",
    summary: `Save the Sharpen stage: ${STAGES.join("|")}|default (stock = off, default = the plan's).`,
    async run(ctx, [accountId, value]) {
      const stage = oneOf(value!, [...STAGES, "default"] as const, "Sharpen stage");
      const account = await ctx.accounts.mustGet(accountId!);
      if (stage !== "default" && stage !== "stock") {
        // A saved stage above the plan's tier would let every call review at a tier the plan does not pay for.
        const plan = ctx.accounts.plan(account.planId);
        const allowed = allowedStages(plan.sharpenTier).map((s) => s.stage);
        if (!allowed.includes(stage)) {
          throw new CliError(
            `stage "${stage}" exceeds plan "${plan.id}" (tier ${plan.sharpenTier}; allowed: stock, ${allowed.join(", ")}, default)`,
          );
        }
      }
      await showAccount(
        ctx,
        await ctx.accounts.update(account.id, { sharpenStage: stage === "default" ? null : stage }),
      );
    },
  },
  {
    words: ["balance"],
    args: ["<account>"],
    options: [],
    usage: "balance <account>",
    summary: "Show credits used, cap and the end of the current period.",
    async run(ctx, [accountId]) {
      const account = await currentAccount(ctx, accountId!);
      const balance = { ...balanceOf(account), reserved: account.creditsReserved };
      if (ctx.json) ctx.out.line(json(balance));
      else ctx.out.line(balanceText(balance));
    },
  },
  {
    words: ["usage"],
    args: ["<account>"],
    options: ["since"],
    usage: "usage <account> [--since <ISO date>]",
    summary: "Calls and credits per capability and operation (all time, or since a date).",
    async run(ctx, [accountId], options) {
      let since = 0;
      if (options.since !== undefined) {
        since = Date.parse(options.since);
        if (Number.isNaN(since))
          throw new CliError(`invalid --since "${options.since}" (expected an ISO 8601 date)`);
      }
      await ctx.accounts.mustGet(accountId!);
      const rows = await ctx.store.usage(accountId!, since);
      const totals = rows.reduce((t, r) => ({ calls: t.calls + r.calls, credits: t.credits + r.credits }), {
        calls: 0,
        credits: 0,
      });
      if (ctx.json) {
        ctx.out.line(
          json({
            account_id: accountId,
            since: since === 0 ? null : new Date(since).toISOString(),
            usage: rows,
            totals,
          }),
        );
        return;
      }
      const from = since === 0 ? "all time" : `since ${new Date(since).toISOString()}`;
      if (rows.length === 0) {
        ctx.out.line(`No usage (${from}).`);
        return;
      }
      ctx.out.line(`Usage ${from}:`);
      ctx.out.line(
        table(
          ["CAPABILITY", "OPERATION", "CALLS", "CREDITS"],
          [
            ...rows.map((r) => [r.capability, r.operation, String(r.calls), String(r.credits)]),
            ["total", "", String(totals.calls), String(totals.credits)],
          ],
        ),
      );
    },
  },
  {
    words: ["in-doubt", "list"],
    args: [],
    options: [],
    usage: "in-doubt list",
    summary:
      "List calls answered 503 with their outcome unknown (PostgreSQL) kept in DATA_DIR/in-doubt: pending or set aside.",
    async run(ctx) {
      const dir = inDoubtDir(ctx.config.dataDir);
      const entries = await listInDoubt(dir);
      if (ctx.json) {
        ctx.out.line(json(entries.map((e) => ({ state: e.state, file: e.file, call: e.call }))));
        return;
      }
      if (entries.length === 0) {
        ctx.out.line(`No calls in doubt in ${dir}.`);
        return;
      }
      ctx.out.line(
        table(
          ["STATE", "LEDGER ID", "REQUEST ID", "ACCOUNT", "CREDITS", "FILE"],
          entries.map(({ state, call, file }) => [
            state,
            call?.ledger.id ?? "(unreadable)",
            call?.ledger.requestId ?? "-",
            call?.ledger.accountId ?? "-",
            call ? String(call.ledger.credits) : "-",
            file,
          ]),
        ),
      );
    },
  },
  {
    words: ["in-doubt", "settle"],
    args: [],
    options: [],
    usage: "in-doubt settle",
    summary:
      "Settle the calls in DATA_DIR/in-doubt now, those set aside included (PostgreSQL): undo those that were saved; prints each outcome.",
    async run(ctx) {
      const { databaseUrl, dataDir } = ctx.config;
      if (!databaseUrl)
        throw new CliError("calls in doubt are kept only with DATABASE_URL (PostgreSQL); none to settle");
      const dir = inDoubtDir(dataDir);
      const retried = await retryUnresolved(dir);
      const reports: LostCallReport[] = [];
      // A store that takes the journal (it has somewhere to report to); closing it settles what the
      // database can answer and leaves the rest on disk ("kept"). A server settling the same files
      // meanwhile is harmless: the undo keys on the ledger row, which only one of them finds.
      const store = await openStore({ databaseUrl, dataDir, onLostCall: (report) => reports.push(report) });
      await store.close();
      if (ctx.json) {
        ctx.out.line(json({ retried_unresolved: retried, outcomes: reports }));
        return;
      }
      if (reports.length === 0) {
        ctx.out.line(`No calls in doubt in ${dir}.`);
        return;
      }
      ctx.out.line(
        table(
          ["LEDGER ID", "REQUEST ID", "ACCOUNT", "CREDITS", "OUTCOME", "REASON"],
          reports.map((r) => [
            r.ledgerId,
            r.requestId,
            r.accountId,
            String(r.credits),
            r.outcome,
            r.reason ?? "",
          ]),
        ),
      );
    },
  },
];

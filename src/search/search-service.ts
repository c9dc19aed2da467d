/**
 * Execute and follow-up: the spine of a search, one service for REST and MCP.
 *
 * execute: capability → enabled → available → validate → available for this query → reserve →
 * search under the deadline → session + records + charge committed together → ExecuteResponse.
 * follow-up: `more` (paging.ts), `update` (update.ts) and record actions (record-actions.ts), each
 * serialized per session inside the instance and retried when another instance committed first.
 * Each step is a file of its own (steps.ts lists them), the answers are envelope.ts's. See
 * docs/architecture.md, "The request flow" and "Session paging".
 */
import { type AccountService, balanceOf, type Caller } from "../accounts/accounts.ts";
import type { JsonObject } from "../capabilities/types.ts";
import { actionNames } from "../capabilities/types.ts";
import { type CallOrigin, invalidRequest } from "../errors.ts";
import type { IdGenerator } from "../ids.ts";
import { SessionChanged } from "../store/types.ts";
import { didYouMean } from "../suggest.ts";
import type { DryRunResponse, ExecuteResponse, RecordFollowUpResponse } from "../wire.ts";
import { billedCall } from "./billed-call.ts";
import { executeResponse } from "./envelope.ts";
import { moreFromSource, moreLocal } from "./paging.ts";
import { validateFollowUp, validateQuery } from "./query-validation.ts";
import { recordFollowUp } from "./record-actions.ts";
import { freshSet, searchActions, stateOf } from "./session-state.ts";
import { type SearchDeps, type SearchSteps, searchSteps } from "./steps.ts";
import { update } from "./update.ts";

export { assertRoom } from "./record-rows.ts";
export { FOLLOW_UP_URL } from "./envelope.ts";

export { searchActions } from "./session-state.ts";

export class SearchService {
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly steps: SearchSteps;
  private readonly accounts: AccountService;
  private readonly ids: IdGenerator;

  constructor(deps: SearchDeps & { accounts: AccountService }) {
    this.steps = searchSteps(deps);
    this.accounts = deps.accounts;
    this.ids = deps.ids;
  }

  async execute(caller: Caller, capabilityId: string, body: unknown, origin: CallOrigin): Promise<ExecuteResponse> {
    const { availability, runner, rows, sessions, billing } = this.steps;
    const cap = availability.capability(capabilityId);
    availability.assertUsable(caller, cap);
    const query = validateQuery(cap, body);
    availability.assertQueryAvailable(cap, query);
    const searchId = this.ids.searchId();
    const call = { cap, operation: "execute", maxCredits: cap.maxCredits(query), origin, needsCredit: true };
    const billed = await billedCall(billing, caller, call, async () => {
      const page = await runner.search(cap, query, null, origin);
      const records = rows.fromPage(cap, searchId, caller.account.id, page, 0);
      const { state, visible } = freshSet(cap, query, page, records, 0);
      const session = sessions.created(cap, searchId, caller, query, state);
      return { result: { state, visible }, cost: page, persist: { newSession: { session, records } } };
    });
    return executeResponse(cap, searchId, query, billed.result.state, billed.result.visible, billed.charged, billed.account);
  }

  /**
   * What an execute of `body` would reserve, without running it (REST: `Quarry-Dry-Run: 1`; MCP:
   * inspect with `params`): the same checks as execute (enabled, available, valid, this query's
   * variant available), then the worst-case credits and whether they fit the balance now. No
   * provider is called and nothing is charged or held.
   */
  async dryRun(caller: Caller, capabilityId: string, body: unknown): Promise<DryRunResponse> {
    const { availability } = this.steps;
    const cap = availability.capability(capabilityId);
    availability.assertUsable(caller, cap);
    const query = validateQuery(cap, body);
    availability.assertQueryAvailable(cap, query);
    const credits = cap.maxCredits(query);
    const account = await this.accounts.ensureCurrentPeriod(caller.account);
    const free = Math.max(0, account.creditsCap - account.creditsUsed - account.creditsReserved);
    // A key with its own limit: the reservation must fit under it too (its holds are not counted here).
    const keyBudget = credits === 0 ? null : await this.accounts.keyBudget({ ...caller, account });
    const fitsKey = keyBudget === null || credits <= keyBudget.limit - keyBudget.used;
    return {
      dry_run: true,
      capability: cap.id,
      reserved_credits: credits,
      typical_credits: cap.typicalCredits,
      cost_basis: cap.costBasis,
      fits: (credits === 0 ? account.creditsUsed < account.creditsCap : credits <= free) && fitsKey,
      balance: balanceOf(account),
      ...(keyBudget === null ? {} : { key_budget: keyBudget }),
      notes: [
        "Nothing was run, held or charged. reserved_credits is what an execute of this body would hold: the most it can cost. " +
          "It is charged what the provider's answer costs, often less (a cached identical request costs nothing).",
      ],
    };
  }

  /** Serialize follow-ups on one session inside this instance (paging state is read-modify-write). */
  private async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(fn);
    this.locks.set(key, run);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === run) this.locks.delete(key);
    }
  }

  async followUp(caller: Caller, body: unknown, origin: CallOrigin): Promise<ExecuteResponse | RecordFollowUpResponse> {
    validateFollowUp(body);
    const hasSearch = body.search_id !== undefined;
    const action = body.action as string;
    const params = body.params as JsonObject | undefined;
    // Queued per account and id: another account's call on the same id (answered 404) must not wait
    // behind the owner's, which would tell it the id exists and is in use.
    const lockKey = (id: string) => `${caller.account.id} ${id}`;
    if (hasSearch) {
      const id = body.search_id as string;
      return this.withLock(lockKey(id), () => againIfChanged(() => this.searchFollowUp(caller, id, action, params, origin)));
    }
    const id = body.record_id as string;
    return this.withLock(lockKey(id), () => againIfChanged(() => recordFollowUp(this.steps, caller, id, action, hasKeys(params), origin)));
  }

  private async searchFollowUp(
    caller: Caller,
    searchId: string,
    action: string,
    params: JsonObject | undefined,
    origin: CallOrigin,
  ): Promise<ExecuteResponse> {
    const { steps } = this;
    const session = await steps.sessions.live(caller, searchId);
    const cap = steps.availability.capability(session.capability);
    steps.availability.assertUsable(caller, cap);
    const state = stateOf(session);
    if (action === "more") {
      // Both problems at once, so one correction is enough.
      const violations = [];
      if (cap.paging === "single") violations.push({ path: "/action", message: `${cap.id} returns a single result; more is not offered` });
      if (hasKeys(params)) violations.push({ path: "/params", message: "more takes no params (params are for update)" });
      if (violations.length > 0) throw invalidRequest(violations);
      return cap.paging === "local"
        ? moreLocal(steps, caller, cap, session, state, origin)
        : moreFromSource(steps, caller, cap, session, state, origin);
    }
    if (action === "update") {
      if (!cap.offersUpdate) throw invalidRequest([{ path: "/action", message: `${cap.id} does not offer update` }]);
      return update(steps, caller, cap, session, state, params ?? {}, origin);
    }
    const known = searchActions(cap);
    throw invalidRequest([
      {
        path: "/action",
        message: actionNames(cap).includes(action)
          ? `${action} is a record action; send it with a record_id`
          : `unknown action "${action}" for a search${didYouMean(action, known)}; offered: ${known.join(", ") || "none"}`,
      },
    ]);
  }
}

/**
 * How often a follow-up is tried when its commit keeps losing to other calls on the same search
 * (SessionChanged): the per-search lock serializes follow-ups within this process only, and
 * instances sharing PostgreSQL meet at the commit's compare-and-set. Between tries a random pause
 * (up to 20 ms × the try) keeps two instances' queues on one search from colliding in lockstep.
 */
const FOLLOW_UP_TRIES = 5;

/**
 * Run a follow-up again, from what is stored now, when another call on the same search committed
 * first. The lost try charged nothing (its commit wrote nothing and its hold was released); a
 * provider call it made is not reused: the next try makes its own.
 */
async function againIfChanged<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof SessionChanged) || attempt >= FOLLOW_UP_TRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

/**
 * Whether a follow-up's `params` asks for something. Spec 4.5 makes `params` an optional object used
 * by `update`; an empty one (clients that always send the field) is accepted with any action, while
 * keys sent with `more` or a record action are refused, since nothing would read them.
 */
function hasKeys(params: JsonObject | undefined): boolean {
  if (params === undefined) return false;
  for (const _ in params) return true;
  return false;
}

/**
 * What the offline demo installs in a Quarry it starts (runtime.ts, and the test harness, when
 * QUARRY_DEMO=1): a screen on the upstream client that says "no recording" plainly, a watch over each
 * search call's answers (which recordings answered it, and whether one stood in for another), and
 * the notice agents are given. Production modules take these as generic hooks and never ask
 * whether they run in a demo.
 */
import type { CallWatch } from "../search/run-search.ts";
import type { AnswerScreen, PageRoute } from "../upstream/types.ts";
import { DemoRecordings } from "./demo-recordings.ts";
import { demoAnswerScreen } from "./no-recording.ts";
import { pageRouteFromEnv } from "./replay/page-route.ts";

/** Said wherever an agent is oriented (catalog instructions, MCP's server instructions) in the offline demo. */
export const DEMO_NOTE =
  "DEMO: this deployment answers from recorded provider responses (recorded demo data), not live sources; " +
  "only the example bodies shown by inspect are guaranteed to have recordings, and a filter or order the " +
  "recordings do not hold is answered from the recording of the same search, unfiltered (such an answer's " +
  "notes say which provider parameters its recording was not made with); a record action (`details`) may be " +
  "answered from the recording of another record, unmarked.";

interface DemoInstall {
  answerScreen: AnswerScreen;
  callWatch: () => CallWatch;
  notice: string;
}

const DEMO: DemoInstall = {
  answerScreen: demoAnswerScreen,
  callWatch: () => new DemoRecordings(),
  notice: DEMO_NOTE,
};

/**
 * The hooks a Quarry gets from its configuration: the demo's when `QUARRY_DEMO=1`, and the replay's
 * page route for the reader whenever `WEB_READ_REPLAY_BASE_URL` points at a replay upstream (tests
 * and the demo; never set in production); none otherwise. `answerScreen` goes to the upstream
 * client; `appDeps` to buildApp.
 */
export function demoHooks(config: { demo: boolean; env: Readonly<Record<string, string | undefined>> }): {
  answerScreen?: AnswerScreen;
  appDeps: { callWatch?: () => CallWatch; notice?: string; pageRoute?: PageRoute };
} {
  const pageRoute = pageRouteFromEnv(config.env);
  const route = pageRoute === undefined ? {} : { pageRoute };
  if (!config.demo) return { appDeps: route };
  return { answerScreen: DEMO.answerScreen, appDeps: { callWatch: DEMO.callWatch, notice: DEMO.notice, ...route } };
}

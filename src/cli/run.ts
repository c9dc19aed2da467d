/**
 * Parses the operator CLI's arguments, picks the command, opens the store of the current
 * environment for it and closes it afterwards. Returns the exit code instead of exiting, so the
 * entry point (main.ts) stays a one-liner and this stays callable in-process.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { AccountService } from "../accounts/accounts.ts";
import { systemClock } from "../clock.ts";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { ApiError } from "../errors.ts";
import { cryptoIds } from "../ids.ts";
import { embeddedDatabaseFile, openStore } from "../store/open-store.ts";
import type { Store } from "../store/types.ts";
import { LoginService } from "../people/logins.ts";
import { COMMANDS, type CommandDef, CliError, type OptionName } from "./commands.ts";
import { readSecret } from "./secret.ts";
import { type Output, processOutput } from "./output.ts";

const PROGRAM = "quarry";

const OPTION_NAMES: OptionName[] = ["name", "plan", "since", "provider", "limit"];

function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  return [
    `${PROGRAM}: operator CLI for Quarry accounts, keys, plans and credits, and the providers' live check.`,
    "Works directly on the store of this environment (DATABASE_URL if set, else DATA_DIR, default ./data);",
    "no server needs to be running. `providers check` calls the real providers (network, their keys).",
    "",
    `Usage: ${PROGRAM} <command> [options]      (from a checkout: npm run cli -- <command> [options])`,
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    "  --json      print machine-readable JSON instead of text",
    "  --strict    providers check: exit 1 when any configured provider fails, not only on drift",
    "  -h, --help  show this help (or a command's usage: quarry keys create --help)",
  ].join("\n");
}

function commandHelp(command: CommandDef): string {
  return `Usage: ${PROGRAM} ${command.usage}\n\n${command.summary}`;
}

/** The command whose words start the positionals (longest match first, though none overlap today). */
function findCommand(positionals: string[]): CommandDef | undefined {
  return [...COMMANDS]
    .sort((a, b) => b.words.length - a.words.length)
    .find((c) => c.words.every((w, i) => positionals[i] === w));
}

/** parseArgs' own messages name the internals ("ERR_PARSE_ARGS…"); keep only the readable part. */
function parseError(error: unknown): CliError {
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(`${message.split(/\.\s/)[0]!.replace(/\.$/, "")} (see ${PROGRAM} --help)`);
}

async function execute(
  argv: string[],
  out: Output,
  env: Record<string, string | undefined>,
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw parseError(error);
  }
  const { values, positionals } = parsed;
  const command = findCommand(positionals);

  if (values.help) {
    out.line(command ? commandHelp(command) : helpText());
    return 0;
  }
  if (positionals.length === 0) {
    out.notice(helpText());
    return 1;
  }
  if (!command) {
    const group = COMMANDS.filter((c) => c.words[0] === positionals[0]);
    if (group.length > 0) {
      throw new CliError(
        `unknown command "${positionals.join(" ")}" (did you mean: ${group.map((c) => c.words.join(" ")).join(", ")}?)`,
      );
    }
    throw new CliError(`unknown command "${positionals[0]}" (see ${PROGRAM} --help)`);
  }
  const args = positionals.slice(command.words.length);
  if (args.length !== command.args.length) {
    throw new CliError(
      `expected ${command.args.length ? command.args.join(" ") : "no arguments"}; usage: ${PROGRAM} ${command.usage}`,
    );
  }
  const options: Partial<Record<OptionName, string>> = {};
  for (const name of OPTION_NAMES) {
    const value = values[name];
    if (value === undefined) continue;
    if (!command.options.includes(name)) {
      throw new CliError(
        `--${name} does not apply to "${command.words.join(" ")}"; usage: ${PROGRAM} ${command.usage}`,
      );
    }
    options[name] = value;
  }

  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    throw new CliError(`configuration: ${(error as Error).message}`);
  }
  if (values.strict && command.withoutStore === undefined) throw new CliError(`--strict does not apply to "${command.words.join(" ")}"`);
  if (command.withoutStore !== undefined) return command.withoutStore({ config, out, json: values.json === true, strict: values.strict === true }, options);
  const databaseFile = embeddedDatabaseFile(config.dataDir);
  if (!config.databaseUrl && !command.createsStore && !existsSync(databaseFile)) {
    throw new CliError(
      `no Quarry database at ${databaseFile}: check DATA_DIR (or DATABASE_URL); \`accounts create\` makes a new one`,
    );
  }
  const store: Store = await openStore({
    dataDir: config.dataDir,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
  });
  try {
    await command.run(
      {
        config,
        store,
        accounts: new AccountService(store, config, systemClock, cryptoIds),
        logins: new LoginService(store, systemClock, cryptoIds),
        clock: systemClock,
        out,
        json: values.json === true,
        readSecret,
      },
      args,
      options,
    );
  } finally {
    await store.close();
  }
  return 0;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    options: {
      name: { type: "string" },
      plan: { type: "string" },
      since: { type: "string" },
      provider: { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean" },
      strict: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
    strict: true,
  });
}

/** Run one CLI invocation; every failure becomes one line on stderr and exit code 1. */
export async function runCli(
  argv: string[],
  out: Output = processOutput,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  try {
    return await execute(argv, out, env);
  } catch (error) {
    const known = error instanceof CliError || error instanceof ApiError || error instanceof ConfigError;
    // Service messages are sentences ("No account "x"."); one style for every line: no final period.
    const message = (error instanceof Error ? error.message : String(error)).replace(/\.$/, "");
    // Unexpected failures (database unreachable, disk) still get one line; the stack would not help an operator.
    out.notice(`${PROGRAM}: error: ${known ? message : `unexpected failure: ${message}`}`);
    return 1;
  }
}

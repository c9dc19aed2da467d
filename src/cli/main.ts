/**
 * Entry point of the operator CLI (`npm run cli -- <command>` and the `quarry` bin): runs one
 * command against the store of the current environment and sets the exit code.
 */
import { loadDotEnv } from "../env-file.ts";
import { runCli } from "./run.ts";

// The same `.env` as `npm start` reads, so the CLI works on the same store.
loadDotEnv();

// exitCode rather than process.exit(): the store is closed by then, and pending stdout writes still flush.
process.exitCode = await runCli(process.argv.slice(2));

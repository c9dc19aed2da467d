/**
 * `.env` support for `npm start` and the CLI: `.env.example` says to copy it to `.env`, so a `.env`
 * in the working directory is read at start (Node's own `process.loadEnvFile`). Variables already
 * set in the environment win over the file's. Tests and the demo pass their environment explicitly.
 */
import { existsSync } from "node:fs";

/** Load `path` into process.env if it exists; returns whether it did. */
export function loadDotEnv(path = ".env"): boolean {
  if (!existsSync(path)) return false;
  process.loadEnvFile(path);
  return true;
}

/**
 * Reading a secret (a dashboard password) for the operator CLI: never from the command line, where
 * it would be kept in shell history and shown by `ps`. On a terminal it is prompted twice without
 * echo; otherwise it is the first line of stdin (`printf '%s\n' "$PASSWORD" | quarry logins create …`).
 */
import { createInterface } from "node:readline";
import { CliError } from "./commands.ts";

function firstLineOfStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    process.stdin.setEncoding("utf8");
    const done = () => {
      process.stdin.off("data", onData);
      process.stdin.pause();
      resolve(text.split("\n")[0]!.replace(/\r$/, ""));
    };
    const onData = (chunk: string) => {
      text += chunk;
      if (text.includes("\n") || text.length > 4096) done();
    };
    process.stdin.on("data", onData);
    process.stdin.once("end", done);
    process.stdin.once("error", reject);
  });
}

/** One line from the terminal with echo off (what is typed is not shown). */
function promptHidden(prompt: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    process.stderr.write(prompt);
    // readline echoes through this method; muted, nothing typed reaches the screen.
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
    rl.question("", (answer) => {
      rl.close();
      process.stderr.write("\n");
      resolve(answer);
    });
  });
}

export async function readSecret(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) {
    const line = await firstLineOfStdin();
    if (line === "") throw new CliError("no password on stdin (give it as the first line, or run on a terminal to be prompted)");
    return line;
  }
  const first = await promptHidden(prompt);
  const again = await promptHidden("Again: ");
  if (first !== again) throw new CliError("the two passwords differ; nothing was changed");
  return first;
}

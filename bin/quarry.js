#!/usr/bin/env node
// The `quarry` command: the operator CLI (accounts, keys, plans, balance). Runs the TypeScript source through tsx.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");

#!/usr/bin/env node
// Entry point of the `regolith` command (built to dist/cli/main.js, the package's bin).
import { run } from './program.js';

const code = await run(process.argv);
// Let pending output drain before exiting with the command's status.
process.exitCode = code;

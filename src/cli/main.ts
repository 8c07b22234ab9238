#!/usr/bin/env node
// Entry point of the `regolith` command (built to dist/cli/main.js, the package's bin).
import { run } from './program.js';

// A reader that stops early (`regolith capabilities | head`) closes the pipe: end quietly,
// as a Go binary killed by SIGPIPE does, instead of crashing with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode === undefined ? 0 : Number(process.exitCode));
    throw e;
  });
}

const code = await run(process.argv);
// Let pending output drain before exiting with the command's status.
process.exitCode = code;

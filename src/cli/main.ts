#!/usr/bin/env node
// The `regolith` command. Subcommands are added by the CLI issue.
console.error('regolith: no subcommands yet');
process.exit(2);

// `regolith run`'s listening addresses, checked before anything starts so that a mistyped
// one ends the command with Go's net error text (as `opa run` prints it) instead of Node's
// range error from deep inside listen(); and the `--port` flag people reach for, answered
// with the flag OPA has for it.

import { Option } from 'commander';
import type { Flag } from './command.js';
import { CLIError } from './io.js';

/** Throws OPA's message for an address whose port is not a number from 0 to 65535. */
export function checkListenAddr(addr: string): void {
  if (/^unix:/.test(addr)) return;
  const s = addr.replace(/^https?:\/\//, '');
  const i = s.lastIndexOf(':');
  // A bare number is taken as a port on localhost (the server's parseAddr); other bare
  // text has no port at all, which Go's net.Listen says so.
  if (i < 0 && !/^\d+$/.test(s)) throw new CLIError(`listen tcp: address ${s}: missing port in address`);
  const port = s.slice(i + 1);
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw new CLIError(`listen tcp: address ${port}: invalid port`);
}

/** A hidden `--port`: OPA has none, so say which flag sets the port. */
export function portHint(): Flag {
  return {
    apply: (cmd) => {
      cmd.addOption(new Option('--port [port]').hideHelp());
      cmd.on('option:port', (value: unknown) => {
        const port = typeof value === 'string' ? value : '8181';
        throw new CLIError(`unknown flag: --port (the port is part of --addr: --addr localhost:${port}, or --addr :${port} for every interface)`);
      });
    },
  };
}

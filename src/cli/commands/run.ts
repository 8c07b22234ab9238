// `regolith run`: with --server, the policy decision server over the given policy and data
// files or bundles (see run-server.ts). The interactive REPL of `opa run` is not provided.

import { CLIError } from '../io.js';
import { LOG_FORMATS, LOG_LEVELS } from '../run-logger.js';
import { runServer } from '../run-server.js';
import { verificationConfig, type VerificationFlags } from '../verification-flags.js';

interface RunFlags extends VerificationFlags {
  skipVerify?: boolean;
  server?: boolean;
  addr: string[];
  configFile?: string;
  set: string[];
  setFile: string[];
  logLevel: string;
  logFormat: string;
  v0Compatible?: boolean;
  v1Compatible?: boolean;
  bundle?: boolean;
  watch?: boolean;
  ignore: string[];
  shutdownGracePeriod: string;
}

/** The `regolith run` action (its flags are declared in ../registry/run.ts). */
export const runAction = async (paths: string[], f: RunFlags) => {
  if (!f.server) {
    throw new CLIError('the interactive REPL is not supported by regolith: use `regolith run --server` for the server, or `regolith eval` for queries');
  }
  if (!LOG_LEVELS.includes(f.logLevel)) throw new CLIError(`invalid argument "${f.logLevel}" for "-l, --log-level" flag: must be one of {${LOG_LEVELS.join(', ')}}`);
  if (!LOG_FORMATS.includes(f.logFormat)) throw new CLIError(`invalid argument "${f.logFormat}" for "--log-format" flag: must be one of {${LOG_FORMATS.join(', ')}}`);
  const grace = Number(f.shutdownGracePeriod);
  if (!Number.isFinite(grace) || grace < 0) throw new CLIError(`invalid argument "${f.shutdownGracePeriod}" for "--shutdown-grace-period" flag`);
  // As OPA: --watch also reloads -b bundle directories.
  const verification = f.skipVerify ? undefined : verificationConfig(f);
  if (verification && !f.bundle) throw new CLIError('enable bundle mode (ie. --bundle) to verify bundle files or directories');
  process.exitCode = await runServer({
    paths,
    bundleMode: !!f.bundle,
    addrs: f.addr.length ? f.addr : ['localhost:8181'],
    configFile: f.configFile,
    set: f.set,
    setFile: f.setFile,
    logLevel: f.logLevel,
    logFormat: f.logFormat,
    regoVersion: f.v0Compatible ? 'v0' : 'v1',
    watch: !!f.watch,
    ignore: f.ignore,
    shutdownGraceMs: grace * 1000,
    verification,
  });
};

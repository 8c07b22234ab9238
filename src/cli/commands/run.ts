// `regolith run`: with --server, the policy decision server over the given policy and data
// files or bundles (see run-server.ts). The interactive REPL of `opa run` is not provided.

import type { Command } from 'commander';
import { CLIError, examples } from '../io.js';
import { collectList } from '../options.js';
import { LOG_FORMATS, LOG_LEVELS } from '../run-logger.js';
import { runServer } from '../run-server.js';
import { addVerificationOptions, verificationConfig, type VerificationFlags } from '../verification-flags.js';

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

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerRun(program: Command): Command {
  const cmd = program
    .command('run')
    .description('Start the policy decision server (--server)')
    .argument('[paths...]', 'policy and data files or directories (bundle directories or archives with -b)')
    .option('-s, --server', 'start the runtime in server mode')
    .option('-a, --addr <address>', 'set listening address of the server (e.g., [ip]:<port>); repeatable', collectList, [])
    .option('-c, --config-file <file>', 'set path of configuration file')
    .option('--set <key=value>', 'override config values on the command line (use commas to specify multiple values)', collect, [])
    .option('--set-file <key=path>', 'override config values with files on the command line', collect, [])
    .option('-l, --log-level <level>', `set log level (${LOG_LEVELS.join(', ')})`, 'info')
    .option('--log-format <format>', `set log format (${LOG_FORMATS.join(', ')})`, 'json')
    .option('-b, --bundle', 'load paths as bundle files or root directories')
    .option('-w, --watch', 'watch command line files for changes')
    .option('--ignore <pattern>', 'set file and directory names to ignore during loading', collectList, [])
    .option('--shutdown-grace-period <seconds>', 'set the time (in seconds) that the server will wait to gracefully shut down', '10')
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release')
    .option('--v1-compatible', 'opt-in to OPA features and behaviors enabled by default in OPA v1.0 (the default)')
    .option('--skip-verify', 'disables bundle signature verification');
  return addVerificationOptions(cmd)
    .addHelpText(
      'after',
      examples([
        'regolith run --server examples/sample',
        'regolith run --server --addr 127.0.0.1:8282 policy.rego data.json',
        'regolith run -s -b bundle.tar.gz --log-format text',
        'regolith run -s -c config.yaml --set default_decision=/httpapi/authz/allow',
        'regolith run -s --watch policies/',
        'regolith run -s -b bundle.tar.gz --verification-key public.pem --signing-alg RS256',
      ]),
    )
    .action(async (paths: string[], f: RunFlags) => {
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
    });
}

// `regolith run`: with --server, the policy decision server over the given policy and data
// files or bundles (see src/runtime/server.ts); without it, OPA's interactive shell over
// them (./repl/, loaded only then).

import { CLIError } from '../io.js';
import { LOG_FORMATS, LOG_LEVELS } from '../options.js';
import { runServer } from '../../runtime/server.js';
import { verification, verificationConfig } from '../verification-flags.js';
import { command, opt, type OptionsOf } from '../command.js';
import { builtins, bundleMode, ignore, logTimestampFormat, refused, v0Compatible, v1Compatible } from '../flags.js';
import { collect, collectList } from '../options.js';
import { checkListenAddr, portHint } from '../listen-addr.js';

export const runCommand = command({
  name: 'run',
  description: 'Start the interactive shell (REPL), or the policy decision server with --server',
  args: [['[paths...]', 'policy and data files or directories (bundle directories or archives with -b)']],
  flags: [
    opt('-s, --server', 'start the runtime in server mode'),
    opt('-f, --format <format>', 'set shell output format, i.e, pretty, json', 'pretty'),
    opt('-H, --history <path>', 'set path of history file (default ~/.regolith_history)'),
    opt('-a, --addr <address>', 'set listening address of the server (e.g., [ip]:<port>); repeatable', collectList, [] as string[]),
    opt('-c, --config-file <file>', 'set path of configuration file'),
    opt('--set <key=value>', 'override config values on the command line (use commas to specify multiple values)', collect, [] as string[]),
    opt('--set-file <key=path>', 'override config values with files on the command line', collect, [] as string[]),
    opt('-l, --log-level <level>', `set log level (${LOG_LEVELS.join(', ')})`, 'info'),
    opt('--log-format <format>', `set log format (${LOG_FORMATS.join(', ')})`, 'json'),
    bundleMode(),
    opt('-w, --watch', 'watch command line files for changes'),
    ignore(),
    opt('--shutdown-grace-period <seconds>', 'set the time (in seconds) that the server will wait to gracefully shut down', '10'),
    opt('--shutdown-wait-period <seconds>', 'set the time (in seconds) that the server will wait before initiating shutdown', '0'),
    opt('--workers <n>', 'serve the address from n worker processes (auto: one per core); bundles, plugins and writes stay in one primary process (server.workers in the configuration)'),
    v0Compatible(),
    v1Compatible(),
    opt('--skip-verify', 'disables bundle signature verification'),
    opt('--diagnostic-addr <address>', 'set read-only diagnostic listening address of the server for /health and /metrics (outside authorization); repeatable', collectList, [] as string[]),
    opt('--unix-socket-perm <mode>', 'specify the permissions for the Unix domain socket if used to listen for incoming connections', '755'),
    opt('--authentication <mode>', 'set authentication scheme (off, token, tls)', 'off'),
    opt('--authorization <mode>', 'set authorization scheme (off, basic)', 'off'),
    opt('--tls-cert-file <path>', 'set path of TLS certificate file'),
    opt('--tls-private-key-file <path>', 'set path of TLS private key file'),
    opt('--tls-ca-cert-file <path>', 'set path of TLS CA cert file (clients must present a certificate it signed)'),
    opt('--min-tls-version <version>', 'set minimum TLS version to be used by the server (1.0, 1.1, 1.2, 1.3)', '1.2'),
    opt('--tls-cipher-suites <names>', 'set list of cipher suites (IANA names), comma-separated', collectList, [] as string[]),
    opt('--tls-cert-refresh-period <duration>', 'set certificate refresh period (e.g. 30s, 5m; 0 reloads only on file change)', '0s'),
    verification(),
    builtins(),
    portHint(),
    logTimestampFormat(),
    // opa's flags for what Regolith does not have: accepted where nothing needs doing, else one clear error.
    opt('--disable-telemetry', 'disables anonymous information reporting (Regolith reports nothing: no effect)'),
    opt('--skip-version-check', 'disables anonymous version reporting (Regolith reports nothing: no effect)'),
    opt('-m, --max-errors <n>', 'set the number of errors to allow before compilation fails early (Regolith reports every error: no effect)'),
    opt('--optimize-store-for-read-speed', "optimize default in-memory store for read speed (Regolith's store has one layout: no effect)"),
    opt('--skip-known-schema-check', 'disables type checking on known input schemas (Regolith has no such check to skip: no effect)'),
    refused('--ready-timeout <seconds>', 'wait for configured plugins before starting server (not supported)', () =>
      'the --ready-timeout flag is not supported: the server starts at once; GET /health?bundles&plugins answers 200 once bundles and plugins are ready'),
    refused('--h2c', 'enable H2C for HTTP listeners (not supported)', () => 'the --h2c flag is not supported: Regolith serves HTTP/1.1 on plain listeners'),
    refused('--pprof', "enables pprof endpoints (not supported)", () =>
      "the --pprof flag is not supported: Go's pprof endpoints do not exist in Node.js; profile the server with node --cpu-prof or --inspect"),
    refused('-O, --optimize <level>', 'set optimization level (only 0)', (v) =>
      v === '0' ? undefined : 'optimization levels above 0 are not supported: they rewrite bundles for the wasm and plan targets, which Regolith does not have'),
  ],
  examples: [
    'regolith run examples/sample                  # the interactive shell',
    'regolith run repl.input:input.json policy.rego # input for the shell\'s queries',
    'regolith run --server examples/sample',
    'regolith run --server --addr 127.0.0.1:8282 policy.rego data.json',
    'regolith run -s -b bundle.tar.gz --log-format text',
    'regolith run -s -c config.yaml --set default_decision=/httpapi/authz/allow',
    'regolith run -s --watch policies/',
    'regolith run -s -b bundle.tar.gz --verification-key public.pem --signing-alg RS256',
    'regolith run -s --authentication=token --authorization=basic --tls-cert-file cert.pem --tls-private-key-file key.pem authz.rego',
  ],
});

type RunFlags = OptionsOf<typeof runCommand>;

function durationMs(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new CLIError(`invalid argument "${text}" for "${flag}" flag: time: invalid duration "${text}"`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's']!;
  return Number(m[1]) * unit;
}

async function runAction(paths: string[], f: RunFlags): Promise<void> {
  if (!f.server) {
    if (f.format !== 'pretty' && f.format !== 'json') throw new CLIError(`invalid argument "${f.format}" for "-f, --format" flag: must be one of {pretty, json}`);
    const shellVerification = f.skipVerify ? undefined : verificationConfig(f);
    if (shellVerification && !f.bundle) throw new CLIError('enable bundle mode (ie. --bundle) to verify bundle files or directories');
    const { runRepl } = await import('./repl/index.js');
    await runRepl({ paths, bundleMode: !!f.bundle, ignore: f.ignore, regoVersion: f.v0Compatible ? 'v0' : 'v1', verification: shellVerification, format: f.format, history: f.history, builtins: f.builtins });
    return;
  }
  for (const a of [...f.addr, ...f.diagnosticAddr]) checkListenAddr(a);
  if (!LOG_LEVELS.includes(f.logLevel)) throw new CLIError(`invalid argument "${f.logLevel}" for "-l, --log-level" flag: must be one of {${LOG_LEVELS.join(', ')}}`);
  if (!LOG_FORMATS.includes(f.logFormat)) throw new CLIError(`invalid argument "${f.logFormat}" for "--log-format" flag: must be one of {${LOG_FORMATS.join(', ')}}`);
  const grace = Number(f.shutdownGracePeriod);
  if (!Number.isFinite(grace) || grace < 0) throw new CLIError(`invalid argument "${f.shutdownGracePeriod}" for "--shutdown-grace-period" flag`);
  const wait = Number(f.shutdownWaitPeriod);
  if (!Number.isFinite(wait) || wait < 0) throw new CLIError(`invalid argument "${f.shutdownWaitPeriod}" for "--shutdown-wait-period" flag`);
  // As OPA: --watch also reloads -b bundle directories.
  if (!['off', 'token', 'tls'].includes(f.authentication)) throw new CLIError(`invalid argument "${f.authentication}" for "--authentication" flag: must be one of {off, token, tls}`);
  if (!['off', 'basic'].includes(f.authorization)) throw new CLIError(`invalid argument "${f.authorization}" for "--authorization" flag: must be one of {off, basic}`);
  if (!f.tlsCertFile !== !f.tlsPrivateKeyFile) throw new CLIError('--tls-cert-file and --tls-private-key-file must be given together');
  if (f.tlsCaCertFile && !f.tlsCertFile) throw new CLIError('--tls-ca-cert-file needs --tls-cert-file and --tls-private-key-file');
  if (f.authentication === 'tls' && !f.tlsCaCertFile) throw new CLIError('--authentication=tls needs --tls-ca-cert-file to verify client certificates');
  const tls = f.tlsCertFile
    ? {
        certFile: f.tlsCertFile,
        keyFile: f.tlsPrivateKeyFile!,
        caFile: f.tlsCaCertFile,
        minVersion: f.minTlsVersion,
        cipherSuites: f.tlsCipherSuites,
        refreshMs: durationMs(f.tlsCertRefreshPeriod, '--tls-cert-refresh-period'),
      }
    : undefined;
  if (!/^[0-7]{3,4}$/.test(f.unixSocketPerm)) throw new CLIError(`invalid argument "${f.unixSocketPerm}" for "--unix-socket-perm" flag: an octal mode such as 755`);
  let workers: number | 'auto' | undefined;
  if (f.workers !== undefined) {
    if (f.workers === 'auto') workers = 'auto';
    else if (/^\d+$/.test(f.workers) && Number(f.workers) >= 1 && Number(f.workers) <= 256) workers = Number(f.workers);
    else throw new CLIError(`invalid argument "${f.workers}" for "--workers" flag: a number from 1 to 256, or auto (one per core)`);
  }
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
    shutdownWaitMs: wait * 1000,
    verification,
    tls,
    diagnosticAddrs: f.diagnosticAddr,
    unixSocketPerm: f.unixSocketPerm,
    access: { authentication: f.authentication as 'off' | 'token' | 'tls', authorization: f.authorization as 'off' | 'basic' },
    workers,
    builtins: f.builtins,
  });
}

export default runCommand.action(runAction);

// `regolith run`: its arguments, flags and help; the action is in ../commands/run.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { LOG_FORMATS, LOG_LEVELS, collect, collectList } from '../options.js';
import { addVerificationOptions } from '../verification-flags.js';
import { lazyAction } from './lazy.js';

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
    .option('--workers <n>', 'serve the address from n worker processes (auto: one per core); bundles, plugins and writes stay in one primary process (server.workers in the configuration)')
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release')
    .option('--v1-compatible', 'opt-in to OPA features and behaviors enabled by default in OPA v1.0 (the default)')
    .option('--skip-verify', 'disables bundle signature verification')
    .option('--diagnostic-addr <address>', 'set read-only diagnostic listening address of the server for /health and /metrics (outside authorization); repeatable', collectList, [])
    .option('--unix-socket-perm <mode>', 'specify the permissions for the Unix domain socket if used to listen for incoming connections', '755')
    .option('--authentication <mode>', 'set authentication scheme (off, token, tls)', 'off')
    .option('--authorization <mode>', 'set authorization scheme (off, basic)', 'off')
    .option('--tls-cert-file <path>', 'set path of TLS certificate file')
    .option('--tls-private-key-file <path>', 'set path of TLS private key file')
    .option('--tls-ca-cert-file <path>', 'set path of TLS CA cert file (clients must present a certificate it signed)')
    .option('--min-tls-version <version>', 'set minimum TLS version to be used by the server (1.0, 1.1, 1.2, 1.3)', '1.2')
    .option('--tls-cipher-suites <names>', 'set list of cipher suites (IANA names), comma-separated', collectList, [])
    .option('--tls-cert-refresh-period <duration>', 'set certificate refresh period (e.g. 30s, 5m; 0 reloads only on file change)', '0s');
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
        'regolith run -s --authentication=token --authorization=basic --tls-cert-file cert.pem --tls-private-key-file key.pem authz.rego',
      ]),
    )
    .action(lazyAction(() => import('../commands/run.js').then((m) => m.runAction)));
}

// `regolith run`: with --server, the policy decision server over the given policy and data
// files or bundles (see src/runtime/server.ts). The interactive REPL of `opa run` is not provided.

import { CLIError } from '../io.js';
import { LOG_FORMATS, LOG_LEVELS } from '../options.js';
import { runServer } from '../../runtime/server.js';
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
  authentication: string;
  authorization: string;
  diagnosticAddr: string[];
  unixSocketPerm: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tlsCaCertFile?: string;
  minTlsVersion: string;
  tlsCipherSuites: string[];
  tlsCertRefreshPeriod: string;
  workers?: string;
}

function durationMs(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) throw new CLIError(`invalid argument "${text}" for "${flag}" flag: time: invalid duration "${text}"`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 's']!;
  return Number(m[1]) * unit;
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
    verification,
    tls,
    diagnosticAddrs: f.diagnosticAddr,
    unixSocketPerm: f.unixSocketPerm,
    access: { authentication: f.authentication as 'off' | 'token' | 'tls', authorization: f.authorization as 'off' | 'basic' },
    workers,
  });
};

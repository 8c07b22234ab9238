// `regolith build`: its arguments, flags and help; the action is in ../commands/build.ts and
// is loaded only when the subcommand runs.

import type { Command } from 'commander';
import { examples } from '../io.js';
import { collectList } from '../options.js';
import { addVerificationOptions } from '../verification-flags.js';
import { lazyAction } from './lazy.js';

export function registerBuild(program: Command): Command {
  const cmd = program
    .command('build')
    .description('Build a bundle')
    .argument('<path...>', 'policy and data files or directories (bundle directories or archives with -b)')
    .option('-o, --output <file>', 'set the output filename', 'bundle.tar.gz')
    .option('-r, --revision <revision>', 'set output bundle revision')
    .option('-b, --bundle', 'load paths as bundle files or root directories')
    .option('--ignore <pattern>', 'set file and directory names to ignore during loading (e.g., \'.*\' excludes hidden files)', collectList, [])
    .option('-t, --target <target>', 'set the output bundle target type (only "rego")', 'rego')
    .option('--signing-key <key>', 'set the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)')
    .option('--signing-alg <alg>', 'name of the signing algorithm', 'RS256')
    .option('--claims-file <file>', 'set path of JSON file containing optional claims (see OPA\'s signature format)')
    .option('--push <ref>', 'also push the bundle to an OCI registry as host[:port]/repository[:tag], in the layout OPA pulls (services.<name>.type: oci)')
    .option('--plain-http', 'push over plain HTTP (a registry on loopback)')
    .option('--registry-user <user>', 'push with Basic credentials; the password comes from REGOLITH_REGISTRY_PASSWORD')
    .option('--registry-token-file <file>', 'push with the Bearer token in this file (or set REGOLITH_REGISTRY_TOKEN)')
    .option('--v0-compatible', 'opt-in to OPA features and behaviors prior to the OPA v1.0 release')
    .option('--v1-compatible', 'opt-in to OPA features and behaviors enabled by default in OPA v1.0 (the default)')
    .addHelpText(
      'after',
      examples([
        'regolith build policy.rego data.json              # files → bundle.tar.gz',
        'regolith build -b policies/ -o authz.tar.gz -r v42  # a bundle directory, with a revision',
        'regolith build -b policies/ --signing-key private.pem --signing-alg RS256',
        'regolith build -b policies/ --signing-key secret --signing-alg HS256 --claims-file claims.json',
        'regolith build --ignore "*_test.rego" --ignore ".*" src/',
        'regolith build -b policies/ -r v43 --push ghcr.io/acme/authz:v43   # token in REGOLITH_REGISTRY_TOKEN',
      ]),
    )
    .action(lazyAction(() => import('../commands/build.js').then((m) => m.buildAction)));
  return addVerificationOptions(cmd, false);
}

// semver.is_valid and semver.compare, with OPA's own SemVer rules (its vendored
// coreos/go-semver): MAJOR.MINOR.PATCH as Go int64s, optional -prerelease and +metadata
// made of [0-9A-Za-z-] identifiers separated by dots, no leading "v".

import { toRegoString, type Value } from '../../value/index.js';
import { builtinError, operandError } from './errors.js';
import { registerBuiltins } from './registry.js';

interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string;
}

const IDENT_RE = /^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/;
// strconv.ParseInt(s, 10, 64): optional sign, decimal digits, within int64.
const INT_RE = /^[+-]?\d+$/;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

function parseInt64(s: string): bigint | undefined {
  if (!INT_RE.test(s)) return undefined;
  const n = BigInt(s);
  return n > INT64_MAX || n < INT64_MIN ? undefined : n;
}

export function parseSemver(s: string): Version | undefined {
  let rest = s;
  let meta = '';
  const plus = rest.indexOf('+');
  if (plus >= 0) {
    meta = rest.slice(plus + 1);
    rest = rest.slice(0, plus);
  }
  let pre = '';
  const dash = rest.indexOf('-');
  if (dash >= 0) {
    pre = rest.slice(dash + 1);
    rest = rest.slice(0, dash);
  }
  const parts = rest.split('.');
  // SplitN(.., 3): a fourth dot stays in the patch part and fails ParseInt there.
  if (parts.length < 3) return undefined;
  if (pre !== '' && !IDENT_RE.test(pre)) return undefined;
  if (meta !== '' && !IDENT_RE.test(meta)) return undefined;
  const major = parseInt64(parts[0]!);
  const minor = parseInt64(parts[1]!);
  const patch = parseInt64(parts.slice(2).join('.'));
  if (major === undefined || minor === undefined || patch === undefined) return undefined;
  return { major, minor, patch, pre };
}

/** strconv.Atoi: an int64 with optional sign. */
function atoi(s: string): bigint | undefined {
  return parseInt64(s);
}

function comparePre(a: string[], b: string[], i: number): number {
  for (;; i++) {
    if (i >= a.length) return i >= b.length ? 0 : -1;
    if (i >= b.length) return 1;
    const x = a[i]!;
    const y = b[i]!;
    const xi = atoi(x);
    const yi = atoi(y);
    // Numeric identifiers sort before alphanumeric ones.
    if (xi !== undefined && yi === undefined) return -1;
    if (xi === undefined && yi !== undefined) return 1;
    if (xi !== undefined && yi !== undefined) {
      if (xi > yi) return 1;
      if (xi < yi) return -1;
    }
    // Then byte-wise string order (also for numerically equal "01" and "1").
    if (x > y) return 1;
    if (x < y) return -1;
  }
}

export function compareSemver(a: Version, b: Version): number {
  if (a.major !== b.major) return a.major > b.major ? 1 : -1;
  if (a.minor !== b.minor) return a.minor > b.minor ? 1 : -1;
  if (a.patch !== b.patch) return a.patch > b.patch ? 1 : -1;
  if (a.pre === '' && b.pre !== '') return 1;
  if (b.pre === '' && a.pre !== '') return -1;
  return comparePre(a.pre.split('.'), b.pre.split('.'), 0);
}

function compare(args: Value[]): Value {
  const a = args[0]!;
  const b = args[1]!;
  if (typeof a !== 'string') throw operandError(1, 'string', a);
  if (typeof b !== 'string') throw operandError(2, 'string', b);
  const va = parseSemver(a);
  if (!va) throw builtinError(`operand 1: string ${toRegoString(a)} is not a valid SemVer`);
  const vb = parseSemver(b);
  if (!vb) throw builtinError(`operand 2: string ${toRegoString(b)} is not a valid SemVer`);
  return compareSemver(va, vb);
}

registerBuiltins([
  {
    name: 'semver.is_valid',
    fn: (args) => typeof args[0] === 'string' && parseSemver(args[0]) !== undefined,
  },
  { name: 'semver.compare', fn: compare },
]);

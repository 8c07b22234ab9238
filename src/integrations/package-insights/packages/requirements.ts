// requirements.txt: only pinned requirements (`name==version`) name one version; anything
// else cannot be checked and is an error naming its line. Extras, environment markers,
// hashes, comments and continuation lines are understood; option lines are skipped. Names
// are sent as written (the insights API takes names "including capitalization" and answers
// with the canonical one in versionKey), never normalised here.

import { PackageListError, type VersionKey } from './types.js';

export function readRequirements(text: string, file: string): VersionKey[] {
  const out: VersionKey[] = [];
  // join continuation lines, remembering where each logical line began
  const lines: { text: string; row: number }[] = [];
  let pending: { text: string; row: number } | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const cont = /\\\s*$/.test(raw);
    const piece = raw.replace(/\\\s*$/, ' ');
    pending = pending ? { text: pending.text + piece, row: pending.row } : { text: piece, row: i + 1 };
    if (!cont) {
      lines.push(pending);
      pending = undefined;
    }
  });
  if (pending) lines.push(pending);
  for (const { text: l, row } of lines) {
    const t = l.replace(/(^|\s)#.*$/, '').trim();
    if (!t || t.startsWith('-')) continue;
    const req = t.split(';')[0]!.replace(/\s--hash=\S+/g, '').trim();
    const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*===?\s*([^\s,;]+)$/.exec(req);
    if (!m) throw new PackageListError(`${file}:${row}: ${JSON.stringify(req)} is not pinned to one version (use name==version)`);
    out.push({ system: 'PYPI', name: m[1]!, version: m[3]! });
  }
  return out;
}

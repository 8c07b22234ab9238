// package-lock.json and npm-shrinkwrap.json: lockfileVersion 2 and 3 list every installed
// package under `packages` keyed by its node_modules path; version 1 nests `dependencies`.

import { PackageListError, type VersionKey } from './types.js';
import { isObj } from '../../../plugins/adapters/types.js';


export function readNpmLock(text: string, file: string): VersionKey[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new PackageListError(`${file}: not JSON: ${(e as Error).message}`);
  }
  if (!isObj(doc)) throw new PackageListError(`${file}: not a package lock (expected an object)`);
  const out: VersionKey[] = [];
  const add = (name: string, version: unknown): void => {
    // links, workspace folders and git/file dependencies have no registry version
    if (typeof version === 'string' && /^\d/.test(version)) out.push({ system: 'NPM', name, version });
  };
  if (isObj(doc['packages'])) {
    for (const [path, e] of Object.entries(doc['packages'])) {
      if (path === '' || !isObj(e) || e['link'] === true) continue;
      const i = path.lastIndexOf('node_modules/');
      if (i < 0) continue; // a workspace member of the project itself
      add(typeof e['name'] === 'string' ? e['name'] : path.slice(i + 'node_modules/'.length), e['version']);
    }
    return out;
  }
  const walk = (deps: unknown): void => {
    if (!isObj(deps)) return;
    for (const [name, e] of Object.entries(deps)) {
      if (!isObj(e)) continue;
      add(name, e['version']);
      walk(e['dependencies']);
    }
  };
  if (!isObj(doc['dependencies']) && doc['lockfileVersion'] === undefined) throw new PackageListError(`${file}: not a package lock (no packages or dependencies)`);
  walk(doc['dependencies']);
  return out;
}

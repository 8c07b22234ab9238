// The names the console shows for the server's modules: bundle-relative, never a server
// path. A bundle's module id is "<bundle name>/<path in the bundle>": the bundle name is
// dropped. Any other id (a file or a local bundle given to `regolith run`, as the path was
// given) is shown relative to the directory all such ids share, so no absolute path or
// directory above the policies leaves the server.

/** id -> shown name, unique; `bundleNames` are the names under data.system.bundles. */
export function moduleNames(ids: readonly string[], bundleNames: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const loose: string[] = [];
  // the longest bundle name first: "a/b" before "a"
  const names = [...bundleNames].sort((a, b) => b.length - a.length);
  for (const id of ids) {
    const b = names.find((n) => id.startsWith(`${n}/`));
    if (b !== undefined) out.set(id, id.slice(b.length + 1));
    else loose.push(id);
  }
  const split = (id: string) => id.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  const parts = loose.map(split);
  // the shared leading directories (never the file name itself)
  let common = parts.length ? Math.min(...parts.map((p) => p.length - 1)) : 0;
  for (let i = 0; i < common; i++) {
    if (parts.some((p) => p[i] !== parts[0]![i])) {
      common = i;
      break;
    }
  }
  loose.forEach((id, i) => out.set(id, parts[i]!.slice(common).filter((s) => s !== '..').join('/')));
  // two ids that came out the same (a bundle file and a loose file): number the later ones
  const seen = new Set<string>();
  for (const [id, name] of out) {
    let n = name;
    for (let k = 2; seen.has(n); k++) n = name.replace(/(\.rego)?$/, `~${k}$1`);
    seen.add(n);
    out.set(id, n);
  }
  return out;
}

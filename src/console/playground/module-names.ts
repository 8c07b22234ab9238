// The names the console shows for the server's modules: bundle-relative, never a server
// path. A bundle's module id is "<bundle name>/<path in the bundle>": the bundle name is
// dropped. Any other id (a file or a local bundle given to `regolith run`, as the path was
// given) is shown relative to the directory the ids of its kind (absolute, relative) share,
// so no absolute path or directory above the policies leaves the server.

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
  // Absolute paths and relative ones each drop the directories their group shares; an id
  // with no directory (a policy put through the API, "rbac") stays as it is and takes no
  // part, or it would leave the others' whole path showing. Absolute paths that share no
  // directory at all keep only their file name.
  const absolute = (id: string) => /^([\\/]|[A-Za-z]:[\\/])/.test(id);
  for (const group of [loose.filter(absolute), loose.filter((id) => !absolute(id))]) {
    const parts = group.map((id) => id.split(/[\\/]+/).filter((s) => s !== '' && s !== '.'));
    const dirs = parts.filter((p) => p.length > 1);
    const common = sharedDirectories(dirs);
    const whole = group.length > 0 && absolute(group[0]!) && common === 0;
    group.forEach((id, i) => {
      const p = parts[i]!;
      out.set(id, (p.length > 1 ? (whole ? p.slice(-1) : p.slice(common)) : p).filter((s) => s !== '..').join('/'));
    });
  }
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

/** How many leading directories (never the file name itself) every one of these paths shares. */
function sharedDirectories(parts: string[][]): number {
  const common = parts.length ? Math.min(...parts.map((p) => p.length - 1)) : 0;
  for (let i = 0; i < common; i++) {
    if (parts.some((p) => p[i] !== parts[0]![i])) return i;
  }
  return common;
}

// Rewrites a 1.2 overrides file to the 1.3.6 keys (upgrade step "Preparation 5", and the
// datastore's externalSeedHost of "Runtime installation 3"), editing the YAML document in
// place so that comments, quoting and key order survive. Values the tool cannot know
// (instanceID, the watcher's account, the seed host) are written empty with a TODO comment
// unless given. A file that needs no change is returned byte for byte.

import { isMap, isScalar, isSeq, Pair, parseDocument, Scalar, YAMLMap, type Document } from 'yaml';

export interface RewriteOptions {
  /** instanceID to add when absent. */
  instanceId?: string;
  /** watcher.serviceAccountPath to add when absent. */
  watcherServiceAccount?: string;
  /** metrics.serviceAccountPath to add when absent. */
  metricsServiceAccount?: string;
  /** connectAgent.serviceAccountPath to add when absent (default: mart.serviceAccountPath). */
  connectAgentServiceAccount?: string;
  /** cassandra.externalSeedHost to add when absent. */
  seedHost?: string;
  /** virtualhosts names to change: old name -> environment group. */
  virtualhostGroups?: Record<string, string>;
}

export interface RewriteResult {
  text: string;
  /** What was changed, one line each ("renamed gcpRegion to gcp.region"). */
  changes: string[];
  /** Keys written empty that the operator must fill in. */
  todos: string[];
}

export class OverridesError extends Error {}

/** Old key -> [new stanza, new key] (Preparation 5). */
export const RENAMES: [string, string, string][] = [
  ['gcpRegion', 'gcp', 'region'],
  ['gcpProjectID', 'gcp', 'projectID'],
  ['gcpProjectIDRuntime', 'gcp', 'gcpProjectIDRuntime'],
  ['k8sClusterName', 'k8sCluster', 'name'],
  ['k8sClusterRegion', 'k8sCluster', 'region'],
];

const TODO = ' TODO(upgrade 1.3.6):';

function keyOf(p: Pair): unknown {
  return isScalar(p.key) ? p.key.value : p.key;
}

function indexOf(map: YAMLMap, key: string): number {
  return map.items.findIndex((p) => keyOf(p) === key);
}

function mapAt(map: YAMLMap, key: string): YAMLMap | undefined {
  const v = map.get(key, true);
  return isMap(v) ? v : undefined;
}

function scalarText(map: YAMLMap | undefined, key: string): string | undefined {
  const v = map?.get(key);
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** Deletes key from map; a comment on the lines before it moves to the next key (or after the map). */
function deleteKeepingComments(map: YAMLMap, key: string): boolean {
  const i = indexOf(map, key);
  if (i < 0) return false;
  const [pair] = map.items.splice(i, 1);
  const comment = isScalar(pair!.key) ? pair!.key.commentBefore : undefined;
  if (comment) {
    const next = map.items[i]?.key;
    if (isScalar(next)) next.commentBefore = next.commentBefore ? `${comment}\n${next.commentBefore}` : comment;
    else map.comment = map.comment ? `${map.comment}\n${comment}` : comment;
  }
  return true;
}

class Rewriter {
  readonly changes: string[] = [];

  constructor(
    readonly doc: Document,
    readonly root: YAMLMap,
    readonly o: RewriteOptions,
  ) {}

  /** Adds key: value at the end of map (or at index), with a TODO comment when the value is a placeholder. */
  add(map: YAMLMap, path: string, key: string, value: string | undefined, todo: string, index?: number): void {
    const k = new Scalar(key);
    const v = new Scalar(value ?? '');
    if (value === undefined) {
      k.commentBefore = `${TODO} ${todo}`;
      this.changes.push(`added ${path} (empty: to fill in)`);
    } else {
      this.changes.push(`added ${path}: ${value}`);
    }
    const pair = new Pair(k, v);
    if (index === undefined || index >= map.items.length) map.items.push(pair);
    else map.items.splice(index, 0, pair);
  }

  /** The top-level stanza `name`, created (after `after`, or at the end) when absent. */
  stanza(name: string, after?: string): YAMLMap {
    const existing = mapAt(this.root, name);
    if (existing) return existing;
    if (this.root.has(name)) throw new OverridesError(`${name} is not a mapping`);
    const m = new YAMLMap();
    const k = new Scalar(name);
    const at = after === undefined ? -1 : indexOf(this.root, after);
    if (at >= 0) this.root.items.splice(at + 1, 0, new Pair(k, m));
    else this.root.items.push(new Pair(k, m));
    return m;
  }

  renameKeys(): void {
    for (const group of ['gcp', 'k8sCluster']) {
      const olds = RENAMES.filter(([old, g]) => g === group && this.root.has(old));
      if (!olds.length) continue;
      let target = mapAt(this.root, group);
      if (!target) {
        if (this.root.has(group)) throw new OverridesError(`${group} is not a mapping`);
        target = new YAMLMap();
        const first = indexOf(this.root, olds[0]![0]);
        const firstKey = this.root.items[first]!.key;
        const k = new Scalar(group);
        // The new stanza takes the blank line before the first old key; that key's comment
        // stays with it, unless it opens the file (then it is the file's header).
        if (isScalar(firstKey)) {
          k.spaceBefore = firstKey.spaceBefore;
          firstKey.spaceBefore = false;
          if (first === 0) {
            k.commentBefore = firstKey.commentBefore;
            firstKey.commentBefore = undefined;
          }
        }
        this.root.items.splice(first, 0, new Pair(k, target));
      }
      for (const [old, , key] of olds) {
        const i = indexOf(this.root, old);
        const pair = this.root.items[i]!;
        this.root.items.splice(i, 1);
        if (target.has(key)) {
          this.changes.push(`removed ${old} (${group}.${key} is already set)`);
          continue;
        }
        const k = new Scalar(key);
        if (isScalar(pair.key)) {
          k.commentBefore = pair.key.commentBefore;
          k.comment = pair.key.comment;
          k.spaceBefore = pair.key.spaceBefore;
        }
        target.items.push(new Pair(k, pair.value));
        this.changes.push(`renamed ${old} to ${group}.${key}`);
      }
    }
  }

  instanceId(): void {
    if (this.root.has('instanceID')) return;
    const after = ['org', 'k8sCluster', 'gcp'].map((k) => indexOf(this.root, k)).find((i) => i >= 0);
    this.add(this.root, 'instanceID', 'instanceID', this.o.instanceId, 'a unique installation identifier, at most 63 characters', after === undefined ? undefined : after + 1);
  }

  serviceAccounts(): void {
    const watcher = this.stanza('watcher', 'metrics');
    if (!watcher.has('serviceAccountPath')) {
      this.add(watcher, 'watcher.serviceAccountPath', 'serviceAccountPath', this.o.watcherServiceAccount, "the key file of the watcher's service account (runtime-agent role)");
    }
    const metrics = this.stanza('metrics', 'mart');
    if (!metrics.has('serviceAccountPath')) {
      this.add(metrics, 'metrics.serviceAccountPath', 'serviceAccountPath', this.o.metricsServiceAccount, 'the key file of the metrics service account');
    }
  }

  virtualhosts(): void {
    const vhosts = this.root.get('virtualhosts', true);
    if (!isSeq(vhosts)) return;
    vhosts.items.forEach((item, i) => {
      if (!isMap(item)) return;
      const name = item.get('name');
      const label = typeof name === 'string' ? name : String(i);
      for (const k of ['hostAliases', 'routingRules']) {
        if (deleteKeepingComments(item, k)) this.changes.push(`deleted virtualhosts[${label}].${k}`);
      }
      const group = typeof name === 'string' ? this.o.virtualhostGroups?.[name] : undefined;
      if (group !== undefined && group !== name) {
        item.set('name', group);
        this.changes.push(`renamed virtualhosts entry ${name} to environment group ${group}`);
      }
    });
  }

  mart(): void {
    const mart = mapAt(this.root, 'mart');
    if (mart) {
      for (const k of ['hostAlias', 'sslCertPath', 'sslKeyPath']) {
        if (deleteKeepingComments(mart, k)) this.changes.push(`deleted mart.${k}`);
      }
    }
    if (this.root.has('connectAgent') || mart?.has('connectAgent')) {
      const ca = mapAt(this.root, 'connectAgent') ?? (mart ? mapAt(mart, 'connectAgent') : undefined);
      if (ca && !ca.has('serviceAccountPath')) {
        this.add(ca, 'connectAgent.serviceAccountPath', 'serviceAccountPath', this.o.connectAgentServiceAccount ?? scalarText(mart, 'serviceAccountPath'), 'the key file of an account holding the connect-agent role');
      }
      return;
    }
    const ca = this.stanza('connectAgent', 'mart');
    this.add(ca, 'connectAgent.serviceAccountPath', 'serviceAccountPath', this.o.connectAgentServiceAccount ?? scalarText(mart, 'serviceAccountPath'), 'the key file of an account holding the connect-agent role (usually the MART account)');
  }

  seedHost(): void {
    if (mapAt(this.root, 'datastore')?.has('externalSeedHost')) return;
    const cassandra = this.stanza('cassandra');
    if (cassandra.has('externalSeedHost')) return;
    this.add(cassandra, 'cassandra.externalSeedHost', 'externalSeedHost', this.o.seedHost, 'the address of one existing datastore node; remove after the upgrade (Runtime installation 6)');
  }
}

export function rewriteOverrides(text: string, o: RewriteOptions = {}): RewriteResult {
  const doc = parseDocument(text);
  if (doc.errors.length) throw new OverridesError(doc.errors[0]!.message.split('\n')[0]!);
  if (doc.contents === null) doc.contents = new YAMLMap() as never;
  const root = doc.contents;
  if (!isMap(root)) throw new OverridesError('the overrides file is not a mapping');
  const r = new Rewriter(doc, root, o);
  r.renameKeys();
  r.instanceId();
  r.serviceAccounts();
  r.virtualhosts();
  r.mart();
  r.seedHost();
  const todos = pending(root);
  if (!r.changes.length) return { text, changes: [], todos };
  return { text: doc.toString({ lineWidth: 0 }), changes: r.changes, todos };
}

/** Keys that are present but empty: the operator fills them in before `init`. */
function pending(root: YAMLMap): string[] {
  const paths: [string, string][] = [
    ['instanceID', 'a unique installation identifier, at most 63 characters'],
    ['watcher.serviceAccountPath', "the key file of the watcher's service account (runtime-agent role)"],
    ['metrics.serviceAccountPath', 'the key file of the metrics service account'],
    ['connectAgent.serviceAccountPath', 'the key file of an account holding the connect-agent role'],
    ['cassandra.externalSeedHost', 'the address of one existing datastore node'],
  ];
  return paths
    .filter(([path]) => {
      const v: unknown = root.getIn(path.split('.'));
      return v === '' || v === null;
    })
    .map(([path, what]) => `${path}: ${what}`);
}

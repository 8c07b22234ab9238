// walk (a relation: every [path, value] pair of a document, pre-order), graph.reachable
// and graph.reachable_paths.

import { RObject, RSet, equal, isObject, objectGet, sortedKeys, typeName, type PlainObject, type Value } from '../../value/index.js';
import { BuiltinError, operandError } from './errors.js';
import { registerBuiltins } from './registry.js';

function walkInto(v: Value, path: Value[], out: Value[]): void {
  out.push([path.slice(), v]);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      walkInto(v[i]!, path, out);
      path.pop();
    }
  } else if (v instanceof RSet) {
    for (const m of v.values()) {
      path.push(m);
      walkInto(m, path, out);
      path.pop();
    }
  } else if (v instanceof RObject) {
    for (const [k, x] of v.entries()) {
      path.push(k);
      walkInto(x, path, out);
      path.pop();
    }
  } else if (isObject(v)) {
    const o = v as PlainObject;
    for (const k of sortedKeys(o)) {
      path.push(k);
      walkInto(o[k]!, path, out);
      path.pop();
    }
  }
}

function walk(args: Value[]): Value {
  const out: Value[] = [];
  walkInto(args[0]!, [], out);
  return out;
}

type Graph = PlainObject | RObject;

function graphOperand(v: Value): Graph {
  if (!isObject(v)) throw operandError(1, 'object', v);
  return v;
}

function initialNodes(v: Value): Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RSet) return v.values();
  // OPA passes "{array, set}" as one expected type, hence no "one of".
  throw new BuiltinError(`operand 2 must be {array, set} but got ${typeName(v)}`, 'eval_type_error');
}

/** Vertices of an edge collection; anything but an array or set has none. */
function vertices(edges: Value): Value[] {
  if (Array.isArray(edges)) return edges;
  if (edges instanceof RSet) return edges.values();
  return [];
}

function reachable(args: Value[]): Value {
  const graph = graphOperand(args[0]!);
  const queue = initialNodes(args[1]!).slice();
  const reached = new RSet();
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    if (reached.has(node)) continue; // already expanded: nothing new to find
    const edges = objectGet(graph, node);
    if (edges === undefined) continue;
    for (const n of vertices(edges)) if (!reached.has(n)) queue.push(n);
    reached.add(node);
  }
  return reached;
}

function pathsFrom(graph: Graph, root: Value, path: Value[], onPath: Value[], out: RSet): void {
  const edges = objectGet(graph, root);
  if (edges === undefined) {
    out.add(path.slice());
    return;
  }
  path.push(root);
  const next = vertices(edges);
  if (next.length === 0) {
    out.add(path.slice());
    path.pop();
    return;
  }
  onPath.push(root);
  for (const n of next) {
    if (onPath.some((x) => equal(x, n))) out.add(path.slice()); // cycle: stop here
    else pathsFrom(graph, n, path, onPath, out);
  }
  onPath.pop();
  path.pop();
}

function reachablePaths(args: Value[]): Value {
  const graph = graphOperand(args[0]!);
  const nodes = initialNodes(args[1]!);
  const out = new RSet();
  for (const node of nodes) {
    const edges = objectGet(graph, node);
    if (edges === undefined) continue;
    const next = vertices(edges);
    if (next.length === 0) {
      out.add([node]);
      continue;
    }
    for (const n of next) pathsFrom(graph, n, [node], [node], out);
  }
  return out;
}

registerBuiltins([
  {
    name: 'walk',
    fn: walk,
  },
  { name: 'graph.reachable', fn: reachable },
  { name: 'graph.reachable_paths', fn: reachablePaths },
]);

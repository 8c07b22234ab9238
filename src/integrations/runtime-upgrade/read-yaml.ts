// Reading the YAML (or JSON) files of the upgrade commands: the overrides file and the
// cluster facts. Values of keys ending in `_version` keep their text as written, so that an
// unquoted `orchestrator_version: 1.20` is "1.20", not the number 1.2.

import { readFileSync } from 'node:fs';
import { isPair, isScalar, parseDocument, visit } from 'yaml';

export class YamlFileError extends Error {}

export function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new YamlFileError(`${what} ${path}: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
}

export function parseYaml(text: string, source: string): unknown {
  const doc = parseDocument(text);
  if (doc.errors.length) throw new YamlFileError(`${source}: ${doc.errors[0]!.message.split('\n')[0]}`);
  visit(doc, {
    Pair(_, pair) {
      if (!isPair(pair) || !isScalar(pair.key) || !isScalar(pair.value)) return;
      const k = pair.key.value;
      if (typeof k === 'string' && k.endsWith('_version') && typeof pair.value.value === 'number') {
        pair.value.value = pair.value.source ?? String(pair.value.value);
      }
    },
  });
  return doc.toJS() ?? null;
}

export function readYaml(path: string, what: string): unknown {
  return parseYaml(readText(path, what), path);
}

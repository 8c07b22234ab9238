// The candidate against the live policy, file by file, under the names the console shows
// (bundle-relative, never a server path): each file added, removed, changed (with its line
// diff) or the same. Files are matched by name, so a candidate edited from "open in
// playground" (which uses the same names) lines up with the server's modules.

import { lineDiff, type DiffLine } from './line-diff.js';

export interface FileDiff {
  file: string;
  status: 'added' | 'removed' | 'changed' | 'same';
  /** The line diff of a changed file; absent when the file is too large to compare. */
  lines?: DiffLine[];
}

export function policyDiff(live: Record<string, string>, candidate: Record<string, string>): FileDiff[] {
  const files = [...new Set([...Object.keys(live), ...Object.keys(candidate)])].sort();
  return files.map((file): FileDiff => {
    const before = live[file];
    const after = candidate[file];
    if (before === undefined) return { file, status: 'added', lines: after!.split('\n').map((text) => ({ op: '+', text })) };
    if (after === undefined) return { file, status: 'removed', lines: before.split('\n').map((text) => ({ op: '-', text })) };
    if (before === after) return { file, status: 'same' };
    const lines = lineDiff(before, after);
    return lines ? { file, status: 'changed', lines } : { file, status: 'changed' };
  });
}

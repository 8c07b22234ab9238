// Impact analysis: the candidate against the live policy, file by file, each changed file
// open with its line diff.

import type { FileDiff } from '../api.js';
import { h } from '../dom.js';

const STATUS: Record<FileDiff['status'], string> = { added: 'added', removed: 'removed', changed: 'changed', same: 'unchanged' };

export function policyDiffSection(files: FileDiff[]): HTMLElement {
  const changed = files.filter((f) => f.status !== 'same').length;
  return h('section.panel.policy-diff', {},
    h('div.panel-head', {}, h('h3', {}, 'Candidate vs live policy'), h('span.muted', {}, changed ? `${changed} of ${files.length} files differ` : 'no file differs')),
    ...files.map((f) => h('details.file-diff', { 'data-file': f.file, 'data-status': f.status, open: f.status !== 'same' },
      h('summary', {}, h('span.badge.fd-' + f.status, {}, STATUS[f.status]), ' ', h('code', {}, f.file)),
      f.status === 'same'
        ? h('p.muted', {}, 'the same text in both')
        : f.lines
          ? h('pre.diff-lines', {}, ...f.lines.map((l) => h(l.op === '+' ? 'span.dl-add' : l.op === '-' ? 'span.dl-del' : 'span.dl-same', {}, `${l.op} ${l.text}\n`)))
          : h('p.muted', {}, 'too large to compare line by line'))));
}

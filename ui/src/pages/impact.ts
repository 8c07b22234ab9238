// Impact analysis: replay recorded decisions (or an uploaded NDJSON file) against a
// candidate policy — a bundle file, a bundle URL, or the playground's modules — and show
// what changes: counts, every changed decision (impact-changes.ts), examples with a result
// diff in words, and the candidate against the live policy (impact-policy-diff.ts).

import { api, RequestError, type ChangeKind, type ImpactCandidate, type ImpactReport } from '../api.js';
import { clear, fmtTime, h, json, type Page } from '../dom.js';
import { describeOp } from '../result-diff.js';
import { changesSection, KIND_LABEL, sinceBadge } from './impact-changes.js';
import { policyDiffSection } from './impact-policy-diff.js';
import { savedState } from './playground/state.js';

/** Which decisions the report replayed, in words. */
function replayedText(r: ImpactReport): string {
  const d = r.decisions;
  if (!d) return '';
  const range = d.from && d.to ? `, made from ${fmtTime(d.from, true)} to ${fmtTime(d.to, true)}` : '';
  return d.source === 'recent'
    ? `Replayed the ${d.count} most recent decisions this server logged${range} (it keeps the last 1,000).`
    : `Replayed the ${d.count} decisions of the uploaded file${range}.`;
}

async function fileBase64(f: File): Promise<string> {
  const bytes = new Uint8Array(await f.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export const impactPage: Page = (root) => {
  const radio = (name: string, value: string, checked = false) => h('input', { type: 'radio', name, value, checked });
  const bundleFile = h('input.bundle-file', { type: 'file', accept: '.tar.gz,.tgz,application/gzip', 'aria-label': 'bundle file' });
  const bundleURL = h('input.bundle-url', { type: 'url', placeholder: 'https://…/bundle.tar.gz', 'aria-label': 'bundle URL' });
  const pg = savedState();
  const pgFiles = pg ? Object.keys(pg.modules) : [];
  const ndjsonFile = h('input.ndjson-file', { type: 'file', accept: '.ndjson,.jsonl,.json,application/x-ndjson', 'aria-label': 'decisions file' });
  const run = h('button.primary.run', { type: 'button' }, 'Run analysis');
  const out = h('div.impact-out');

  clear(root, h('div.page.impact', {},
    h('section.panel.form', {},
      h('div.panel-head', {}, h('h3', {}, 'Candidate policy')),
      h('div.choices', {},
        h('label.choice', {}, radio('candidate', 'modules', !!pg), ` Playground modules `, h('span.muted', {}, pgFiles.length ? `(${pgFiles.join(', ')})` : '(none yet: edit modules in the playground)')),
        h('label.choice', {}, radio('candidate', 'file', !pg), ' Bundle file ', bundleFile),
        h('label.choice', {}, radio('candidate', 'url'), ' Bundle URL ', bundleURL),
      ),
      h('div.panel-head', {}, h('h3', {}, 'Decisions to replay')),
      h('div.choices', {},
        h('label.choice', {}, radio('decisions', 'recent', true), ' Recent decisions recorded by this server'),
        h('label.choice', {}, radio('decisions', 'upload'), ' Upload a decision log (NDJSON) ', ndjsonFile),
      ),
      // the replay reads the server's store, before and after: say so, a Data panel edited in the playground is not used
      h('p.muted.data-note', {}, "Each decision's logged result is compared with the candidate's, evaluated against the server's current data", pg?.data.trim() ? " — the playground's Data panel is not used" : '', '.'),
      h('div.actions', {}, run),
    ),
    out,
  ));
  const choice = (name: string) => (root.querySelector(`input[name=${name}]:checked`) as HTMLInputElement | null)?.value;
  bundleFile.addEventListener('change', () => ((root.querySelector('input[value=file]') as HTMLInputElement).checked = true));
  bundleURL.addEventListener('input', () => ((root.querySelector('input[value=url]') as HTMLInputElement).checked = true));
  ndjsonFile.addEventListener('change', () => ((root.querySelector('input[value=upload]') as HTMLInputElement).checked = true));

  const fail = (msg: string) => clear(out, h('div.banner.error', {}, msg));

  run.addEventListener('click', async () => {
    let candidate: ImpactCandidate;
    const c = choice('candidate');
    if (c === 'modules') {
      const st = savedState();
      if (!st || !Object.keys(st.modules).length) return fail('The playground has no modules yet.');
      candidate = { modules: st.modules };
    } else if (c === 'file') {
      const f = bundleFile.files?.[0];
      if (!f) return fail('Choose a bundle file (.tar.gz).');
      candidate = { bundle_base64: await fileBase64(f) };
    } else {
      if (!bundleURL.value.trim()) return fail('Enter a bundle URL.');
      candidate = { bundle_url: bundleURL.value.trim() };
    }
    let ndjson: string | undefined;
    if (choice('decisions') === 'upload') {
      const f = ndjsonFile.files?.[0];
      if (!f) return fail('Choose a decision log file (one JSON event per line).');
      ndjson = await f.text();
    }
    run.disabled = true;
    clear(out, h('p.muted.running', {}, 'Replaying decisions…'));
    try {
      render(await api.impact(candidate, ndjson));
    } catch (e) {
      if (e instanceof RequestError && e.status === 501) fail(`Impact analysis is not available on this server: ${e.message}`);
      else if (e instanceof RequestError) fail(`${e.code}: ${e.message}`);
      else fail(`Request failed: ${(e as Error).message}`);
    } finally {
      run.disabled = false;
    }
  });

  const render = (r: ImpactReport) => {
    const skipped = Object.entries(r.skipped ?? {});
    const kinds: ChangeKind[] = ['allow->deny', 'deny->allow', 'value'];
    const sum = (k: 'allow_to_deny' | 'deny_to_allow' | 'value_changed') => r.by_path.reduce((a, p) => a + p[k], 0);
    clear(out,
      h('section.panel.summary', {},
        h('div.stats', {},
          stat('decisions', r.total), stat('replayed', r.replayed), stat('changed', r.changed, r.changed ? 'warn' : 'ok'),
          stat('allow → deny', sum('allow_to_deny'), sum('allow_to_deny') ? 'bad' : ''),
          stat('deny → allow', sum('deny_to_allow'), sum('deny_to_allow') ? 'bad' : ''),
          stat('value changed', sum('value_changed')),
        ),
        h('p.muted.replayed-range', {}, replayedText(r)),
        skipped.length ? h('p.muted.skipped', {}, 'Skipped: ', skipped.map(([k, n]) => `${k} (${n})`).join(', ')) : null,
        r.changed_since ? h('p.since-note', {}, sinceBadge(), ` ${r.changed_since} of the ${r.changed} changes are not the candidate's: the live policy answers them the same way today (data or policies changed since those decisions were made).`) : null,
      ),
      h('section.panel', {},
        h('div.panel-head', {}, h('h3', {}, 'By path')),
        h('table.by-path', {},
          h('thead', {}, h('tr', {}, h('th', {}, 'path'), ...['decisions', 'changed', 'allow → deny', 'deny → allow', 'value changed'].map((t) => h('th.num', {}, t)))),
          h('tbody', {}, ...(r.by_path.length ? r.by_path.map((p) => h('tr', { 'data-path': p.path },
            h('td', {}, p.path), num('', p.total), num('', p.changed),
            num('a2d', p.allow_to_deny), num('d2a', p.deny_to_allow), num('val', p.value_changed))) : [h('tr', {}, h('td.muted', { colspan: 6 }, 'No decisions replayed.'))])),
        ),
      ),
      r.changes ? changesSection(r.changes, !!r.changes_truncated) : null,
      r.policy_diff ? policyDiffSection(r.policy_diff) : null,
      h('section.panel.examples', {},
        h('div.panel-head', {}, h('h3', {}, 'Examples')),
        ...(r.examples.length ? kinds.flatMap((k) => {
          const ex = r.examples.filter((e) => e.kind === k);
          if (!ex.length) return [];
          return [h('h4', {}, `${KIND_LABEL[k]} (${ex.length})`), ...ex.map(example)];
        }) : [h('p.muted', {}, 'No decision changes.')]),
      ),
    );
  };
};

function example(e: ImpactReport['examples'][number]): HTMLElement {
  const diff = h('ul.diff', {}, ...e.diff.map((d) => {
    const w = describeOp(d);
    return h('li.diff-' + d.op, {}, h('code.diff-ref', {}, w.ref), ` ${w.verb} `,
      w.old !== undefined ? h('del', {}, w.old) : null, w.old !== undefined && w.new !== undefined ? ' to ' : null,
      w.new !== undefined ? h('ins', {}, w.new) : null);
  }));
  return h('details.example', { 'data-kind': e.kind, 'data-id': e.decision_id },
    h('summary', {}, h('span.badge.k-' + e.kind.replace('->', '-'), {}, KIND_LABEL[e.kind]), ' ', h('code', {}, e.path), ' — ', h('code.muted', {}, e.decision_id), e.live_agrees ? ' ' : null, e.live_agrees ? sinceBadge() : null),
    h('div.detail-grid', {},
      h('div', {}, h('h5', {}, 'input'), h('pre', {}, json(e.input))),
      h('div', {}, h('h5', {}, 'result diff'), diff, h('p.before-after.muted', {}, `before ${JSON.stringify(e.before)} → after ${JSON.stringify(e.after)}`)),
      h('div', {}, h('h5', {}, 'rules involved'), e.rules.length ? h('ul.rules', {}, ...e.rules.map((x) => h('li', {}, h('code', {}, x)))) : h('p.muted', {}, 'none reported')),
    ));
}

/** A count cell; a count above zero is marked (painted), zero is not. */
function num(cls: string, n: number): HTMLElement {
  return h(`td.num${cls ? `.${cls}` : ''}${n ? '.nonzero' : ''}` as 'td', {}, n);
}

function stat(label: string, n: number, tone = ''): HTMLElement {
  return h('div.stat' + (tone ? `.${tone}` : ''), { 'data-stat': label }, h('div.stat-n', {}, n), h('div.stat-l', {}, label));
}

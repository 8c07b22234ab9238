// `regolith inspect`: a bundle's manifest, signatures and which files contribute to
// which namespace of `data`, as a table (pretty) or OPA's JSON document.

import { readFileSync, statSync } from 'node:fs';
import { BundleError, inspectBundle, readBundle, type BundleInfo } from '../../bundle/index.js';
import { CLIError, bold, out } from '../io.js';
import { renderTable, truncate } from '../table.js';
import { command, opt } from '../command.js';
import { format, v0Compatible, v1Compatible } from '../flags.js';
import { annotationRefs, annotationRefsJSON, annotationsPretty, shownFile, type AnnotationRef } from '../inspect-annotations.js';
import { RegoParseError, parseModule } from '../../engine/syntax.js';

const inspectCommand = command({
  name: 'inspect',
  description: 'Inspect a bundle',
  args: [['<path>', 'a bundle directory or .tar.gz']],
  flags: [format(['pretty', 'json'], 'pretty'), opt('-a, --annotations', 'list annotations'), v0Compatible(), v1Compatible()],
  examples: ['regolith inspect bundle.tar.gz', 'regolith inspect --format json policies/', 'regolith inspect -a policies/'],
});

function pretty(info: BundleInfo): string {
  let text = '';
  const m = info.manifest;
  const rows: string[][] = [];
  if (m.rego_version !== undefined) rows.push(['Rego Version', String(m.rego_version)]);
  if (m.revision) rows.push(['Revision', truncate(m.revision)]);
  const roots = m.roots ?? [''];
  if (roots.length > 1) for (const r of [...roots].sort()) rows.push(['Roots', truncate(r)]);
  else if (roots[0]) rows.push(['Roots', truncate(roots[0])]);
  if (m.metadata && Object.keys(m.metadata).length) rows.push(['Metadata', truncate(JSON.stringify(m.metadata))]);
  if (rows.length) text += `${bold('MANIFEST:')}\n${renderTable(['Field', 'Value'], rows)}`;

  const sigs = info.signatures_config.signatures ?? [];
  if (sigs.length) {
    text += `${bold('SIGNATURES:')}\n${renderTable(['Field', 'Value'], sigs.map((s) => ['Signature', truncate(s)]))}`;
  }

  const ns: string[][] = [];
  for (const [k, files] of Object.entries(info.namespaces)) for (const f of files) ns.push([k, truncate(f)]);
  if (ns.length) text += `${bold('NAMESPACES:')}\n${renderTable(['Namespace', 'File'], ns)}`;
  return text;
}

/** `opa inspect file.rego`: the one module's namespace (and annotations), no manifest. */
function inspectRegoFile(path: string, opts: { format: string; annotations?: boolean; v0Compatible?: boolean }): void {
  const text = readFileSync(path, 'utf8');
  const regoVersion = opts.v0Compatible ? 'v0' : 'v1';
  const module = parseModule(text, { filename: path, regoVersion });
  const ns = ['data', ...module.package.path.slice(1).map((t) => (t.type === 'string' ? t.value : ''))].join('.');
  const info: BundleInfo = { manifest: { revision: '', roots: [''] }, signatures_config: {}, namespaces: { [ns]: [path] } };
  const annotations = opts.annotations ? annotationRefs([{ file: path, text, regoVersion }]) : undefined;
  if (opts.format === 'json') out(JSON.stringify(annotations?.length ? { ...info, annotations: annotationRefsJSON(annotations) } : info, null, 2));
  else process.stdout.write(pretty(info) + (annotations ? annotationsPretty(annotations) : ''));
}

/** The `regolith inspect` action (its flags are declared in ../registry/inspect.ts). */
export default inspectCommand.action(async (path, opts) => {
  if (opts.format !== 'pretty' && opts.format !== 'json') throw new CLIError('invalid output format for inspect command');
  let info: BundleInfo;
  let annotations: AnnotationRef[] | undefined;
  try {
    if (path.endsWith('.rego') && statSync(path).isFile()) return inspectRegoFile(path, opts);
    // Like `opa inspect`, signatures are shown but not verified.
    const bundle = await readBundle(path, { skipVerify: true });
    const fromDirectory = statSync(path).isDirectory();
    info = inspectBundle(bundle, fromDirectory);
    if (opts.annotations) {
      const regoVersion = opts.v0Compatible || bundle.manifest.rego_version === 0 ? 'v0' : 'v1';
      annotations = annotationRefs(bundle.modules.map((m) => ({ file: shownFile(m.path, m.url, fromDirectory), text: m.text, regoVersion })));
    }
  } catch (e) {
    if (e instanceof BundleError) throw new CLIError(e.message);
    if (e instanceof RegoParseError) throw new CLIError(e.message);
    throw e;
  }
  // OPA's Info lists `annotations` last, and leaves it out when there are none.
  if (opts.format === 'json') out(JSON.stringify(annotations?.length ? { ...info, annotations: annotationRefsJSON(annotations) } : info, null, 2));
  else process.stdout.write(pretty(info) + (annotations ? annotationsPretty(annotations) : ''));
});

// The ordered, numbered plan of the runtime upgrade 1.2 -> 1.3.6 that `regolith
// upgrade-plan` prints: the upgrade's steps in their order, with the control tool's
// commands written out for this installation (overrides file, environments, the dry-run
// flag the orchestrator CLI's version takes, one part at a time in production).

export interface PlanOptions {
  /** The control tool, as the operator runs it (default `<ctl>`). */
  ctl: string;
  /** The rewritten (1.3.6) overrides file the commands use. */
  overridesFile: string;
  /** The organization (overrides `org`). */
  org?: string;
  /** Environments of the overrides file (`envs[].name`). */
  envs: string[];
  /** The orchestrator CLI's version, when known: it chooses the dry-run flag. */
  orchestratorVersion?: string;
  /** Production: apply one part at a time; otherwise the demo's single apply. */
  production: boolean;
  /** In production, apply every environment at once (`--all-envs`) instead of one by one. */
  allEnvs: boolean;
  /** The management API base URL ({mgmt_base_url} when unknown). */
  mgmtUrl?: string;
  /** What the rewrite changed, and keys left to fill in. */
  changes: string[];
  todos: string[];
  /** Where the rewritten file went (undefined: not written). */
  written?: string;
}

/** Dotted version -> numbers ("v1.18.2-gke" -> [1, 18, 2]); undefined when not a version. */
export function versionParts(v: string): number[] | undefined {
  const m = /^v?(\d+(?:\.\d+)*)/.exec(v.trim());
  return m ? m[1]!.split('.').map(Number) : undefined;
}

/** `<ctl> apply --dry-run` flag: `true` for orchestrator CLI 1.17 and lower, `client` for 1.18 and higher. */
export function dryRunFlag(orchestratorVersion: string | undefined): string | undefined {
  const p = orchestratorVersion === undefined ? undefined : versionParts(orchestratorVersion);
  if (!p) return undefined;
  const [major = 0, minor = 0] = p;
  return major > 1 || (major === 1 && minor >= 18) ? '--dry-run=client' : '--dry-run=true';
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./<>{}-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function planText(o: PlanOptions): string {
  const f = shellQuote(o.overridesFile);
  const ctl = o.ctl;
  const org = o.org ?? '<org_name>';
  const mgmt = (o.mgmtUrl ?? '{mgmt_base_url}').replace(/\/+$/, '');
  const orgUrl = `${mgmt}/v1/organizations/${org}`;
  const steps: { title: string; lines: string[] }[] = [];
  const step = (title: string, ...lines: string[]) => steps.push({ title, lines });
  const cmd = (c: string) => `$ ${c}`;

  // Preparation
  step('Preparation 1 (recommended): back up the 1.2 tool directory and the datastore.');
  step(
    'Preparation 2: enable the connect API for the cloud project when not enabled; grant the connect-agent role to the MART service account first. Verify, then enable with PUT (features.hybrid.enabled and features.mart.connect.enabled set to true):',
    cmd(`curl -H "Authorization: Bearer $TOKEN" ${orgUrl}`),
    cmd(
      `curl -X PUT -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" -d '${JSON.stringify({
        name: org,
        properties: { property: [{ name: 'features.hybrid.enabled', value: 'true' }, { name: 'features.mart.connect.enabled', value: 'true' }] },
      })}' ${orgUrl}`,
    ),
  );
  step('Preparation 3: create a new service account for the watcher and grant it the runtime-agent role.');
  step('Preparation 4: design the environment groups (at least one); 1.3 routes base paths by environment group instead of routingRules.');
  const edits = o.changes.length ? o.changes.map((c) => `- ${c}`) : ['- nothing to change: the file already has the 1.3.6 keys'];
  const todo = o.todos.map((t) => `- TODO ${t}`);
  step(
    `Preparation 5: edit the overrides file (${o.written ? `written to ${o.written}` : 'not written: give --out FILE or --write'}):`,
    ...edits,
    ...todo,
    '- check that each virtualhosts entry is named after its environment group (one entry per group) and keeps sslCertPath and sslKeyPath',
  );

  // Mesh and certificate manager
  step('Mesh and certificate manager 1: give every mesh deployment and autoscaler at least 2 replicas (replicas and minReplicas of 2 or more).');
  step('Mesh and certificate manager 2: install the mesh distribution 1.5.7 or newer and verify its version output.');
  step('Mesh and certificate manager 3: delete the certificate manager deployments cert-manager, cert-manager-cainjector and cert-manager-webhook, and install release 0.14.2.');

  // Runtime installation
  step('Runtime installation 1: download the 1.3.6 release package for your operating system; rename the old tool directory to a backup name; unpack the new one into the hybrid base directory under the tool directory name.');
  step('Runtime installation 2: delete the resources-install job in the system namespace and the old telemetry custom resource definition.');
  step('Runtime installation 3: in the datastore stanza of the overrides file, set externalSeedHost to the address of one existing datastore node.');
  const dry = dryRunFlag(o.orchestratorVersion);
  step(
    'Runtime installation 4: initialise, then dry-run:',
    cmd(`${ctl} init -f ${f}`),
    ...(dry
      ? [cmd(`${ctl} apply -f ${f} ${dry}`), `(orchestrator CLI ${o.orchestratorVersion}: ${dry})`]
      : [
          cmd(`${ctl} apply -f ${f} --dry-run=true     # orchestrator CLI 1.17 and lower`),
          cmd(`${ctl} apply -f ${f} --dry-run=client   # orchestrator CLI 1.18 and higher`),
          '(give --orchestrator-version or --cluster facts.yaml to choose)',
        ]),
  );
  if (o.production) {
    const ready = cmd(`${ctl} check-ready -f ${f}`);
    const parts = ['--datastore', '--telemetry', '--org'];
    const lines: string[] = [];
    for (const p of parts) lines.push(cmd(`${ctl} apply -f ${f} ${p}`), ready);
    if (o.allEnvs || !o.envs.length) lines.push(cmd(`${ctl} apply -f ${f} --all-envs`), ready);
    else for (const e of o.envs) lines.push(cmd(`${ctl} apply -f ${f} --env ${shellQuote(e)}`), ready);
    step('Runtime installation 5 (production): apply one part at a time; wait until its pods are ready before the next (--org installs MART, the watcher and the connect agent):', ...lines);
  } else {
    step('Runtime installation 5 (demo): apply everything, then check:', cmd(`${ctl} apply -f ${f}`), cmd(`${ctl} check-ready -f ${f}`));
  }
  step(
    'Runtime installation 6: check with the node status tool that old and new datastore nodes are in the same ring; when all pods run, remove externalSeedHost from the overrides file and re-apply the datastore:',
    cmd(`${ctl} apply -f ${f} --datastore`),
  );

  // Cleanup
  step('Cleanup (after all pods are healthy and the endpoints valid): with the old 1.2 tool, delete the old virtualhost routing.');
  step('Cleanup: with the old 1.2 tool, delete the old 1.2 components: mart, connect-agent, synchronizer, runtime, udca, metrics, logger.');
  step("Cleanup: run the datastore cleanup script in the new tool's tools directory with the namespace (it retires the old node and deletes the old stateful sets and volume claims).");
  step('Cleanup: delete the old mesh 1.4.6 resources and the three mesh init jobs of that version.');

  const width = String(steps.length).length;
  const out = [`Runtime upgrade 1.2 -> 1.3.6: ${steps.length} steps (${o.production ? 'production' : 'demo'})`, ''];
  steps.forEach((s, i) => {
    out.push(`${String(i + 1).padStart(width)}. ${s.title}`);
    for (const l of s.lines) out.push(`${' '.repeat(width + 2)}${l}`);
  });
  return out.join('\n') + '\n';
}

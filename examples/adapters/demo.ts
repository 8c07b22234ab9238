// `npm run demo:insights`: the adapters of README's "Data adapters" section, end to end on
// this machine. It starts the test suite's stand-ins for the package insights and build
// pipeline APIs (loopback, sample data below), runs `regolith run --server` with
// examples/adapters/regolith.yaml unchanged, and shows what a user would see: the
// supply-chain violations, a webhook decision, the adapters' status, and `deps-check`.
//
//   npm run demo:insights                   the whole tour, then everything stops
//   npm run demo:insights -- --stand-ins    only the stand-ins, until Ctrl-C (run the
//                                           server yourself with the README's command)
//
// Ports: DEMO_INSIGHTS_PORT (9701), DEMO_CI_PORT (9702), DEMO_PORT (8182; npm start holds 8181).

import { spawn } from 'node:child_process';
import { BIN, regolith, ROOT, serverPort, show, waitHealthy } from './demo-kit.js';
import { addVersion, insightsStandIn } from '../../test/integrations/package-insights/stand-in.js';
import { followed, job, pipelineStandIn } from '../../test/integrations/build-pipeline/stand-in.js';

const port = (name: string, d: number): number => Number(process.env[name] ?? d);

async function standIns() {
  const insights = await insightsStandIn(port('DEMO_INSIGHTS_PORT', 9701));
  addVersion(insights, 'NPM', 'express', '4.18.2', { licenses: ['MIT'], provenance: true });
  addVersion(insights, 'NPM', 'left-pad', '1.3.0', { licenses: ['WTFPL'], deprecated: true });
  addVersion(insights, 'NPM', '@types/node', '20.11.5', { licenses: ['MIT'] });
  addVersion(insights, 'PYPI', 'requests', '2.31.0', { licenses: ['Apache-2.0'], advisories: ['GHSA-9wx4-h78v-vm56'] });
  addVersion(insights, 'PYPI', 'Typing_Extensions', '4.9.0', { licenses: ['PSF-2.0'], upstreamName: 'typing_extensions' });
  addVersion(insights, 'MAVEN', 'org.apache.commons:commons-lang3', '3.14.0', { licenses: ['Apache-2.0'] });
  insights.requirements.set('NPM/express@4.18.2', { npm: { dependencies: { dependencies: [{ name: 'body-parser', requirement: '1.20.1' }], devDependencies: [], optionalDependencies: [], peerDependencies: [], bundleDependencies: [] } } });

  const ci = await pipelineStandIn('ci-demo-token', port('DEMO_CI_PORT', 9702));
  ci.projects = [followed('acme', 'api', ['main'])];
  ci.jobs.set('github/acme/api', [1, 2, 3, 4, 5].map((n) => job('acme', 'api', n, 'main', n === 4 ? { outcome: 'failed', status: 'failed', failed: true } : {})));
  ci.tests.set('github/acme/api/5', [{ message: null, file: 'test/api.test.js', source: 'mocha', run_time: 0.4, result: 'success', name: 'serves', classname: 'api' }]);
  ci.tests.set('github/acme/api/4', [{ message: 'expected 200', file: 'test/api.test.js', source: 'mocha', run_time: 0.3, result: 'failure', name: 'serves', classname: 'api' }]);
  return { insights, ci };
}


async function main(): Promise<void> {
  const { insights, ci } = await standIns();
  console.log(`package insights stand-in: ${insights.url}\nbuild pipeline stand-in:   ${ci.url}`);
  if (process.argv.includes('--stand-ins')) {
    console.log('stand-ins running; Ctrl-C stops them');
    return;
  }
  const addr = `127.0.0.1:${await serverPort('DEMO_PORT', 8182)}`;
  const url = `http://${addr}`;
  const args = [BIN, 'run', '--server', '--addr', addr, '-c', 'examples/adapters/regolith.yaml', '--set', `services.insights.url=${insights.url}`, '--set', `services.ci.url=${ci.url}`, '--ignore', '*_test.rego', 'policies/supply-chain', 'policies/pipeline-deploy'];
  console.log(`\n$ regolith ${args.slice(1).join(' ')}`);
  const server = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let failed = false;
  try {
    await waitHealthy(url);
    const violations = (await (await fetch(`${url}/v1/data/regolith/supply_chain/violations`)).json()) as { result: unknown[] };
    show('GET /v1/data/regolith/supply_chain/violations', violations.result);
    for (const n of [5, 4]) {
      const r = await fetch(`${url}/v1/events/deploy`, { method: 'POST', headers: { authorization: 'Bearer hook-demo-token', 'content-type': 'application/json' }, body: JSON.stringify({ payload: job('acme', 'api', n, 'main', n === 4 ? { outcome: 'failed' } : {}) }) });
      show(`POST /v1/events/deploy (job ${n}) -> ${r.status}`, await r.json());
    }
    const status = (await (await fetch(`${url}/v1/status`)).json()) as { result: { adapters: Record<string, { active_revision: string; last_successful_request: string }> } };
    show('GET /v1/status (adapters)', Object.fromEntries(Object.entries(status.result.adapters).map(([k, v]) => [k, { active_revision: v.active_revision, last_successful_request: v.last_successful_request }])));
    const check = await regolith(['deps-check', '--insights-url', insights.url, 'examples/adapters/package-lock.json', 'examples/adapters/requirements.txt']);
    show(`$ regolith deps-check --insights-url ${insights.url} examples/adapters/package-lock.json examples/adapters/requirements.txt  (exit ${check.code})`, check.out);
    failed = violations.result.length === 0 || check.code !== 1;
  } catch (e) {
    console.error(`demo failed: ${(e as Error).message}\n${stderr}`);
    failed = true;
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('close', r));
    await insights.close();
    await ci.close();
  }
  process.exitCode = failed ? 1 : 0;
}

// A setup failure (a port taken) is said in one line, not as a crash with a stack; exit
// rather than return, as the stand-ins already listening would keep the process alive.
main().catch((e: unknown) => {
  console.error(`demo:insights: ${(e as Error).message}`);
  process.exit(1);
});

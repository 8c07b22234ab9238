// `npm run demo:workspace`: the seed-002 adapters of README's "Data adapters" section, end
// to end on this machine. It starts the test suite's stand-ins for the directory, file
// storage, calendar and deployment manager APIs (loopback, sample data below), runs
// `regolith run --server` with examples/adapters/workspace.yaml unchanged (each service's
// URL pointed at its stand-in with --set), and shows the shipped policies deciding over the
// synced data, a crash report POSTed as protobuf, and `regolith upgrade-check`.
//
// Ports: DEMO_PORT (8182; npm start holds 8181); the stand-ins take free ports.

import { spawn } from 'node:child_process';
import { BIN, regolith, ROOT, serverPort, show, waitHealthy } from './demo-kit.js';
import { fullBuffer } from '../../test/integrations/crash-reports/fixtures.js';
import { calendarStandIn, entry, event } from '../../test/integrations/calendar/stand-in.js';
import { addDeployment, deploymentsStandIn } from '../../test/integrations/deployment-manager/stand-in.js';
import { directoryStandIn, group, member, orgUnit, user } from '../../test/integrations/directory/stand-in.js';
import { driveStandIn, file, permission } from '../../test/integrations/file-storage/stand-in.js';

const HOUR = 3_600_000;

async function standIns() {
  const directory = await directoryStandIn('dir-demo-token');
  directory.orgUnits.push(orgUnit('/Engineering'), orgUnit('/Engineering/Platform'), orgUnit('/Sales'));
  directory.users.push(
    user('alice@example.com', '/Engineering/Platform'),
    user('bob@example.com', '/Engineering', { suspended: true }),
    user('carol@example.com', '/Sales'),
  );
  directory.groups.push(group('eng@example.com'), group('platform@example.com'));
  directory.members.set('eng@example.com', [member('platform@example.com', 'GROUP'), member('bob@example.com')]);
  directory.members.set('platform@example.com', [member('alice@example.com')]);

  const drive = await driveStandIn('drive-demo-token');
  drive.putFile(file('roadmap', { title: 'Roadmap 2027' }), [permission('user', 'owner', 'alice@example.com'), permission('anyone', 'writer')]);
  drive.putFile(file('handbook', { title: 'Handbook' }), [permission('user', 'owner', 'carol@example.com'), permission('anyone', 'reader', undefined, { withLink: true })]);
  drive.putFile(file('pricing', { title: 'Pricing' }), [permission('user', 'owner', 'carol@example.com'), permission('user', 'writer', 'partner@vendor.example')]);

  const calendar = await calendarStandIn('cal-demo-token');
  const now = Date.now();
  calendar.calendars.set('alice@example.com', {
    entry: entry('alice@example.com', 'owner', { primary: true }),
    acl: [],
    events: [event('ooo-1', 'outOfOffice', new Date(now - HOUR).toISOString(), new Date(now + 3 * HOUR).toISOString(), 'alice@example.com', { summary: 'Dentist' })],
  });
  calendar.calendars.set('bob@example.com', { entry: entry('bob@example.com', 'reader'), acl: [], events: [] });

  const deployments = await deploymentsStandIn('dm-demo-token');
  const vm = (name: string) => ({ name, type: 'compute.v1.instance' });
  addDeployment(deployments, 'acme-prod', 'web', { labels: { owner: 'alice' }, resources: [vm('web-1'), vm('web-2')], bindings: [{ role: 'roles/owner', members: ['user:alice@example.com'] }] });
  addDeployment(deployments, 'acme-prod', 'api', { labels: { owner: 'bob' }, resources: [vm('api-1')], bindings: [{ role: 'roles/owner', members: ['user:bob@example.com'] }] });
  return { directory, drive, calendar, deployments };
}

async function main(): Promise<void> {
  const apis = await standIns();
  const addr = `127.0.0.1:${await serverPort('DEMO_PORT', 8182)}`;
  const url = `http://${addr}`;
  const set = [`admin=${apis.directory.url}`, `gdrive=${apis.drive.url}`, `gcal=${apis.calendar.url}`, `gcp=${apis.deployments.url}`].flatMap((kv) => ['--set', `services.${kv.split('=')[0]}.url=${kv.split('=')[1]}`]);
  const policies = ['policies/directory-access', 'policies/drive-sharing', 'policies/deployments', 'policies/crash-triage'];
  const args = ['run', '--server', '--addr', addr, '-c', 'examples/adapters/workspace.yaml', ...set, '--ignore', '*_test.rego', ...policies, 'examples/adapters/workspace-settings.json'];
  console.log(`$ regolith ${args.join(' ')}`);
  const server = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const post = async (path: string, body: unknown) => (await (await fetch(url + path, { method: 'POST', body: JSON.stringify(body) })).json()) as { result?: unknown };
  let failed = false;
  try {
    await waitHealthy(url);
    const access = async (u: string) => (await post('/v1/data/regolith/directory/access/decision', { input: { user: u } })).result;
    show('directory: may alice (Engineering/Platform, in eng through platform) and bob (suspended) in?', { alice: await access('alice@example.com'), bob: await access('bob@example.com') });
    show('drive: files shared outside example.com with write access', (await post('/v1/data/regolith/drive_sharing/violations', {})).result);
    const change = { project: 'acme-prod', deployment: 'web', principal: 'user:bob@example.com', resources: [{ name: 'web-3', type: 'compute.v1.instance', action: 'create' }] };
    show('deployments: may bob add web-3 to web? (its IAM policy names alice only)', (await post('/v1/data/regolith/deployments/iam_scope/decision', { input: change })).result);
    show('deployments: may web (owner alice, out of office now) deploy now?', (await post('/v1/data/regolith/deployments/change_window/decision', { input: { project: 'acme-prod', deployment: 'web', time: new Date().toISOString() } })).result);
    const crash = await fetch(`${url}/v1/events/crashes`, { method: 'POST', headers: { authorization: 'Bearer crash-demo-token', 'content-type': 'application/x-protobuf' }, body: Buffer.from(fullBuffer()) });
    show(`crash report (protobuf) -> ${crash.status}`, await crash.json());
    const up = await regolith(['upgrade-check', '--cluster', 'test/cli/fixtures/upgrade/facts.yaml', '--organization', 'test/cli/fixtures/upgrade/org.json', 'test/cli/fixtures/upgrade/overrides-broken.yaml']);
    show(`$ regolith upgrade-check --cluster facts.yaml --organization org.json overrides-broken.yaml  (exit ${up.code})`, up.out);
    failed = crash.status !== 200 || up.code !== 1;
  } catch (e) {
    console.error(`demo failed: ${(e as Error).message}\n${stderr}`);
    failed = true;
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('close', r));
    for (const a of Object.values(apis)) await a.close();
  }
  process.exitCode = failed ? 1 : 0;
}

// A setup failure (a port taken) is said in one line, not as a crash with a stack; exit
// rather than return, as the stand-ins already listening would keep the process alive.
main().catch((e: unknown) => {
  console.error(`demo:workspace: ${(e as Error).message}`);
  process.exit(1);
});

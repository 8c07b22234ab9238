// regolith upgrade-check and upgrade-plan (runtime upgrade 1.2 -> 1.3.6): the built binary
// against the fixtures in test/cli/fixtures/upgrade and a stand-in management API in this process
// (so the binary is spawned asynchronously: the stand-in must keep answering while it runs).

import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, regolith, ROOT } from '../helpers.js';

const FIX = join(import.meta.dirname, '../fixtures/upgrade');
const TOKEN = 'test-access-token';

let dir: string;
let server: Server;
let mgmtUrl: string;
const seen: { url: string; authorization?: string }[] = [];

const property = (name: string, value: string) => ({ name, value });
const orgs: Record<string, unknown> = {
  acme: { name: 'acme', properties: { property: [property('features.hybrid.enabled', 'true'), property('features.mart.connect.enabled', 'true')] } },
  'acme-off': { name: 'acme-off', properties: { property: [property('features.hybrid.enabled', 'true'), property('features.mart.connect.enabled', 'false')] } },
  'acme-none': { name: 'acme-none', properties: { property: [] } },
  'acme-connect': { name: 'acme-connect', properties: { property: [property('features.mart.connect.enabled', 'true')] } },
};

function handle(req: IncomingMessage, res: ServerResponse): void {
  seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
  const m = /^\/v1\/organizations\/([^/?]+)$/.exec(req.url ?? '');
  if (req.headers.authorization !== `Bearer ${TOKEN}`) {
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":401,"message":"invalid credentials"}}');
    return;
  }
  const org = m ? orgs[decodeURIComponent(m[1]!)] : undefined;
  if (req.method !== 'GET' || !org) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404}}');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(org));
}

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'regolith-upgrade-'));
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  writeFileSync(join(dir, 'bad-token'), 'expired\n');
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  mgmtUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 300_000);

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, NO_COLOR: '1', MGMT_TOKEN: '', ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    p.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

interface Violation {
  step: string;
  key: string;
  message: string;
}

async function check(overrides: string, facts: string, org: string[]): Promise<{ r: Run; violations: Violation[] }> {
  const r = await run(['upgrade-check', '--format', 'json', '--cluster', join(FIX, facts), ...org, join(FIX, overrides)]);
  expect(r.stderr).toBe('');
  return { r, violations: (JSON.parse(r.stdout) as { violations: Violation[] }).violations };
}

const offline = (file: string) => ['--organization', join(FIX, file)];

describe('regolith upgrade-check', () => {
  it('exits 0 for a correct 1.3.6 overrides file and cluster, reading the organization through the management API', async () => {
    seen.length = 0;
    const r = await run(['upgrade-check', '--cluster', join(FIX, 'facts.yaml'), '--mgmt-url', mgmtUrl, '--token-file', join(dir, 'token'), join(FIX, 'overrides-1.3.6.yaml')]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('ready: no violations');
    expect(r.code).toBe(0);
    // the org comes from the overrides file; the token is sent as a bearer token
    expect(seen).toEqual([{ url: '/v1/organizations/acme', authorization: `Bearer ${TOKEN}` }]);
  });

  it('reads the token from MGMT_TOKEN and the organization from a file', async () => {
    const viaEnv = await run(['upgrade-check', '--cluster', join(FIX, 'facts.yaml'), '--mgmt-url', mgmtUrl, join(FIX, 'overrides-1.3.6.yaml')], { MGMT_TOKEN: TOKEN });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    const { r, violations } = await check('overrides-1.3.6.yaml', 'facts.yaml', offline('org.json'));
    expect(r.code).toBe(0);
    expect(violations).toEqual([]);
  });

  it('a broken file and cluster: every rule fires once, naming its step', async () => {
    const { r, violations } = await check('overrides-broken.yaml', 'facts-broken.yaml', offline('org-broken.json'));
    expect(r.code).toBe(1);
    const pairs = violations.map((v) => `${v.step} | ${v.key}`);
    expect(pairs).toEqual([
      'Requirements | cluster.platform_version',
      'Limits | instanceID',
      'Preparation 2 | organization.properties.features.mart.connect.enabled',
      'Preparation 5 | connectAgent.serviceAccountPath',
      'Preparation 5 | gcpRegion',
      'Preparation 5 | mart.hostAlias',
      'Preparation 5 | metrics.serviceAccountPath',
      'Preparation 5 | virtualhosts',
      'Preparation 5 | virtualhosts[0].hostAliases',
      'Preparation 5 | virtualhosts[0].routingRules',
      'Preparation 5 | virtualhosts[0].sslKeyPath',
      'Preparation 5 | watcher.serviceAccountPath',
      'Mesh and certificate manager 1 | cluster.autoscalers[istio-ingressgateway].min_replicas',
      'Mesh and certificate manager 1 | cluster.mesh_deployments[istiod].replicas',
      'Mesh and certificate manager 2 | cluster.mesh_version',
      'Mesh and certificate manager 3 | cluster.cert_manager_version',
      'Runtime installation 3 | cassandra.externalSeedHost',
    ]);
    expect(new Set(pairs).size).toBe(pairs.length);
    // the other rules, on keys missing rather than wrong
    const second = await check('overrides-broken-2.yaml', 'facts-broken-2.yaml', offline('org-other.json'));
    expect(second.r.code).toBe(1);
    expect(second.violations.map((v) => `${v.step} | ${v.key}`)).toEqual([
      'Requirements | cluster.attached_to_enterprise',
      'Preparation 2 | org',
      'Preparation 4 | virtualhosts',
      'Preparation 5 | gcp.region',
      'Preparation 5 | instanceID',
      'Runtime installation 3 | cassandra.externalSeedHost',
      'Runtime installation 4 | cluster.orchestrator_version',
    ]);
    const steps = new Set([...violations, ...second.violations].map((v) => v.step));
    expect([...steps].sort()).toEqual(
      [
        'Limits',
        'Mesh and certificate manager 1',
        'Mesh and certificate manager 2',
        'Mesh and certificate manager 3',
        'Preparation 2',
        'Preparation 4',
        'Preparation 5',
        'Requirements',
        'Runtime installation 3',
        'Runtime installation 4',
      ].sort(),
    );
    for (const v of [...violations, ...second.violations]) expect(v.message, v.key).not.toBe('');
  });

  it('pretty output is a table of step, key and message', async () => {
    const r = await run(['upgrade-check', '--cluster', join(FIX, 'facts-broken.yaml'), '--organization', join(FIX, 'org-broken.json'), join(FIX, 'overrides-broken.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\|\s+Step\s+\|\s+Key\s+\|\s+Message\s+\|/);
    expect(r.stdout).toMatch(/\| Limits +\| instanceID +\| instanceID has 64 characters: at most 63/);
    expect(r.stdout).toContain('17 violations: not ready to upgrade');
  });

  it('instanceID: 63 characters pass, 64 fail (Limits)', async () => {
    const good = readFileSync(join(FIX, 'overrides-1.3.6.yaml'), 'utf8');
    for (const [n, expected] of [
      [63, []],
      [64, ['Limits | instanceID']],
    ] as const) {
      writeFileSync(join(dir, `id-${n}.yaml`), good.replace('instanceID: acme-hybrid-1', `instanceID: ${'i'.repeat(n)}`));
      const r = await run(['upgrade-check', '--format', 'json', '--cluster', join(FIX, 'facts.yaml'), '--organization', join(FIX, 'org.json'), join(dir, `id-${n}.yaml`)]);
      const vs = (JSON.parse(r.stdout) as { violations: Violation[] }).violations;
      expect(vs.map((v) => `${v.step} | ${v.key}`)).toEqual(expected);
      expect(r.code).toBe(expected.length ? 1 : 0);
    }
  });

  it('an organization with only the connect property is ready; --phase after wants externalSeedHost removed (issue 29)', async () => {
    const ready = await run(['upgrade-check', '-f', 'json', '--cluster', join(FIX, 'facts.yaml'), '--mgmt-url', mgmtUrl, '--org', 'acme-connect', '--token-file', join(dir, 'token'), join(FIX, 'overrides-1.3.6.yaml')]);
    const vs = (JSON.parse(ready.stdout) as { violations: Violation[] }).violations;
    expect(vs.map((v) => v.key)).toEqual(['org']); // --org differs from the overrides file's org, nothing else
    const after = await run(['upgrade-check', '-f', 'json', '--phase', 'after', '--cluster', join(FIX, 'facts.yaml'), '--organization', join(FIX, 'org.json'), join(FIX, 'overrides-1.3.6.yaml')]);
    expect(after.code, after.stderr).toBe(1);
    expect((JSON.parse(after.stdout) as { violations: Violation[] }).violations.map((v) => `${v.step} | ${v.key}`)).toEqual(['Runtime installation 6 | cassandra.externalSeedHost']);
    const bad = await run(['upgrade-check', '--phase', 'later', '--cluster', join(FIX, 'facts.yaml'), '--organization', join(FIX, 'org.json'), join(FIX, 'overrides-1.3.6.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid argument "later" for "--phase" flag: must be one of {before, after}');
  });

  it('organization properties false or missing (read through the management API)', async () => {
    const cases: [string, string[]][] = [
      ['acme-off', ['features.mart.connect.enabled is false']],
      ['acme-none', ['features.mart.connect.enabled is not set']],
    ];
    for (const [org, messages] of cases) {
      const r = await run(['upgrade-check', '-f', 'json', '--cluster', join(FIX, 'facts.yaml'), '--mgmt-url', mgmtUrl, '--org', org, '--token-file', join(dir, 'token'), join(FIX, 'overrides-1.3.6.yaml')]);
      expect(r.code, r.stderr).toBe(1);
      const vs = (JSON.parse(r.stdout) as { violations: Violation[] }).violations;
      // --org differs from the overrides file's org: that is reported too
      expect(vs.filter((v) => v.key !== 'org').map((v) => v.step)).toEqual(messages.map(() => 'Preparation 2'));
      for (const m of messages) expect(vs.some((v) => v.message.includes(m)), m).toBe(true);
      expect(vs.find((v) => v.key === 'org')?.message).toContain(`"${org}"`);
    }
  });

  it('exits 2 with a clear message on errors', async () => {
    const base = ['upgrade-check', '--cluster', join(FIX, 'facts.yaml')];
    const good = join(FIX, 'overrides-1.3.6.yaml');
    // a port nothing listens on
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const cases: [string[], RegExp, Record<string, string>?][] = [
      [[...base, '--mgmt-url', mgmtUrl, '--token-file', join(dir, 'bad-token'), good], /401 Unauthorized: the token was refused/],
      [[...base, '--mgmt-url', mgmtUrl, good], /no access token for the management API: give --token-file FILE or set MGMT_TOKEN/],
      [[...base, '--mgmt-url', mgmtUrl, '--org', 'initech', good], /404: organization "initech" not found/, { MGMT_TOKEN: TOKEN }],
      [[...base, '--mgmt-url', `http://127.0.0.1:${closedPort}`, good], /connection refused/, { MGMT_TOKEN: TOKEN }],
      [[...base, '--mgmt-url', 'not a url', good], /--mgmt-url: invalid URL/, { MGMT_TOKEN: TOKEN }],
      [[...base, good], /give --mgmt-url URL .* or --organization org\.json/],
      [['upgrade-check', '--organization', join(FIX, 'org.json'), good], /give --cluster facts\.yaml/],
      [[...base, '--organization', join(FIX, 'org.json'), 'missing.yaml'], /overrides file missing\.yaml: no such file/],
      [[...base, '--organization', join(FIX, 'org.json'), '--format', 'xml', good], /--format/],
    ];
    for (const [args, message, env] of cases) {
      const r = await run(args, env);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
  }, 60_000);

  it('the shipped runtime-upgrade policy passes its own tests', () => {
    const r = regolith(['test', join(ROOT, 'policies/runtime-upgrade')]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASS: \d+\/\d+/);
  });
});

describe('regolith upgrade-plan', () => {
  const OLD = join(FIX, 'overrides-1.2.yaml');

  it('rewrites the 1.2 file to the new keys, keeping the comments', async () => {
    const out = join(dir, 'new.yaml');
    const r = await run(['upgrade-plan', '--out', out, '--env-group', 'default=prod-group', '--seed-host', '10.0.0.11', '--instance-id', 'acme-hybrid-1', '--watcher-sa', './sa/watcher.json', OLD]);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    for (const old of ['gcpRegion', 'gcpProjectID', 'gcpProjectIDRuntime', 'k8sClusterName', 'k8sClusterRegion']) {
      expect(text, old).not.toMatch(new RegExp(`^${old}:`, 'm'));
    }
    for (const gone of ['hostAliases', 'routingRules', 'hostAlias:', 'mart.acme.example', 'mart.pem', 'mart.key']) expect(text, gone).not.toContain(gone);
    expect(text).toMatch(/^gcp:\n {2}region: us-central1 # region of the control plane\n {2}projectID: acme-prod\n {2}# logs and metrics go to a separate project\n {2}gcpProjectIDRuntime: acme-logs\nk8sCluster:\n {2}name: hybrid-1\n {2}region: us-central1\n/m);
    // every comment of the old file is still there
    for (const line of readFileSync(OLD, 'utf8').split('\n')) {
      const c = /#.*$/.exec(line)?.[0];
      if (c) expect(text, c).toContain(c);
    }
    expect(text).toContain('instanceID: acme-hybrid-1');
    // a comment before a deleted key moves to the next key (or the end of its mapping)
    expect(text).toMatch(/virtualhosts:\n {2}- name: prod-group\n {4}sslCertPath: \.\/certs\/api\.pem # wildcard certificate\n {4}sslKeyPath: \.\/certs\/api\.key\n {4}# base paths routed to environments\n/);
    expect(text).toMatch(/mart:\n {2}# MART ingress\n {2}serviceAccountPath: \.\/sa\/mart\.json # MART account\nconnectAgent:\n {2}serviceAccountPath: \.\/sa\/mart\.json\n/);
    expect(text).toMatch(/watcher:\n {2}serviceAccountPath: \.\/sa\/watcher\.json/);
    expect(text).toMatch(/cassandra:\n {2}hostNetwork: false\n {2}externalSeedHost: 10\.0\.0\.11/);
    expect(r.stdout).toContain('renamed gcpRegion to gcp.region');
    expect(r.stdout).toContain(`edit the overrides file (written to ${out})`);
    // the rewritten file passes the checker once its one virtual host is the only group
    const c = await run(['upgrade-check', '--cluster', join(FIX, 'facts.yaml'), '--organization', join(FIX, 'org.json'), out]);
    expect(c.stdout).toContain('environment group "test-group" has no virtualhosts entry');
    expect(c.stdout).toContain('1 violation: not ready to upgrade');
    const facts = join(dir, 'facts-one-group.yaml');
    writeFileSync(facts, readFileSync(join(FIX, 'facts.yaml'), 'utf8').replace('[prod-group, test-group]', '[prod-group]'));
    const ok = await run(['upgrade-check', '--cluster', facts, '--organization', join(FIX, 'org.json'), out]);
    expect(ok.stdout + ok.stderr).toContain('ready: no violations');
    expect(ok.code).toBe(0);
  });

  it('leaves TODO placeholders for the values it cannot know', async () => {
    const r = await run(['upgrade-plan', OLD]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Rewritten overrides file (not saved: give --out FILE or --write)');
    expect(r.stdout).toMatch(/# TODO\(upgrade 1\.3\.6\): a unique installation identifier, at most 63 characters\ninstanceID: ""/);
    expect(r.stdout).toContain('- TODO cassandra.externalSeedHost: the address of one existing datastore node');
    expect(r.stdout).toContain('$ <ctl> init -f <overrides_file>');
  });

  it('prints the ordered, numbered plan with the exact commands', async () => {
    const out = join(dir, 'plan.yaml');
    const r = await run(['upgrade-plan', '--out', out, '--cluster', join(FIX, 'facts.yaml'), '--ctl', 'ctl', '--mgmt-url', mgmtUrl, OLD]);
    expect(r.code, r.stderr).toBe(0);
    const numbered = r.stdout.split('\n').filter((l) => /^\s*\d+\. /.test(l));
    expect(numbered.map((l) => Number(/^\s*(\d+)\./.exec(l)![1]))).toEqual(Array.from({ length: numbered.length }, (_, i) => i + 1));
    const titles = numbered.map((l) => l.replace(/^\s*\d+\. /, '').split(/[:(]/)[0]!.trim());
    expect(titles).toEqual([
      'Preparation 1',
      'Preparation 2',
      'Preparation 3',
      'Preparation 4',
      'Preparation 5',
      'Mesh and certificate manager 1',
      'Mesh and certificate manager 2',
      'Mesh and certificate manager 3',
      'Runtime installation 1',
      'Runtime installation 2',
      'Runtime installation 3',
      'Runtime installation 4',
      'Runtime installation 5',
      'Runtime installation 6',
      'Cleanup',
      'Cleanup',
      'Cleanup',
      'Cleanup',
    ]);
    const commands = r.stdout
      .split('\n')
      .filter((l) => l.trim().startsWith('$ ctl'))
      .map((l) => l.trim().slice(2));
    expect(commands).toEqual([
      `ctl init -f ${out}`,
      `ctl apply -f ${out} --dry-run=client`,
      `ctl apply -f ${out} --datastore`,
      `ctl check-ready -f ${out}`,
      `ctl apply -f ${out} --telemetry`,
      `ctl check-ready -f ${out}`,
      `ctl apply -f ${out} --org`,
      `ctl check-ready -f ${out}`,
      `ctl apply -f ${out} --env prod`,
      `ctl check-ready -f ${out}`,
      `ctl apply -f ${out} --env test`,
      `ctl check-ready -f ${out}`,
      `ctl apply -f ${out} --datastore`,
    ]);
    expect(r.stdout).toContain(`$ curl -H "Authorization: Bearer $TOKEN" ${mgmtUrl}/v1/organizations/acme`);
    expect(r.stdout).toContain('cert-manager, cert-manager-cainjector and cert-manager-webhook');
    expect(r.stdout).toContain('mart, connect-agent, synchronizer, runtime, udca, metrics, logger');
    // --all-envs and demo
    const all = await run(['upgrade-plan', '--out', out, '--orchestrator-version', '1.18', '--ctl', 'ctl', '--all-envs', OLD]);
    expect(all.stdout).toContain(`$ ctl apply -f ${out} --all-envs`);
    expect(all.stdout).not.toContain('--env prod');
    const demo = await run(['upgrade-plan', '--out', out, '--orchestrator-version', '1.18', '--ctl', 'ctl', '--demo', OLD]);
    const demoCommands = demo.stdout
      .split('\n')
      .filter((l) => l.trim().startsWith('$ ctl'))
      .map((l) => l.trim().slice(2));
    expect(demoCommands).toEqual([`ctl init -f ${out}`, `ctl apply -f ${out} --dry-run=client`, `ctl apply -f ${out}`, `ctl check-ready -f ${out}`, `ctl apply -f ${out} --datastore`]);
  });

  it('chooses the dry-run flag by the orchestrator version', async () => {
    const flag = async (args: string[]) => {
      const r = await run(['upgrade-plan', '--out', join(dir, 'dry.yaml'), ...args, OLD]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.split('\n').filter((l) => l.includes('--dry-run')).map((l) => l.trim());
    };
    expect(await flag(['--orchestrator-version', '1.17.9'])).toEqual([expect.stringMatching(/apply -f \S+ --dry-run=true$/), '(orchestrator CLI 1.17.9: --dry-run=true)']);
    expect(await flag(['--orchestrator-version', 'v1.18.0'])).toEqual([expect.stringMatching(/apply -f \S+ --dry-run=client$/), '(orchestrator CLI v1.18.0: --dry-run=client)']);
    writeFileSync(join(dir, 'facts-117.yaml'), 'orchestrator_version: 1.17\n');
    expect((await flag(['--cluster', join(dir, 'facts-117.yaml')]))[0]).toMatch(/--dry-run=true$/);
    // 1.20 unquoted stays 1.20 (not the number 1.2)
    writeFileSync(join(dir, 'facts-120.yaml'), 'orchestrator_version: 1.20\n');
    expect((await flag(['--cluster', join(dir, 'facts-120.yaml')]))[0]).toMatch(/--dry-run=client$/);
    // unknown: both, each with its condition
    const both = await flag([]);
    expect(both[0]).toMatch(/--dry-run=true {5}# orchestrator CLI 1\.17 and lower$/);
    expect(both[1]).toMatch(/--dry-run=client {3}# orchestrator CLI 1\.18 and higher$/);
  });

  it('is idempotent: an already-new file is left unchanged', async () => {
    const once = join(dir, 'once.yaml');
    const twice = join(dir, 'twice.yaml');
    await run(['upgrade-plan', '--out', once, OLD]);
    const r = await run(['upgrade-plan', '--out', twice, once]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(twice, 'utf8')).toBe(readFileSync(once, 'utf8'));
    expect(r.stdout).toContain('nothing to change: the file already has the 1.3.6 keys');
    // TODO placeholders left by the first run are still listed
    expect(r.stdout).toContain('- TODO instanceID');
    // --write on a 1.3.6 file: byte for byte, no backup
    const inPlace = join(dir, 'in-place.yaml');
    copyFileSync(join(FIX, 'overrides-1.3.6.yaml'), inPlace);
    const w = await run(['upgrade-plan', '--write', inPlace]);
    expect(w.code, w.stderr).toBe(0);
    expect(readFileSync(inPlace, 'utf8')).toBe(readFileSync(join(FIX, 'overrides-1.3.6.yaml'), 'utf8'));
    expect(existsSync(`${inPlace}.bak`)).toBe(false);
  });

  it('--write replaces the file and keeps the original as .bak', async () => {
    const f = join(dir, 'write.yaml');
    copyFileSync(OLD, f);
    const r = await run(['upgrade-plan', '--write', f]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(`${f}.bak`, 'utf8')).toBe(readFileSync(OLD, 'utf8'));
    expect(readFileSync(f, 'utf8')).toContain('gcp:\n  region: us-central1');
    expect(r.stdout).toContain(`$ <ctl> init -f ${f}`);
  });

  it('exits 2 on errors', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'gcpRegion: [unclosed\n');
    writeFileSync(join(dir, 'list.yaml'), '- a\n- b\n');
    const cases: [string[], RegExp][] = [
      [['upgrade-plan', 'missing.yaml'], /overrides file missing\.yaml: no such file/],
      [['upgrade-plan', join(dir, 'bad.yaml')], /bad\.yaml/],
      [['upgrade-plan', join(dir, 'list.yaml')], /not a mapping/],
      [['upgrade-plan', '--out', 'x.yaml', '--write', OLD], /--out FILE or --write, not both/],
      [['upgrade-plan', '--env-group', 'default', OLD], /expected OLD_VIRTUALHOST=ENVIRONMENT_GROUP/],
      [['upgrade-plan', '--instance-id', 'x'.repeat(64), OLD], /--instance-id has 64 characters: at most 63/],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
  });
});

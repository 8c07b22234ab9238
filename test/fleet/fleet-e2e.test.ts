// A fleet, end to end, from the parts users run: three `regolith run --server` processes
// behind Debian's nginx as the load balancer, one OCI registry (Debian's docker-registry)
// they pull the bundle from, one decision-log collector (./fleet.ts). Revision 2 is pushed
// while a load runs through the balancer: every replica converges within its polling
// window, no request fails during the rollover, each replica's /v1/status shows the
// revision, and the collector receives every decision exactly once. Prints convergence
// time per replica and the requests served during the rollover. Skipped, with the reason
// printed, only when nginx or docker-registry is missing (.ci/run installs both).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/helpers.js';
import { waitFor } from '../loopback.js';
import { converged, MISSING, startFleet, startLoad, type Fleet } from './fleet.js';

if (MISSING) console.log(`fleet end-to-end test skipped: ${MISSING}`);

const REPLICAS = 3;

describe.skipIf(!!MISSING)('a fleet of replicas behind nginx, fed by one registry, logging to one collector', () => {
  let fleet: Fleet | undefined;

  // waits for the build, which others may be running: minutes on a loaded machine
  beforeAll(() => ensureBuilt(), 900_000);
  beforeAll(async () => {
    fleet = await startFleet({ replicas: REPLICAS });
  }, 120_000);

  afterAll(async () => {
    await fleet?.stop();
  }, 120_000);

  it('rolls revision 2 out to every replica with no failed request, and logs every decision exactly once', async () => {
    const f = fleet!;
    const load = startLoad(f.lb, 6);
    const answers = load.answers;
    await new Promise((r) => setTimeout(r, 500));

    const pushedAt = Date.now();
    await f.push('r2');
    const convergedMs: number[] = [];
    await Promise.all(f.replicas.map(async (_, i) => (convergedMs[i] = (await converged(f, i, 'r2', 20_000)) - pushedAt)));
    const allAt = Date.now();
    await new Promise((r) => setTimeout(r, 500));
    await load.stop();

    const during = answers.filter((a) => a.t >= pushedAt && a.t <= allAt);
    console.log(`fleet: convergence after the push, per replica: ${convergedMs.map((ms, i) => `r${i} ${ms} ms`).join(', ')}; ${during.length} requests served during the rollover (${answers.length} in all)`);
    // polling window: max_delay_seconds 2, plus the download and activation
    for (const ms of convergedMs) expect(ms).toBeLessThan(5_000);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.every((a) => a.revision === 'r1' || a.revision === 'r2')).toBe(true);
    // after every replica reported r2, nobody answers r1
    expect(answers.filter((a) => a.t > allAt && a.revision !== 'r2')).toEqual([]);
    expect(during.length).toBeGreaterThan(0);

    const ids = answers.map((a) => a.id!);
    expect(new Set(ids).size).toBe(ids.length);
    await waitFor('every decision at the collector', () => f.events.length >= ids.length, 15_000);
    await new Promise((r) => setTimeout(r, 1500)); // a late duplicate would arrive by now
    const logged = f.events.map((e) => e['decision_id'] as string);
    expect(logged.length).toBe(ids.length);
    expect(new Set(logged)).toEqual(new Set(ids));
    // each event names the revision that decided it and the replica that logged it
    const byId = new Map(f.events.map((e) => [e['decision_id'], e]));
    for (const a of answers) {
      const e = byId.get(a.id)!;
      expect(e['bundles']).toEqual({ fleet: { revision: a.revision } });
      expect(e['labels']['replica']).toMatch(/^r[0-2]$/);
    }
    expect(new Set(f.events.map((e) => e['labels']['replica'])).size).toBe(REPLICAS);
  }, 90_000);
});

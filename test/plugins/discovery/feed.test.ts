// The console's decision feed under discovery follows the decision log plugin of the
// moment: events reach its listeners once logging is turned on by a configuration, stop
// while it is off, and come again when it is back.

import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RegolithEngine } from '../../../src/engine/store-engine.js';
import { validateConfig } from '../../../src/plugins/config/index.js';
import { followingFeed } from '../../../src/plugins/discovery/feed.js';
import { PluginManager } from '../../../src/plugins/manager.js';
import { fastTiming } from '../../loopback.js';

let manager: PluginManager | undefined;
afterEach(async () => manager?.stop());

const decision = (id: string) => ({ decision_id: id, path: 'p', timestamp: new Date().toISOString() }) as never;
const logsOn = () => validateConfig({ decision_logs: { console: true } });

describe('followingFeed', () => {
  it('follows decision logging as configurations turn it on and off', async () => {
    manager = new PluginManager({ config: validateConfig({}), engine: new RegolithEngine(), timing: fastTiming(20), console: pino({ level: 'silent' }) });
    await manager.start();
    const feed = followingFeed(manager);
    const seen: string[] = [];
    const unsubscribe = feed.subscribe((e) => seen.push(JSON.parse(e).decision_id));
    expect(feed.recent(10)).toEqual([]);

    await manager.reconfigure(logsOn());
    await manager.decisionLogs!.logDecision(decision('one'));
    expect(seen).toEqual(['one']);
    expect(feed.recent(10).map((e) => JSON.parse(e).decision_id)).toEqual(['one']);

    await manager.reconfigure(validateConfig({}));
    expect(feed.recent(10)).toEqual([]);

    await manager.reconfigure(logsOn());
    await manager.decisionLogs!.logDecision(decision('two'));
    expect(seen).toEqual(['one', 'two']);

    unsubscribe();
    await manager.decisionLogs!.logDecision(decision('three'));
    expect(seen).toEqual(['one', 'two']);
  });
});

// The plugins `regolith run` starts from the configuration. Until src/plugins has a plugin
// manager, this wires what exists: the bundle plugin (service clients, store activation,
// persistence) and its health state. decision_logs and status sections are accepted but
// have no plugin yet: a warning says so.

import type { Logger } from 'pino';
import type { Config } from '../plugins/config/index.js';
import { BundlePlugin } from '../plugins/bundles/plugin.js';
import { StoreActivator } from '../plugins/bundles/activate.js';
import { BundlePersistence, defaultPersistenceDir } from '../plugins/bundles/persist.js';
import { ServiceClient } from '../plugins/services/client.js';
import type { PluginStatus } from '../server/index.js';
import type { Store } from '../storage/index.js';
import type { RegoVersion } from '../index.js';

export interface RunningPlugins {
  pluginStatus: () => Record<string, PluginStatus | undefined>;
  stop(): Promise<void>;
}

export async function startPlugins(o: { config: Config; store: Store; logger: Logger; regoVersion: RegoVersion }): Promise<RunningPlugins> {
  const { config, logger } = o;
  for (const section of ['decision_logs', 'status'] as const) {
    if (config[section]) logger.warn({ plugin: section }, `The ${section} plugin is not available in this build yet; its configuration is ignored.`);
  }
  if (Object.keys(config.bundles).length === 0) return { pluginStatus: () => ({}), stop: async () => {} };

  const clients = new Map<string, ServiceClient>();
  for (const [name, svc] of Object.entries(config.services)) clients.set(name, new ServiceClient(svc));
  const plugin = new BundlePlugin({
    config,
    clients,
    activator: new StoreActivator(o.store, { regoVersion: o.regoVersion }),
    persistence: new BundlePersistence(config.persistence_directory ?? defaultPersistenceDir()),
    logger,
  });
  // Downloads go on in the background; /health reports NOT_READY until the first activation.
  await plugin.start();
  return {
    pluginStatus: () => ({ bundle: plugin.status() }),
    stop: () => plugin.stop(),
  };
}

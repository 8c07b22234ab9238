// Envoy external authorization over gRPC: OPA's envoy_ext_authz_grpc plugin, configured
// under plugins.envoy_ext_authz_grpc (README.md beside this file; docs/envoy.md).
// Registered by src/integrations/index.ts; this module stays light (no gRPC) so that
// registering it costs start-up nothing.

import type { PluginType } from '../../plugins/plugin-types.js';
import { PLUGIN_NAME, validateEnvoy, type EnvoySettings } from './config.js';
import { EnvoyPlugin } from './plugin.js';

export { PLUGIN_NAME, EnvoyPlugin };

export const envoyExtAuthzGrpc: PluginType<EnvoySettings> = {
  validate: (raw, key) => validateEnvoy(raw, key),
  create: (settings, ctx) => new EnvoyPlugin(settings, ctx),
};

// The integrations Regolith ships, one room per outside API, each under the adapter type
// name a configuration gives it (`adapters.<name>.type`). The adapter mechanism
// (src/plugins/adapters/) knows none of them: registerIntegrations() hands them to it, and the
// runtime calls it before it reads a configuration.

import { registerAdapterType } from '../plugins/adapters/registry.js';
import type { AdapterType } from '../plugins/adapters/types.js';
import { directory } from './directory/index.js';
import { packageInsights } from './package-insights/index.js';
import { buildPipeline } from './build-pipeline/index.js';
import { pipelineWebhook } from './build-pipeline/webhook.js';
import { crashReport } from './crash-reports/index.js';
import { drive } from './file-storage/index.js';
import { calendar } from './calendar/index.js';
import { deploymentManager } from './deployment-manager/index.js';
import { registerPluginType } from '../plugins/plugin-types.js';
import { PLUGIN_NAME as ENVOY, envoyExtAuthzGrpc } from './envoy/index.js';

export const INTEGRATIONS: Record<string, AdapterType> = {
  directory: directory as AdapterType,
  package_insights: packageInsights as AdapterType,
  build_pipeline: buildPipeline as AdapterType,
  pipeline_webhook: pipelineWebhook as AdapterType,
  crash_report: crashReport as AdapterType,
  drive: drive as AdapterType,
  calendar: calendar as AdapterType,
  deployment_manager: deploymentManager as AdapterType,
};

/** Registers every shipped integration's adapter type and plugin type (idempotent). */
export function registerIntegrations(): void {
  for (const [name, type] of Object.entries(INTEGRATIONS)) registerAdapterType(name, type);
  // plugins.<name>: the plugins integrations bring (OPA's Envoy plugin)
  registerPluginType(ENVOY, envoyExtAuthzGrpc);
}

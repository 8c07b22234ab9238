// The adapter types a configuration may name.

import type { AdapterType } from './types.js';
import { directory } from './directory/index.js';
import { packageInsights } from './insights/index.js';
import { buildPipeline } from './pipeline/index.js';
import { pipelineWebhook } from './pipeline/webhook.js';
import { crashReport } from './crash/index.js';
import { drive } from './drive/index.js';
import { calendar } from './calendar/index.js';
import { deploymentManager } from './deployments/index.js';

export const ADAPTER_TYPES: Record<string, AdapterType> = {
  directory: directory as AdapterType,
  package_insights: packageInsights as AdapterType,
  build_pipeline: buildPipeline as AdapterType,
  pipeline_webhook: pipelineWebhook as AdapterType,
  crash_report: crashReport as AdapterType,
  drive: drive as AdapterType,
  calendar: calendar as AdapterType,
  deployment_manager: deploymentManager as AdapterType,
};

// The adapter types a configuration may name.

import type { AdapterType } from './types.js';
import { packageInsights } from './insights/index.js';
import { buildPipeline } from './pipeline/index.js';
import { pipelineWebhook } from './pipeline/webhook.js';

export const ADAPTER_TYPES: Record<string, AdapterType> = {
  package_insights: packageInsights as AdapterType,
  build_pipeline: buildPipeline as AdapterType,
  pipeline_webhook: pipelineWebhook as AdapterType,
};

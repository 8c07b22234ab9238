// Terraform plans (`terraform show -json` output) of ~10 KB: planned values, resource
// changes, the configuration and the prior state, as Terraform writes them. The policy
// reads only resource_changes[*].change.actions, .type and .address.

import { rng } from '../lib/stats.js';

const TYPES = ['aws_instance', 'aws_s3_bucket', 'aws_security_group', 'aws_iam_role', 'aws_db_instance', 'aws_lambda_function', 'aws_kms_key', 'aws_route53_record'];
const ACTIONS: string[][] = [['create'], ['update'], ['delete'], ['no-op'], ['delete', 'create'], ['create', 'delete'], ['read']];

function attrs(r: () => number, type: string, i: number): Record<string, unknown> {
  return {
    arn: `arn:aws:${type.split('_')[1]}:eu-west-1:123456789012:${type}/${i}-${Math.floor(r() * 1e6)}`,
    id: `${type}-${i}`,
    tags: { team: ['payments', 'search', 'infra'][i % 3], env: 'prod', cost_center: String(1000 + i) },
    instance_type: i % 2 ? 't3.micro' : 'm5.large',
    ami: `ami-0${Math.floor(r() * 1e12).toString(16)}`,
    monitoring: r() < 0.5,
    root_block_device: [{ volume_size: 8 + (i % 4) * 8, volume_type: 'gp3', encrypted: true, iops: 3000 }],
  };
}

/** One plan of `n` resources (n = 8 gives ~10 KB), deterministic for a seed. */
export function terraformPlan(seed: number, n = 8): Record<string, unknown> {
  const r = rng(seed);
  const resources: Record<string, unknown>[] = [];
  const changes: Record<string, unknown>[] = [];
  const config: Record<string, unknown>[] = [];
  const prior: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const type = TYPES[Math.floor(r() * TYPES.length)]!;
    const name = `r${i}`;
    const address = `${type}.${name}`;
    const actions = ACTIONS[Math.floor(r() * ACTIONS.length)]!;
    const before = actions[0] === 'create' ? null : attrs(r, type, i);
    const after = actions.length === 1 && actions[0] === 'delete' ? null : attrs(r, type, i + 100);
    resources.push({ address, mode: 'managed', type, name, provider_name: 'registry.terraform.io/hashicorp/aws', schema_version: 1, values: after ?? {}, sensitive_values: { tags: {}, root_block_device: [{}] } });
    changes.push({ address, mode: 'managed', type, name, provider_name: 'registry.terraform.io/hashicorp/aws', change: { actions, before, after, after_unknown: { arn: true, id: actions[0] === 'create' }, before_sensitive: before ? {} : false, after_sensitive: after ? {} : false } });
    config.push({ address, mode: 'managed', type, name, provider_config_key: 'aws', expressions: { instance_type: { constant_value: 't3.micro' }, tags: { references: ['local.tags'] } }, schema_version: 1 });
    if (before) prior.push({ address, mode: 'managed', type, name, values: before });
  }
  return {
    format_version: '1.2',
    terraform_version: '1.6.6',
    planned_values: { root_module: { resources } },
    resource_changes: changes,
    prior_state: { format_version: '1.0', terraform_version: '1.6.6', values: { root_module: { resources: prior } } },
    configuration: { provider_config: { aws: { name: 'aws', full_name: 'registry.terraform.io/hashicorp/aws', expressions: { region: { constant_value: 'eu-west-1' } } } }, root_module: { resources: config } },
    timestamp: '2024-06-12T09:30:00Z',
  };
}

const PROTECTED = new Set(['aws_db_instance', 'aws_s3_bucket', 'aws_kms_key']);

interface Change {
  address: string;
  type: string;
  change: { actions: string[] };
}

/** The policy's `summary`, computed by hand from the text. */
export function terraformHandWritten(json: string): unknown {
  const plan = JSON.parse(json) as { resource_changes?: Change[] };
  const changes: Record<string, number> = { create: 0, update: 0, delete: 0 };
  const deny: string[] = [];
  for (const rc of plan.resource_changes ?? []) {
    for (const a of ['create', 'update', 'delete']) if (rc.change.actions.includes(a)) changes[a]!++;
    if (rc.change.actions.includes('delete') && PROTECTED.has(rc.type)) deny.push(`${rc.address} would be deleted`);
  }
  const total = changes['create']! + changes['update']! + changes['delete']!;
  if (total > 20) deny.push(`the plan changes ${total} resources (at most 20)`);
  return { changes, deny: [...new Set(deny)].sort() };
}

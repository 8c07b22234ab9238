import { abacScenario } from './abac.js';
import { gatewayScenario } from './gateway.js';
import { k8sScenario } from './k8s.js';
import { rbacScenario } from './rbac.js';
import type { Scenario } from './types.js';

export type { Scenario } from './types.js';
export { rbacScenario, abacScenario, k8sScenario, gatewayScenario };

export function allScenarios(): Scenario[] {
  return [rbacScenario(), abacScenario(), k8sScenario(), gatewayScenario()];
}

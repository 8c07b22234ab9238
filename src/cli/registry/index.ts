// The registry of subcommands. Each entry adds one subcommand (arguments, flags, help) to
// the program and returns it; the subcommand's code, in ../commands/, is imported only
// when it runs, so that start-up loads nothing a command does not use.

import type { Command } from 'commander';
import { registerBench } from './bench.js';
import { registerBuild } from './build.js';
import { registerCapabilities } from './capabilities.js';
import { registerCheck } from './check.js';
import { registerDepsCheck } from './deps-check.js';
import { registerEval } from './eval.js';
import { registerFmt } from './fmt.js';
import { registerInspect } from './inspect.js';
import { registerParse } from './parse.js';
import { registerPlaygroundSandbox } from './playground-sandbox.js';
import { registerReplay } from './replay.js';
import { registerRun } from './run.js';
import { registerTest } from './test.js';
import { registerUpgradeCheck, registerUpgradePlan } from './upgrade.js';
import { registerVersion } from './version.js';

export type RegisterCommand = (program: Command) => Command;

export const commands: RegisterCommand[] = [
  registerBench,
  registerBuild,
  registerCapabilities,
  registerCheck,
  registerDepsCheck,
  registerEval,
  registerFmt,
  registerInspect,
  registerParse,
  registerPlaygroundSandbox,
  registerReplay,
  registerRun,
  registerTest,
  registerUpgradeCheck,
  registerUpgradePlan,
  registerVersion,
];

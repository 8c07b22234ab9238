// The envoy_ext_authz_grpc plugin as the manager runs it. Nothing of gRPC is loaded until
// start(): a server that does not configure the plugin never reads @grpc/grpc-js, and one
// that does but lacks the package is told which to install.

import type { Plugin, PluginStatus } from '../../plugins/plugin.js';
import type { PluginContext } from '../../plugins/plugin-types.js';
import { PLUGIN_NAME, type EnvoySettings } from './config.js';
import type { RunningServer } from './serve.js';

const PACKAGES = '@grpc/grpc-js@1 @grpc/reflection@1';

export class EnvoyPlugin implements Plugin {
  readonly name = PLUGIN_NAME;
  private server?: RunningServer;
  private state: PluginStatus = { state: 'NOT_READY' };

  constructor(
    readonly settings: EnvoySettings,
    private readonly ctx: PluginContext,
  ) {}

  /** The port the server listens on (after start; useful with addr "host:0"). */
  get port(): number | undefined {
    return this.server?.port;
  }

  async start(): Promise<void> {
    let mod: typeof import('./serve.js');
    try {
      mod = await import('./serve.js');
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
        this.state = { state: 'ERROR', message: 'gRPC packages not installed' };
        throw new Error(`plugins.${PLUGIN_NAME} needs the gRPC packages, which are not installed: npm install ${PACKAGES} (beside regolith)`);
      }
      throw e;
    }
    this.server = await mod.serve(this.settings, this.ctx);
    this.state = { state: 'OK' };
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    this.state = { state: 'NOT_READY' };
    await s?.stop();
  }

  status(): PluginStatus {
    return this.state;
  }
}

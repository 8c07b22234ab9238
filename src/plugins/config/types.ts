// The typed form of OPA's configuration file, after validation and defaults. Field names
// follow the file (snake_case) so that a reader can match them to OPA's documentation.

import type { AdapterConfig } from '../adapters/config.js';
import type { TracingConfig } from '../tracing/config.js';

export interface BearerCredentials {
  token?: string;
  token_path?: string;
  scheme: string;
}

export interface OAuth2Credentials {
  grant_type: 'client_credentials';
  token_url: string;
  client_id: string;
  client_secret: string;
  scopes?: string[];
  additional_headers?: Record<string, string>;
  additional_parameters?: Record<string, string>;
}

export interface ClientTLSCredentials {
  cert: string;
  private_key: string;
  private_key_passphrase?: string;
}

export interface ServiceConfig {
  name: string;
  url: string;
  /** `oci`: an OCI registry (bundles are references, pulled with the distribution API). */
  type?: 'oci';
  headers: Record<string, string>;
  allow_insecure_tls: boolean;
  /** Seconds to wait for response headers; 0 means no limit. OPA's default is 10. */
  response_header_timeout_seconds: number;
  tls?: { ca_cert?: string; system_ca_required?: boolean };
  credentials: {
    bearer?: BearerCredentials;
    oauth2?: OAuth2Credentials;
    client_tls?: ClientTLSCredentials;
    /** AWS SigV4 (S3 and compatible stores); credentials from the environment. */
    s3_signing?: { environment_credentials: boolean; service: string };
  };
}

export interface KeyEntry {
  algorithm: string;
  key?: string;
  private_key?: string;
  scope?: string;
}

export interface PollingConfig {
  min_delay_seconds: number;
  max_delay_seconds: number;
  long_polling_timeout_seconds?: number;
}

export type Trigger = 'periodic' | 'manual';

export interface BundleSourceConfig {
  name: string;
  /** Undefined for a bundle read from a local file:// resource. */
  service?: string;
  resource: string;
  polling: PollingConfig;
  signing?: { keyid?: string; scope?: string; exclude_files?: string[] };
  persist: boolean;
  size_limit_bytes?: number;
  trigger: Trigger;
}

/** discovery: where the configuration bundle comes from and which decision gives the configuration. */
export interface DiscoveryConfig {
  /** The discovery bundle as a bundle source (its name: the persistence directory's name). */
  source: BundleSourceConfig & { service: string };
  /** The query whose value is the configuration: data, data.<decision> or data.<name>. */
  query: string;
  /** As written (undefined: not set), for trigger-mode inheritance by the discovered plugins. */
  trigger?: Trigger;
}

export interface DecisionLogsConfig {
  service?: string;
  resource: string;
  partition_name?: string;
  console: boolean;
  reporting: {
    min_delay_seconds: number;
    max_delay_seconds: number;
    upload_size_limit_bytes: number;
    /** Undefined: unbounded. */
    buffer_size_limit_bytes?: number;
    max_decisions_per_second?: number;
    trigger: Trigger;
  };
  mask_decision: string;
  drop_decision: string;
}

export interface StatusConfig {
  service?: string;
  partition_name?: string;
  console: boolean;
  prometheus: boolean;
  trigger: Trigger;
}

export interface Config {
  services: Record<string, ServiceConfig>;
  labels: Record<string, string>;
  keys: Record<string, KeyEntry>;
  bundles: Record<string, BundleSourceConfig>;
  decision_logs?: DecisionLogsConfig;
  status?: StatusConfig;
  discovery?: DiscoveryConfig;
  default_decision: string;
  default_authorization_decision: string;
  persistence_directory?: string;
  /** Data and event adapters (src/plugins/adapters), validated by their types. */
  adapters: Record<string, AdapterConfig>;
  plugins: Record<string, unknown>;
  /** builtins.modules: JavaScript modules of custom built-ins, loaded at start-up (Regolith's own key). */
  builtins?: string[];
  /** distributed_tracing, when its type turns it on (src/plugins/tracing/config.ts). */
  distributed_tracing?: TracingConfig;
  /** server.workers: worker processes of `regolith run --server` ('auto': one per core). */
  workers?: number | 'auto';
  /** The document as written (after ${ENV} and --set), for /v1/config and the server. */
  raw: Record<string, unknown>;
}

/** A configuration problem; the message names the offending key. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

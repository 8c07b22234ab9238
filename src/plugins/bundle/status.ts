// The status of one bundle as OPA reports it in status updates and /v1/status.

/** Go's zero time.Time as it marshals: what OPA shows for "never". */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

export interface BundleStatus {
  name: string;
  active_revision: string;
  last_successful_activation: string;
  type?: 'snapshot' | 'delta';
  size?: number;
  last_successful_download: string;
  last_successful_request: string;
  last_request: string;
  code?: string;
  http_code?: string;
  message?: string;
  errors?: string[];
  metrics: { timer_bundle_request_ns?: number };
}

export function newBundleStatus(name: string): BundleStatus {
  return {
    name,
    active_revision: '',
    last_successful_activation: ZERO_TIME,
    last_successful_download: ZERO_TIME,
    last_successful_request: ZERO_TIME,
    last_request: ZERO_TIME,
    metrics: {},
  };
}

export function setError(s: BundleStatus, message: string, errors?: string[], httpCode?: number): void {
  s.code = 'bundle_error';
  s.message = message;
  if (errors?.length) s.errors = errors;
  else delete s.errors;
  if (httpCode !== undefined) s.http_code = String(httpCode);
  else delete s.http_code;
}

export function clearError(s: BundleStatus): void {
  delete s.code;
  delete s.message;
  delete s.errors;
  delete s.http_code;
}

/** A deep copy for readers (status documents must not change under them). */
export function copyStatus(s: BundleStatus): BundleStatus {
  return JSON.parse(JSON.stringify(s)) as BundleStatus;
}

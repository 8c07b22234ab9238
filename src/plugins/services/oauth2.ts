// OAuth2 client-credentials tokens for a service: requested from token_url with the
// client id and secret (HTTP Basic), cached until shortly before they expire.

import type { OAuth2Credentials } from '../config/types.js';
import { rawRequest, ServiceRequestError, type TLSOptions } from './client.js';

/** Renew this long before the token's stated expiry, so requests never race it. */
const EXPIRY_MARGIN_MS = 10_000;

export class OAuth2TokenSource {
  private cached: { token: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;
  /** How many tokens were fetched (tests check caching). */
  fetched = 0;

  constructor(
    private readonly cfg: OAuth2Credentials,
    private readonly tls: () => TLSOptions,
    private readonly timeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  invalidate(): void {
    this.cached = undefined;
  }

  async token(): Promise<string> {
    if (this.cached && this.now() < this.cached.expiresAt) return this.cached.token;
    // Concurrent callers share one token request.
    this.pending ??= this.fetch().finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async fetch(): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.cfg.scopes?.length) form.set('scope', this.cfg.scopes.join(' '));
    for (const [k, v] of Object.entries(this.cfg.additional_parameters ?? {})) form.set(k, v);
    const basic = Buffer.from(`${encodeURIComponent(this.cfg.client_id)}:${encodeURIComponent(this.cfg.client_secret)}`).toString('base64');
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      authorization: `Basic ${basic}`,
      ...(this.cfg.additional_headers ?? {}),
    };
    const res = await rawRequest(this.cfg.token_url, 'POST', headers, Buffer.from(form.toString()), this.tls(), this.timeoutMs);
    this.fetched++;
    if (res.status !== 200) throw new ServiceRequestError(`error in oauth2 token request: status code ${res.status} from ${this.cfg.token_url}`);
    let doc: { access_token?: unknown; token_type?: unknown; expires_in?: unknown };
    try {
      doc = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new ServiceRequestError('error in oauth2 token request: response is not JSON');
    }
    if (typeof doc.access_token !== 'string' || !doc.access_token) throw new ServiceRequestError('error in oauth2 token request: no access_token in response');
    if (typeof doc.token_type === 'string' && doc.token_type.toLowerCase() !== 'bearer') {
      throw new ServiceRequestError(`error in oauth2 token request: unknown token type "${doc.token_type}"`);
    }
    const life = typeof doc.expires_in === 'number' ? doc.expires_in * 1000 : 3600_000;
    this.cached = { token: doc.access_token, expiresAt: this.now() + Math.max(0, life - EXPIRY_MARGIN_MS) };
    return doc.access_token;
  }
}

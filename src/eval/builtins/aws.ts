// providers.aws.sign_req: AWS Signature Version 4, as OPA's internal/providers/aws signer
// computes it (deterministic for a given signing time).

import crypto from 'node:crypto';
import { registerBuiltins } from './registry.js';
import { builtinError, operandError } from './errors.js';
import { isNumber, isPlainObject, newPlainObject, toDecimal, toJSONText, type PlainObject, type Value } from '../../value/index.js';

const IGNORED = new Set(['authorization', 'user-agent', 'x-amzn-trace-id']);

const sha256hex = (b: string | Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const hmac = (key: Buffer | string, data: string) => crypto.createHmac('sha256', key).update(data).digest();

function configString(cfg: PlainObject, key: string, required: boolean): string {
  const v = cfg[key];
  if (v === undefined) {
    if (required) throw builtinError(`invalid value for "aws_config" field: missing key "${key}"`);
    return '';
  }
  if (typeof v !== 'string') throw builtinError(`invalid value for "${key}" field: must be a string`);
  return v;
}

/** Go's URL.EscapedPath for an already-parsed URL path. */
function escapedPath(u: URL): string {
  return u.pathname === '' ? '/' : u.pathname;
}

function signReq(args: Value[]): Value {
  const [req, cfg, ts] = args as [Value, Value, Value];
  if (!isPlainObject(req)) throw operandError(1, 'object', req);
  if (!isPlainObject(cfg)) throw operandError(2, 'object', cfg);
  if (!isNumber(ts)) throw operandError(3, 'number', ts);
  const d = toDecimal(ts);
  const ns = d.exp >= 0 ? d.mant * 10n ** BigInt(d.exp) : d.mant / 10n ** BigInt(-d.exp);
  const accessKey = configString(cfg, 'aws_access_key', true);
  const secretKey = configString(cfg, 'aws_secret_access_key', true);
  const service = configString(cfg, 'aws_service', true);
  const region = configString(cfg, 'aws_region', true);
  const sessionToken = configString(cfg, 'aws_session_token', false);
  const unsigned = cfg.disable_payload_signing === true;

  if (typeof req.method !== 'string') throw builtinError('invalid value for "method" field: must be a string');
  if (typeof req.url !== 'string') throw builtinError('invalid value for "url" field: must be a string');
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    throw builtinError(`parse ${JSON.stringify(req.url)}: invalid URL`);
  }
  const headers: Record<string, string> = {};
  if (req.headers !== undefined) {
    if (!isPlainObject(req.headers)) throw builtinError('invalid value for "headers" field: must be an object');
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v !== 'string') throw builtinError(`invalid value for header "${k}": must be a string`);
      headers[k] = v;
    }
  }
  let body = '';
  if (typeof req.raw_body === 'string') body = req.raw_body;
  else if (req.body !== undefined && req.body !== null) body = toJSONText(req.body);

  const date = new Date(Number(ns / 1_000_000n));
  const iso = date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = iso.slice(0, 8);
  const contentSha = unsigned ? 'UNSIGNED-PAYLOAD' : sha256hex(body);
  const awsHeaders: Record<string, string> = { host: url.host, 'x-amz-date': iso };
  if (service === 's3' || service === 'glacier') awsHeaders['x-amz-content-sha256'] = contentSha;
  if (sessionToken) awsHeaders['x-amz-security-token'] = sessionToken;
  const toSign: Record<string, string> = { ...awsHeaders };
  for (const [k, v] of Object.entries(headers)) if (!IGNORED.has(k.toLowerCase())) toSign[k.toLowerCase()] = v;
  const keys = Object.keys(toSign).sort();
  const signedHeaders = keys.join(';');
  const canonical =
    req.method + '\n' + escapedPath(url) + '\n' + url.search.replace(/^\?/, '') + '\n' +
    keys.map((k) => `${k}:${toSign[k]}\n`).join('') + '\n' + signedHeaders + '\n' + contentSha;
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${iso}\n${scope}\n${sha256hex(canonical)}`;
  let key = hmac('AWS4' + secretKey, day);
  key = hmac(key, region);
  key = hmac(key, service);
  key = hmac(key, 'aws4_request');
  const signature = hmac(key, stringToSign).toString('hex');
  const out = newPlainObject();
  for (const k of Object.keys(req)) out[k] = req[k]!;
  const h = newPlainObject();
  for (const [k, v] of Object.entries(headers)) h[k] = v;
  h.Authorization = `AWS4-HMAC-SHA256 Credential=${accessKey}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`;
  for (const [k, v] of Object.entries(awsHeaders)) h[k] = v;
  out.headers = h;
  return out;
}

registerBuiltins([
  {
    name: 'providers.aws.sign_req',
    fn: signReq,
  },
]);

// Declarations of the crypto built-ins (implementations: src/eval/builtins/).

import { declareBuiltins } from './table.js';
import { T } from './types.js';

declareBuiltins([
  { name: "crypto.hmac.equal", decl: T.fn([T.string, T.string], T.boolean) },
  { name: "crypto.hmac.md5", decl: T.fn([T.string, T.string], T.string) },
  { name: "crypto.hmac.sha1", decl: T.fn([T.string, T.string], T.string) },
  { name: "crypto.hmac.sha256", decl: T.fn([T.string, T.string], T.string) },
  { name: "crypto.hmac.sha512", decl: T.fn([T.string, T.string], T.string) },
  { name: "crypto.md5", decl: T.fn([T.string], T.string) },
  { name: "crypto.parse_private_keys", decl: T.fn([T.string], T.array(T.object(T.string, T.any))) },
  { name: "crypto.sha1", decl: T.fn([T.string], T.string) },
  { name: "crypto.sha256", decl: T.fn([T.string], T.string) },
  { name: "crypto.x509.parse_and_verify_certificates", decl: T.fn([T.string], T.tuple([T.boolean, T.array(T.object(T.string, T.any))])) },
  { name: "crypto.x509.parse_and_verify_certificates_with_options", decl: T.fn([T.string, T.object(T.string, T.any)], T.tuple([T.boolean, T.array(T.object(T.string, T.any))])) },
  { name: "crypto.x509.parse_certificate_request", decl: T.fn([T.string], T.object(T.string, T.any)) },
  { name: "crypto.x509.parse_certificates", decl: T.fn([T.string], T.array(T.object(T.string, T.any))) },
  { name: "crypto.x509.parse_keypair", decl: T.fn([T.string, T.string], T.object(T.string, T.any)) },
  { name: "crypto.x509.parse_rsa_private_key", decl: T.fn([T.string], T.object(T.string, T.any)) },
]);

// OPA's bundle format: reading, validating, verifying, signing and writing bundles.
// Downloading and activation live elsewhere; this folder only knows the format.

export * from './types.js';
export { readBundle, readBundleFromBytes, readBundleEntries, type ReadOptions } from './read.js';
export { loadBundle, validateBundle, parseDataJSON, parseDataYAML, type LoadOptions } from './load.js';
export { readDirectoryEntries, readTarballEntries, DEFAULT_SIZE_LIMIT_BYTES, type BundleEntry } from './files.js';
export { writeBundle, packEntries, bundleEntries } from './write.js';
export { buildBundle, type BuildOptions } from './build.js';
export { mergeBundles } from './merge.js';
export { decodeManifest, manifestText, manifestDocument, manifestRoots, regoVersionForFile } from './manifest.js';
export { rootPathsContain, rootPathsOverlap, rootsOverlapMessage } from './roots.js';
export { hashBundleFile, canonicalJSON, isStructuredDoc } from './hash.js';
export { signBundleEntries, signFiles, fileInfos, signaturesFileText, SIGNATURES_FILE } from './sign.js';
export { verifyBundleSignature, verifyBundleFiles } from './verify.js';
export { DEFAULT_SIGNING_ALG } from './keys.js';
export { inspectBundle, type BundleInfo } from './inspect.js';

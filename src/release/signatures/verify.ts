/**
 * `release verify-signatures`: which signatures a release image has and whether they hold, both kinds at once.
 *
 * - GPG simple signing, as the cluster-version operator checks an update: keyrings and stores from the payload's
 *   own verifier ConfigMap (or `--keyring` / `--store`, each replacing its half); every keyring must have signed
 *   the release digest, in any store.
 * - Sigstore: the `sha256-<hex>.sig` manifest beside the image, each signature checked against the given keys.
 *
 * The digest checked is the one the reference names (a manifest list's own digest for a list), as a cluster is
 * told it. The identity a signature claims is reported, and compared only when an identity rule is given (the
 * operator never compares it). Nothing here prints: the report says what was found and whether the requirement
 * is met.
 */
import { readRegularFile } from '../../files/read.js';
import type { HttpClient } from '../../http/client.js';
import type { ImageSource } from '../../registry/types.js';
import { checkGpg } from './check-gpg.js';
import { checkOsImages, checkSigstore } from './check-sigstore.js';
import { readKeyring } from './gpg.js';
import type { IdentityCheck, Requirement, SignatureReport } from './report.js';
import { readPublicKey } from './sigstore.js';
import { type PayloadParts, readPayloadParts } from './verifier-config.js';

export { REQUIREMENTS } from './report.js';
export type { GpgSection, OsImageSignatures, Requirement, SignatureEntry, SignatureReport, SigstoreSection, Verdict } from './report.js';

export interface VerifySignaturesOptions {
  /** --keyring FILE (replaces the payload's keyrings). */
  keyringFiles?: string[];
  /** --store URL (replaces the payload's stores), parsed with parseStoreUrl. */
  stores?: URL[];
  /** --key FILE (sigstore public keys). */
  keyFiles?: string[];
  /** --os-images: also check the OS images' sigstore signatures, with these keys (--os-key, else --key). */
  osImages?: boolean;
  osKeyFiles?: string[];
  require?: Requirement;
  /** Compare identities: the rule, and the name the image is compared as (undefined: it has none). */
  identity?: IdentityCheck;
  filterByOs?: string;
  /** Opens the .sig manifest (the command's registry flags apply). */
  open: (ref: string) => Promise<ImageSource>;
  client?: HttpClient;
}

export async function verifyReleaseSignatures(image: string, source: ImageSource, opts: VerifySignaturesOptions): Promise<SignatureReport> {
  const require = opts.require ?? 'any';
  const keyFiles = opts.keyFiles ?? [];
  const keyringFiles = opts.keyringFiles ?? [];
  const storeUrls = opts.stores ?? [];
  // Read what was given before any network, so a bad file fails at once.
  const keys = await Promise.all(keyFiles.map(readPublicKey));
  const osKeys = opts.osKeyFiles?.length ? await Promise.all(opts.osKeyFiles.map(readPublicKey)) : keys;
  const fileKeyrings = await Promise.all(keyringFiles.map(async (f) => readKeyring(f, await readRegularFile(f, 1024 * 1024), f)));
  const digest = (await source.manifest()).digest;
  const report: SignatureReport = {
    image,
    digest,
    require,
    ...(opts.identity
      ? { identityRule: { rule: opts.identity.ruleText, ...(opts.identity.image ? { image: opts.identity.image } : {}) } }
      : {}),
    gpg: { keyringsFrom: 'none', storesFrom: 'none', keyrings: [], stores: [], met: false, checked: false },
    sigstore: {
      found: false,
      keys: keys.map(({ file, fingerprint, kind }) => ({ file, fingerprint, kind })),
      skippedLayers: 0,
      met: false,
      checked: false,
    },
    signatures: [],
    met: false,
  };
  const wantGpg = require !== 'sigstore' || keyringFiles.length > 0 || storeUrls.length > 0;
  const wantSigstore = require !== 'gpg' || keyFiles.length > 0;
  // release-manifests/ is walked once, when GPG or the OS images need it; manifests/ (which means every layer) only
  // when the payload's verifier is used, i.e. unless --keyring and --store both replace it.
  const verifier = wantGpg && (keyringFiles.length === 0 || storeUrls.length === 0);
  let parts: Promise<PayloadParts> | undefined;
  const payload = () => {
    parts ??= readPayloadParts(source, { verifier, ...(opts.filterByOs !== undefined ? { filterByOs: opts.filterByOs } : {}) });
    return parts;
  };
  const [gpgEntries, sigEntries, osImages] = await Promise.all([
    wantGpg ? checkGpg(report, payload, { fileKeyrings, storeUrls, ...opts }) : [],
    wantSigstore ? checkSigstore(report, image, keys, opts) : [],
    opts.osImages ? checkOsImages(payload, osKeys, opts) : undefined,
  ]);
  report.signatures = [...gpgEntries, ...sigEntries];
  if (osImages) report.osImages = osImages;
  const gpg = report.gpg.met;
  const sig = report.sigstore.met;
  report.met = require === 'gpg' ? gpg : require === 'sigstore' ? sig : require === 'all' ? gpg && sig : gpg || sig;
  if (osImages && !osImages.every((o) => o.met)) report.met = false;
  return report;
}

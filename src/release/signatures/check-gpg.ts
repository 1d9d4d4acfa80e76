/**
 * The GPG half of `release verify-signatures`, as the cluster-version operator checks an update: keyrings and stores
 * from the payload's verifier ConfigMap (or the flags, each replacing its half), every signature of every store read,
 * and every keyring required to have signed.
 */
import { describe } from '../../errors.js';
import type { HttpClient } from '../../http/client.js';
import { redactUrl } from '../../http/redact.js';
import { type Keyring, readKeyring, verifyGpgSignature } from './gpg.js';
import { type GpgSection, type IdentityCheck, type SignatureEntry, type SignatureReport, checkClaim, withClaim } from './report.js';
import type { SignedClaim } from './simple-signing.js';
import { parseStoreUrl, readStore } from './stores.js';
import type { PayloadParts } from './verifier-config.js';

export interface GpgCheckOptions {
  fileKeyrings: Keyring[];
  storeUrls: URL[];
  identity?: IdentityCheck | undefined;
  client?: HttpClient | undefined;
}

/** The payload's verifier filling in what the flags did not give: its keyrings, its stores. */
async function payloadVerifier(
  gpg: GpgSection,
  parts: PayloadParts,
  keyrings: Keyring[],
  stores: URL[],
): Promise<{ keyrings: Keyring[]; stores: URL[] }> {
  const config = parts.verifier;
  if (config === undefined) {
    gpg.problem = 'the release has no ConfigMap annotated release.openshift.io/verification-config-map; give --keyring and --store';
    return { keyrings, stores };
  }
  gpg.configMap = config.source;
  if (keyrings.length === 0) {
    if (config.keys.length === 0) gpg.problem = `${config.source} did not provide any GPG public keys to verify signatures from`;
    keyrings = await Promise.all(config.keys.map(([k, v]) => readKeyring(k, Buffer.from(v), `${config.source} key ${k}`)));
    gpg.keyringsFrom = 'payload';
  }
  if (stores.length === 0) {
    if (config.stores.length === 0) gpg.problem ??= `${config.source} did not provide any signature stores to read from`;
    stores = config.stores.map(([k, v]) => parseStoreUrl(v, `${config.source} key ${k}`));
    gpg.storesFrom = 'payload';
  }
  return { keyrings, stores };
}

export async function checkGpg(
  report: SignatureReport,
  payload: () => Promise<PayloadParts>,
  opts: GpgCheckOptions,
): Promise<SignatureEntry[]> {
  const gpg = report.gpg;
  gpg.checked = true;
  let keyrings = opts.fileKeyrings;
  let stores = opts.storeUrls;
  if (keyrings.length > 0) gpg.keyringsFrom = 'flags';
  if (stores.length > 0) gpg.storesFrom = 'flags';
  // A verifier the payload gets wrong makes GPG unmet (as it makes the operator refuse updates); it does not stop
  // the sigstore check.
  if (keyrings.length === 0 || stores.length === 0) {
    try {
      ({ keyrings, stores } = await payloadVerifier(gpg, await payload(), keyrings, stores));
    } catch (err) {
      gpg.problem = describe(err);
      return [];
    }
  }
  gpg.keyrings = keyrings.map((k) => ({ name: k.name, fingerprints: k.fingerprints, signed: false }));
  gpg.stores = stores.map((s) => redactUrl(s.toString()));
  if (keyrings.length === 0 || stores.length === 0) return [];
  const reads = (await Promise.all(stores.map((s) => readStore(s, report.digest, opts.client ? { client: opts.client } : {})))).flat();
  const entries: SignatureEntry[] = [];
  for (const read of reads) {
    const where = redactUrl(read.url);
    const entry: SignatureEntry = { kind: 'gpg', source: where, verdict: 'error' };
    entries.push(entry);
    if (read.bytes === undefined) {
      entry.reason = read.error ?? 'unreadable';
      continue;
    }
    try {
      const verified = await verifyGpgSignature(read.bytes, keyrings, where);
      Object.assign(entry, { key: verified.fingerprint, keyId: verified.keyId, keyring: verified.keyring });
      try {
        withClaim(entry, checkClaim(verified.content, 'atomic', report.digest, where, opts), verified.created);
      } catch (err) {
        const claim = (err as { claim?: SignedClaim }).claim;
        if (claim) withClaim(entry, claim, verified.created);
        throw err;
      }
      entry.verdict = 'valid';
      for (const ring of gpg.keyrings) if (ring.name === verified.keyring || verified.alsoKeyrings.includes(ring.name)) ring.signed = true;
    } catch (err) {
      entry.verdict = 'invalid';
      entry.reason = describe(err);
    }
  }
  gpg.met = gpg.problem === undefined && gpg.keyrings.length > 0 && gpg.keyrings.every((k) => k.signed);
  if (!gpg.met && gpg.problem === undefined) {
    const missing = gpg.keyrings.filter((k) => !k.signed).map((k) => k.name);
    gpg.problem = `unable to verify ${report.digest} against keyrings: ${missing.join(', ')}`;
  }
  return entries;
}

/** `release verify-signatures` views: a text report, and the documented `-o json` object. */
import type { SignatureEntry, SignatureReport } from '../release/signatures/verify.js';
import { escapeControls } from './escape.js';
import { keyValues } from './format.js';

const REQUIREMENT_TEXT = {
  gpg: 'GPG: every keyring signed',
  sigstore: 'sigstore: a signature by a given key',
  any: 'any: GPG or sigstore',
  all: 'all: GPG and sigstore',
} as const;

function status(checked: boolean, met: boolean, problem: string | undefined): string {
  if (!checked) return 'not checked';
  return met ? 'verified' : `NOT VERIFIED: ${escapeControls(problem ?? 'no valid signature')}`;
}

function entryLines(e: SignatureEntry): string {
  const key =
    e.key === undefined
      ? undefined
      : `${e.key}${e.keyId && !e.key.endsWith(e.keyId) ? ` (subkey ${e.keyId})` : ''}${e.keyring ? `, ${e.keyring}` : ''}`;
  const verdict = e.verdict === 'valid' ? 'valid' : `${e.verdict.toUpperCase()}${e.reason ? `: ${e.reason}` : ''}`;
  const body = keyValues([
    ['    verdict', escapeControls(verdict)],
    ['    key', key && escapeControls(key)],
    ['    identity', e.identity && escapeControls(e.identity)],
    ['    digest', e.digest && escapeControls(e.digest)],
    ['    creator', e.creator && escapeControls(e.creator)],
    ['    timestamp', e.timestamp],
  ]);
  return `  ${e.kind} ${escapeControls(e.source)}\n${body}`;
}

export function renderSignatures(r: SignatureReport): string {
  const lines: string[] = [
    keyValues([
      ['Release', escapeControls(r.image)],
      ['Digest', r.digest],
      [
        'Identity',
        r.identityRule
          ? `${r.identityRule.rule}${r.identityRule.image ? ` against ${escapeControls(r.identityRule.image)}` : ''}`
          : 'reported, not compared',
      ],
    ]),
    '',
    `GPG (simple signing): ${status(r.gpg.checked, r.gpg.met, r.gpg.problem)}`,
  ];
  if (r.gpg.checked) {
    if (r.gpg.configMap) lines.push(`  Verifier: ${escapeControls(r.gpg.configMap)}`);
    for (const k of r.gpg.keyrings) {
      lines.push(`  Keyring ${escapeControls(k.name)} (${k.fingerprints.join(', ')}): ${k.signed ? 'signed' : 'NOT SIGNED'}`);
    }
    for (const s of r.gpg.stores) lines.push(`  Store ${escapeControls(s)}`);
  }
  lines.push(`Sigstore: ${status(r.sigstore.checked, r.sigstore.met, r.sigstore.problem)}`);
  if (r.sigstore.checked) {
    if (r.sigstore.ref && r.sigstore.found) lines.push(`  Signatures at ${escapeControls(r.sigstore.ref)}`);
    for (const k of r.sigstore.keys) lines.push(`  Key ${escapeControls(k.file)} (${k.kind}, ${k.fingerprint})`);
    if (r.sigstore.skippedLayers > 0) lines.push(`  ${r.sigstore.skippedLayers} layer(s) of other media types skipped`);
  }
  lines.push('');
  if (r.signatures.length === 0) lines.push('Signatures: none found');
  else lines.push('Signatures:', ...r.signatures.map(entryLines));
  if (r.osImages) {
    lines.push('', 'OS images (sigstore, each must verify):');
    for (const o of r.osImages) {
      const what = o.tag ? `${o.tag} ${o.image}` : 'none';
      lines.push(`  ${escapeControls(what)}: ${o.met ? 'verified' : `NOT VERIFIED: ${escapeControls(o.problem ?? 'no valid signature')}`}`);
      lines.push(...o.signatures.map((e) => entryLines(e).replace(/^/gm, '  ')));
    }
  }
  const also = r.osImages ? ', and every OS image' : '';
  lines.push('', `Required (${REQUIREMENT_TEXT[r.require]}${also}): ${r.met ? 'met' : 'NOT MET'}`);
  return `${lines.join('\n')}\n`;
}

/** `-o json`: the report as documented in docs/release.md (keys are stable; absent values are omitted). */
export function signaturesJson(r: SignatureReport): unknown {
  return {
    image: r.image,
    digest: r.digest,
    require: r.require,
    met: r.met,
    ...(r.identityRule ? { identityRule: r.identityRule } : {}),
    gpg: {
      checked: r.gpg.checked,
      met: r.gpg.met,
      ...(r.gpg.problem !== undefined ? { problem: r.gpg.problem } : {}),
      keyringsFrom: r.gpg.keyringsFrom,
      storesFrom: r.gpg.storesFrom,
      ...(r.gpg.configMap !== undefined ? { configMap: r.gpg.configMap } : {}),
      keyrings: r.gpg.keyrings,
      stores: r.gpg.stores,
    },
    sigstore: {
      checked: r.sigstore.checked,
      met: r.sigstore.met,
      ...(r.sigstore.problem !== undefined ? { problem: r.sigstore.problem } : {}),
      ...(r.sigstore.ref !== undefined ? { ref: r.sigstore.ref } : {}),
      found: r.sigstore.found,
      keys: r.sigstore.keys,
      skippedLayers: r.sigstore.skippedLayers,
    },
    signatures: r.signatures,
    ...(r.osImages ? { osImages: r.osImages } : {}),
  };
}

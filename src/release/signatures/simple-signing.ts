/**
 * The "simple signing" claim both kinds of signature carry: a JSON document naming the manifest digest and the
 * identity (docker-reference) it was signed for.
 *
 * - `atomic`: the GPG kind, read as the cluster-version operator reads it (library-go pkg/verify): type
 *   `atomic container signature`, a non-empty identity (reported, never compared by the operator), the digest
 *   compared as a string, and every field unknown to it refused, `optional` included.
 * - `cosign`: the sigstore kind, read as containers/image reads it (internal/signature, sigstore payload): type
 *   `cosign container image signature`; `critical` and `optional` both present, `critical` with exactly its
 *   three fields; `optional` may be null and may carry other fields (cosign's annotations go there).
 *
 * In both, a key given twice in one object is refused (containers/image refuses it; JSON.parse would keep the last).
 */
import { OsimageError } from '../../errors.js';
import { isJsonObject, tooDeep, tooDeepMessage } from '../../json.js';
import { lazyRequire } from '../../lazy.js';

const yaml = lazyRequire<typeof import('yaml')>('yaml');

export type ClaimFormat = 'atomic' | 'cosign';

export const CLAIM_TYPE: Readonly<Record<ClaimFormat, string>> = {
  atomic: 'atomic container signature',
  cosign: 'cosign container image signature',
};

/** The media type of a sigstore signature layer (its bytes are the cosign claim). */
export const COSIGN_PAYLOAD_MEDIA_TYPE = 'application/vnd.dev.cosign.simplesigning.v1+json';

export interface SignedClaim {
  type: string;
  /** critical.image.docker-manifest-digest */
  digest: string;
  /** critical.identity.docker-reference */
  identity: string;
  creator?: string;
  /** optional.timestamp, seconds since the epoch. */
  timestamp?: number;
}

/** Why a claim was refused; the caller names where it came from. */
class ClaimError extends Error {}

const fail = (reason: string): never => {
  throw new ClaimError(reason);
};

/** Every key of `obj` is one of `allowed`, and (with `required`) every one of them is present. */
function checkFields(obj: Record<string, unknown>, where: string, allowed: readonly string[], required: boolean): void {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) fail(`unknown field "${k}" in ${where}`);
  if (required) for (const k of allowed) if (!(k in obj)) fail(`missing field "${k}" in ${where}`);
}

function object(v: unknown, where: string, nullable: boolean): Record<string, unknown> | undefined {
  if (v === null && nullable) return undefined;
  if (!isJsonObject(v)) return fail(`${where} is not a JSON object`);
  return v;
}

/** Go decodes null into a string as the empty string; anything else but a string is an error. */
function text(v: unknown, where: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') return fail(`${where} is not a string`);
  return v;
}

function timestamp(v: unknown, format: ClaimFormat): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) return fail('optional.timestamp is not a number');
  // The operator decodes it as an int64; containers/image as a float64 it truncates.
  if (format === 'atomic' && !Number.isSafeInteger(v)) return fail('optional.timestamp is not an integer');
  return Math.trunc(v);
}

/**
 * A key given twice in one object, which JSON.parse (and Go's encoding/json) settle by taking the last, but
 * containers/image refuses: a claim read one way by us and another by a consumer is refused. The text is read
 * again as YAML (JSON is YAML), whose map nodes keep every key; `where` names the object.
 */
function duplicateKey(node: unknown, where: string): string | undefined {
  const { isMap, isScalar, isSeq } = yaml();
  if (isSeq(node)) {
    for (const item of node.items) {
      const inner = duplicateKey(item, where);
      if (inner !== undefined) return inner;
    }
  }
  if (!isMap(node)) return undefined;
  const seen = new Set<unknown>();
  for (const pair of node.items) {
    const key = isScalar(pair.key) ? pair.key.value : pair.key;
    if (seen.has(key)) return `the signed claim has the key "${String(key)}" twice in ${where}`;
    seen.add(key);
    const inner = duplicateKey(pair.value, where === 'the signed claim' ? String(key) : `${where}.${String(key)}`);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

function parse(bytes: Buffer, format: ClaimFormat): SignedClaim {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    return fail(`the signed claim is not valid JSON: ${(err as Error).message}`);
  }
  const deep = tooDeep(doc, 8);
  if (deep !== undefined) fail(`the signed claim ${tooDeepMessage(deep, 8)}`);
  const twice = duplicateKey(yaml().parseDocument(bytes.toString('utf8'), { uniqueKeys: false }).contents, 'the signed claim');
  if (twice !== undefined) fail(twice);
  const strict = format === 'cosign';
  const top = object(doc, 'the signed claim', false)!;
  checkFields(top, 'the signed claim', ['critical', 'optional'], strict);
  const critical = object(top.critical ?? (strict ? undefined : {}), 'critical', false)!;
  checkFields(critical, 'critical', ['type', 'image', 'identity'], strict);
  const image = object(critical.image ?? (strict ? undefined : null), 'critical.image', !strict) ?? {};
  checkFields(image, 'critical.image', ['docker-manifest-digest'], strict);
  const identity = object(critical.identity ?? (strict ? undefined : null), 'critical.identity', !strict) ?? {};
  checkFields(identity, 'critical.identity', ['docker-reference'], strict);
  const optional = object(top.optional ?? null, 'optional', true) ?? {};
  if (format === 'atomic') checkFields(optional, 'optional', ['creator', 'timestamp'], false);
  const claim: SignedClaim = {
    type: text(critical.type, 'critical.type'),
    digest: text(image['docker-manifest-digest'], 'critical.image.docker-manifest-digest'),
    identity: text(identity['docker-reference'], 'critical.identity.docker-reference'),
  };
  const creator = text(optional.creator, 'optional.creator');
  if (creator !== '') claim.creator = creator;
  const ts = timestamp(optional.timestamp, format);
  if (ts !== undefined) claim.timestamp = ts;
  return claim;
}

/**
 * The claim in `bytes`, checked for `digest`: the right type, an identity, the digest itself. Anything else is an
 * OsimageError (code invalid-input) naming `source`.
 */
export function readClaim(bytes: Buffer, format: ClaimFormat, digest: string, source: string): SignedClaim {
  let claim: SignedClaim;
  try {
    claim = parse(bytes, format);
    if (claim.type !== CLAIM_TYPE[format]) fail(`the signed claim's type is "${claim.type}", not "${CLAIM_TYPE[format]}"`);
    if (claim.identity === '') fail('the signed claim has no identity (critical.identity.docker-reference)');
    if (claim.digest !== digest) fail(`the signature is for ${claim.digest || 'no digest'}, not ${digest}`);
  } catch (err) {
    if (err instanceof ClaimError) throw new OsimageError(`${source}: ${err.message}`, { code: 'invalid-input' });
    throw err;
  }
  return claim;
}

/** The claim a signer writes: the shape `readClaim` reads back (`optional` always an object). */
export function claimBytes(
  format: ClaimFormat,
  digest: string,
  identity: string,
  optional: { creator?: string; timestamp?: number } = {},
): Buffer {
  const doc = {
    critical: { identity: { 'docker-reference': identity }, image: { 'docker-manifest-digest': digest }, type: CLAIM_TYPE[format] },
    optional,
  };
  return Buffer.from(JSON.stringify(doc));
}

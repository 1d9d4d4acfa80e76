/**
 * Where a new payload goes, whatever its input: flat files (--to-dir), an oci-archive (--to-file), a registry
 * (--to-image), or oc's dry run (no output, or --dry-run with --to-image: the image is composed and its digest line
 * printed, nothing pushed). The base the release layer goes on: the one the input settled (--to-image-base, or a
 * release's base-image-digest), else the `--to-image-base-tag` tag of the payload (default cluster-version-operator;
 * an empty tag builds on nothing). With --to-signature, the message oc writes for signing the pushed image; with
 * --sign-key and --gpg-sign, the signatures themselves (src/release/signatures/).
 */
import { OsimageError, describe } from '../../errors.js';
import { goJson } from '../../golang/json.js';
import { writeFileAtomic } from '../../files/atomic.js';
import { parseImageReference } from '../../oci/reference.js';
import type { ImageStream } from '../../oci/image-stream.js';
import type { ImageSource, SourceOptions } from '../../registry/types.js';
import type { BuiltLayer } from '../build-layer.js';
import type { PayloadFile } from './assemble.js';
import { DEFAULT_BASE_TAG } from './from-images.js';
import { composeReleaseImage, composeReleaseList, isBaseList, loadBases } from './image.js';
import { pushRelease, pushReleaseList, writeReleaseArchive, writeReleaseDir, writeReleaseListArchive } from './publish.js';
import { baseRepository, pushTarget, releaseTag } from './target.js';
import { prepareSigner, pushSigstoreSignature, type SignRequest, sigstoreEntry, writeGpg } from '../signatures/release-signer.js';
import { signatureTag } from '../signatures/sigstore.js';

/** What is published: the payload and what decides the image. */
export interface Publishable {
  version: string;
  imageStream: ImageStream;
  files: PayloadFile[];
  created: string;
  folderTime?: Date | undefined;
  /** The base the input settled (--to-image-base, or the release's own base), if any. */
  base?: string | undefined;
  /** The release layer, made while the files were (releaseLayerWriter); `files` may then be empty. */
  layer?: BuiltLayer | undefined;
  /** oc's check of a --from-release rebuild that changes nothing: the input's digest and the first file that differs. */
  reproduces?: { digest: string; firstDifference: () => string | undefined } | undefined;
}

export interface PublishOptions {
  toDir?: string | undefined;
  toFile?: string | undefined;
  toImage?: string | undefined;
  dryRun?: boolean | undefined;
  filterByOs?: string | undefined;
  keepManifestList?: boolean | undefined;
  toImageBaseTag?: string | undefined;
  /** --to-file reads a base only when the input settled one (a folder input is built offline). */
  fileBaseGivenOnly?: boolean | undefined;
  /** --to-signature FILE. */
  toSignature?: string | undefined;
  /** --sign-key, --gpg-sign: sign the release once its digest is known. */
  sign?: SignRequest | undefined;
  open: (ref: string) => Promise<ImageSource>;
  sourceOptions: SourceOptions;
  out: (line: string) => void;
  info: (line: string) => void;
}

/** The reference oc appends to when nothing is pushed. */
const DRY_RUN_TARGET = 'release:latest';

/** The image the release layer goes on, or undefined for none. */
export function baseFor(p: Publishable, tag: string | undefined): string | undefined {
  if (p.base !== undefined) return p.base;
  const name = tag ?? DEFAULT_BASE_TAG;
  if (name === '') return undefined;
  const t = p.imageStream.spec.tags.find((x) => x.name === name && x.from?.kind === 'DockerImage' && x.from.name);
  if (!t)
    throw new OsimageError(`the base image tag ${JSON.stringify(name)} could not be found in the input, cannot build a release image`);
  return t.from!.name!;
}

/**
 * The message oc writes with --to-signature (an "atomic container signature" claim: the pushed digest, the
 * repository by digest, who made it and when), indented as oc writes it.
 */
export function signatureMessage(opts: { creator: string; created: string; digest: string; pushed: string }): string {
  const ref = parseImageReference(opts.pushed, { dockerTransport: true });
  return goJson({
    critical: {
      type: 'atomic container signature',
      image: { 'docker-manifest-digest': opts.digest },
      identity: { 'docker-reference': `${ref.name}@${opts.digest}` },
    },
    optional: { creator: opts.creator, timestamp: Math.floor(Date.parse(opts.created) / 1000) },
  });
}

export async function publishRelease(p: Publishable, o: PublishOptions & { creator: string }): Promise<void> {
  if (o.toDir !== undefined) {
    if (p.layer) throw new OsimageError('internal: --to-dir needs the payload files, not a layer made of them');
    await writeReleaseDir(p.files, o.toDir);
    return;
  }
  const version = p.version;
  const image = o.toFile === undefined;
  const push = image && o.toImage !== undefined && !o.dryRun;
  const target = image ? pushTarget(o.toImage ?? DRY_RUN_TARGET, version) : undefined;
  // oc says which image it was making when the base or the push fails.
  const failed = (err: unknown) =>
    target !== undefined && err instanceof OsimageError
      ? new OsimageError(`failed to push image ${target}: ${describe(err)}`, { code: err.code, exitCode: err.exitCode, cause: err })
      : err;
  // Keys are read before anything is built: a bad key or passphrase fails at once.
  const signer = o.sign ? await prepareSigner(o.sign, o.creator) : undefined;
  const identity = signer?.identity ?? target ?? '';
  const baseRef = o.toFile !== undefined && o.fileBaseGivenOnly ? p.base : baseFor(p, o.toImageBaseTag);
  let baseSource: ImageSource | undefined;
  try {
    let digest: string;
    try {
      baseSource = baseRef !== undefined ? await o.open(baseRef) : undefined;
      const bases = baseSource
        ? await loadBases(baseSource, { filterByOs: o.filterByOs, keepManifestList: o.keepManifestList })
        : undefined;
      const common = { name: version, files: p.files, created: p.created, folderTime: p.folderTime, layer: p.layer };
      if (isBaseList(bases)) {
        const list = await composeReleaseList({ ...common, bases });
        digest = list.manifest.descriptor.digest;
        const sig = o.toFile !== undefined ? sigstoreEntry(signer, digest, identity) : undefined;
        if (o.toFile !== undefined) await writeReleaseListArchive(list, o.toFile, releaseTag(version), bases.source, sig ? [sig] : []);
        else if (push) await pushReleaseList(list, target!, bases.source, pushOptions(o.sourceOptions, baseRef));
      } else {
        const made = await composeReleaseImage({ ...common, ...(bases ? { base: bases } : {}) });
        digest = made.manifest.descriptor.digest;
        const sig = o.toFile !== undefined ? sigstoreEntry(signer, digest, identity) : undefined;
        if (o.toFile !== undefined) await writeReleaseArchive(made, o.toFile, releaseTag(version), baseSource, sig ? [sig] : []);
        else if (push) await pushRelease(made, target!, baseSource, pushOptions(o.sourceOptions, baseRef));
      }
    } catch (err) {
      throw failed(err);
    }
    if (push) o.info(`Pushed to ${o.toImage}`);
    if (signer && (push || o.toFile !== undefined)) {
      const pushedSig = push && (await pushSigstoreSignature(signer, digest, target!, identity, pushOptions(o.sourceOptions, undefined)));
      if (pushedSig) o.info(`Signed with ${o.sign?.sigstoreKey}: ${pushedSig}`);
      else if (signer.sigstore) o.info(`Signed with ${o.sign?.sigstoreKey}: tag ${signatureTag(digest)} in ${o.toFile}`);
      const file = await writeGpg(signer, digest, identity);
      if (file !== undefined) o.info(`Signed with gpg key ${signer.gpg!.keyId}: ${file}`);
    }
    if (image && o.toSignature !== undefined && o.toImage !== undefined) {
      const message = signatureMessage({ creator: o.creator, created: p.created, digest, pushed: target! });
      try {
        await writeFileAtomic(o.toSignature, message, { mode: 0o644 });
      } catch (err) {
        throw new OsimageError(`unable to write signature file: ${describe(err)}`, { cause: err });
      }
    }
    o.out(`${digest} ${version} ${p.created}`);
    // oc's check of a rebuild that overrides nothing, made (as in oc) once the image is written: on the payload
    // files, since the gzip bytes and the config are osimage's own.
    if (p.reproduces && digest !== p.reproduces.digest) {
      const diff = p.reproduces.firstDifference();
      if (diff !== undefined) throw new OsimageError(`the release could not be reproduced from its inputs: ${diff} differs`);
      o.info(
        `the payload files are the input's, byte for byte; the image digest is not (${p.reproduces.digest} in, ${digest} out): osimage compresses the layer and writes the config its own way`,
      );
    }
  } finally {
    await baseSource?.close();
  }
}

function pushOptions(s: SourceOptions, baseRef: string | undefined) {
  return {
    ...(s.registryConfig ? { registryConfig: s.registryConfig } : {}),
    ...(s.insecure ? { insecure: true } : {}),
    ...(s.caFile ? { caFile: s.caFile } : {}),
    ...(s.onWarning ? { onWarning: s.onWarning } : {}),
    ...(baseRef !== undefined ? (baseRepository(baseRef) ?? {}) : {}),
  };
}

/**
 * The component images a release names, as `release new --from-release` reads them: every image's config
 * (for its labels), and the `/manifests` folder of each operator image (label io.openshift.release.operator):
 * the top layer only, or every layer for an image the user put in (oc reads all layers of an override, in
 * case only one layer of a layered build was replaced). Only regular files directly in the folder count.
 */
import { OsimageError, describe } from '../../errors.js';
import { forEachLimit } from '../../files/parallel.js';
import { IMAGE_REFERENCES, type ImageStream } from '../../oci/image-stream.js';
import { parseImageStream } from '../../payload/image-stream.js';
import { resolveImage } from '../../registry/platform.js';
import type { ImageManifest, ImageSource } from '../../registry/types.js';
import { parseImageConfig, readConfig } from '../info.js';
import { walkLayers } from '../overlay.js';
import type { OperatorSource } from './assemble.js';
import { MAX_PAYLOAD_BYTES } from './release-input.js';

export const OPERATOR_LABEL = 'io.openshift.release.operator';
/** Images read at once (oc reads 4 per registry; configs are small, so more overlap pays). */
export const COMPONENT_CONCURRENCY = 12;

export type OpenComponent = (pullspec: string) => Promise<ImageSource>;

export interface ComponentImage {
  tag: string;
  pullspec: string;
  /** The image manifest's digest (a list's chosen entry). */
  digest: string;
  labels: Record<string, string>;
  manifest: ImageManifest;
  operator: boolean;
  /** The manifest's and the config's bytes as read (verified), for the components cache. */
  raw?: { manifest: Buffer; mediaType: string; config: Buffer };
}

async function withSource<T>(open: OpenComponent, pullspec: string, f: (s: ImageSource) => Promise<T>): Promise<T> {
  const source = await open(pullspec);
  try {
    return await f(source);
  } finally {
    await source.close();
  }
}

/**
 * Every tag's image config, `concurrency` at a time; results by tag name. Images in `known` (by pullspec, from
 * the components cache) are not read again.
 */
export async function readComponentConfigs(
  tags: Array<{ tag: string; pullspec: string }>,
  open: OpenComponent,
  filterByOs: string | undefined,
  known: ReadonlyMap<string, KnownImage> = new Map(),
  concurrency = COMPONENT_CONCURRENCY,
): Promise<Map<string, ComponentImage>> {
  const out = new Map<string, ComponentImage>();
  await forEachLimit(tags, concurrency, async ({ tag, pullspec }) => {
    const img =
      known.get(pullspec) ??
      (await withSource(open, pullspec, async (source) => {
        try {
          const resolved = await resolveImage(source, filterByOs);
          const bytes = await readConfig(source, resolved.manifest.parsed.config);
          const labels = parseImageConfig(bytes, source.name).config?.Labels ?? {};
          const m = resolved.manifest;
          return { digest: m.digest, labels, manifest: m.parsed, raw: { manifest: m.bytes, mediaType: m.mediaType, config: bytes } };
        } catch (err) {
          throw inLayout(err, tag, source.name);
        }
      }));
    out.set(tag, { tag, pullspec, ...img, operator: (img.labels[OPERATOR_LABEL] ?? '') !== '' });
  });
  return out;
}

/** What the components cache gives back for an image. */
export type KnownImage = Pick<ComponentImage, 'digest' | 'labels' | 'manifest' | 'raw'>;

/**
 * A component that is not where an `oci:` or `oci-archive:` release says (its images are looked up there by
 * digest): the error names the tag and says so. Registry errors are oc's own words and pass unchanged.
 */
function inLayout(err: unknown, tag: string, where: string): unknown {
  if (!(err instanceof OsimageError) || !/^(oci|oci-archive):/.test(where)) return err;
  return new OsimageError(
    `tag ${JSON.stringify(tag)}: ${describe(err)} (a release read from an OCI layout or archive names its images by digest, and they are looked up in that same layout)`,
    { code: err.code, exitCode: err.exitCode, cause: err },
  );
}

/** What all operators' manifests may hold in memory together (a payload is a few MiB), shared by their reads. */
export interface ManifestBudget {
  left: number;
}

/** An operator image's `/manifests` files (bytes in memory) and its image-references, as an operator source. */
export async function readOperatorManifests(
  img: ComponentImage,
  open: OpenComponent,
  allLayers: boolean,
  budget: ManifestBudget = { left: MAX_PAYLOAD_BYTES },
): Promise<OperatorSource> {
  const manifest =
    allLayers || img.manifest.layers.length === 0 ? img.manifest : { ...img.manifest, layers: img.manifest.layers.slice(-1) };
  const data = new Map<string, Buffer>();
  const mtimes = new Map<string, Date | undefined>();
  // The newest entry (image-references too): oc stamps the payload's own files with the newest manifest time.
  let newest: Date | undefined;
  let total = 0;
  await withSource(open, img.pullspec, (source) =>
    walkLayers(source, manifest, {
      folder: 'manifests',
      onFile: (f) => {
        // oc extracts regular files only; sub-folders are skipped when the payload is written.
        if (f.type !== 'file' || f.linkOf !== undefined || f.path.includes('/')) return;
        total += f.data.length;
        budget.left -= f.data.length;
        if (total > MAX_PAYLOAD_BYTES || budget.left < 0) {
          throw new OsimageError(
            `${img.pullspec} (${img.tag}): the operators' /manifests hold more than ${MAX_PAYLOAD_BYTES / (1024 * 1024)} MiB together`,
          );
        }
        data.set(f.path, f.data);
        mtimes.set(f.path, f.mtime);
        if (f.mtime && (!newest || f.mtime > newest)) newest = f.mtime;
      },
    }),
  );
  let references: ImageStream | undefined;
  const refs = data.get(IMAGE_REFERENCES);
  data.delete(IMAGE_REFERENCES);
  if (refs !== undefined) {
    try {
      references = parseImageStream(refs.toString('utf8'), `${img.tag}/${IMAGE_REFERENCES}`);
    } catch (err) {
      throw new OsimageError(`operator ${JSON.stringify(img.tag)} contained an invalid image-references file: ${describe(err)}`, {
        cause: err,
      });
    }
  }
  const files = [...data.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    operator: img.tag,
    file: refs === undefined ? undefined : `${img.tag}/${IMAGE_REFERENCES}`,
    references,
    files,
    manifests: files.length,
    read: async (file) => data.get(file) ?? Buffer.alloc(0),
    mtime: (file) => mtimes.get(file),
    newest,
  };
}

/**
 * Only an operator image's `manifests/image-references` (which tags it references): its top layer is read until
 * that entry, not to its end. For pruning alone; an image whose manifests are used is read whole
 * (readOperatorManifests), and verified.
 */
export async function readOperatorReferences(img: ComponentImage, open: OpenComponent): Promise<Set<string>> {
  const manifest = img.manifest.layers.length === 0 ? img.manifest : { ...img.manifest, layers: img.manifest.layers.slice(-1) };
  let refs: Buffer | undefined;
  await withSource(open, img.pullspec, (source) =>
    walkLayers(source, manifest, {
      folder: 'manifests',
      only: [IMAGE_REFERENCES],
      wantData: (p) => p === IMAGE_REFERENCES,
      onFile: (f) => {
        if (f.path === IMAGE_REFERENCES && f.type === 'file' && f.linkOf === undefined) refs = f.data;
      },
    }),
  );
  if (refs === undefined) return new Set();
  try {
    return new Set(parseImageStream(refs.toString('utf8'), `${img.tag}/${IMAGE_REFERENCES}`).spec.tags.map((t) => t.name));
  } catch (err) {
    throw new OsimageError(`operator ${JSON.stringify(img.tag)} contained an invalid image-references file: ${describe(err)}`, {
      cause: err,
    });
  }
}

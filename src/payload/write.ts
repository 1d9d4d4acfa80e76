/**
 * `payload write`: put the OS container into the MCO's payload manifests, the `machine-os-content` tag
 * of `image-references` and the `machine-config-osimageurl` ConfigMap, byte-identical in both, with
 * both files changing together or not at all.
 */
import { join } from 'node:path';
import type { AtomicWrite } from '../files/atomic.js';
import { editFilesAtomic } from '../files/edit.js';
import { readTextIfExists, requireDir } from '../files/read.js';
import type { Warning } from '../errors.js';
import { PayloadError } from './errors.js';
import { IMAGE_REFERENCES, OS_CONTENT_TAG } from '../oci/image-stream.js';
import { setImageReferenceTag } from './image-stream.js';
import { DEFAULT_CONFIGMAP_FILE, setOsImageUrl } from './osimageurl.js';
import { requireOsImagePullspec } from './pullspec.js';

export interface PayloadWriteOptions {
  dir: string;
  pullspec: string;
  /** File name (in dir) of the ConfigMap; default {@link DEFAULT_CONFIGMAP_FILE}. */
  configMapFile?: string;
  allowTag?: boolean;
}

export interface FileOutcome {
  path: string;
  action: 'created' | 'appended' | 'updated' | 'unchanged';
  /** The value before, when there was one. */
  previous: string | undefined;
}

export interface PayloadWriteResult {
  pullspec: string;
  imageReferences: FileOutcome;
  configMap: FileOutcome;
  /** false when both files already held the value (nothing was written). */
  changed: boolean;
  warnings: Warning[];
}

/** A ConfigMap file name: one path segment, not image-references itself. */
export function checkConfigMapFileName(name: string, flag = '--configmap-file'): string {
  if (name === '' || name.includes('/') || name.includes('\\') || name === '.' || name === '..') {
    throw new PayloadError(`${flag} must be a file name inside --dir, not ${JSON.stringify(name)}`);
  }
  if (name === IMAGE_REFERENCES) throw new PayloadError(`${flag} cannot be ${IMAGE_REFERENCES}`);
  return name;
}

export async function writePayload(opts: PayloadWriteOptions): Promise<PayloadWriteResult> {
  requireOsImagePullspec(opts.pullspec, { allowTag: opts.allowTag ?? false });
  const cmName = checkConfigMapFileName(opts.configMapFile ?? DEFAULT_CONFIGMAP_FILE);
  await requireDir(opts.dir);
  const refsPath = join(opts.dir, IMAGE_REFERENCES);
  const cmPath = join(opts.dir, cmName);
  const [refsText, cmText] = await Promise.all([readTextIfExists(refsPath), readTextIfExists(cmPath)]);

  const refs = setImageReferenceTag(refsText, refsPath, OS_CONTENT_TAG, opts.pullspec);
  const cm = setOsImageUrl(cmText, cmPath, opts.pullspec);

  const warnings: Warning[] = [];
  if (refs.previous !== undefined && cm.previous !== undefined && refs.previous !== cm.previous) {
    warnings.push({
      code: 'osimageurl-disagreed',
      message: `${refsPath} (${refs.previous}) and ${cmPath} (${cm.previous}) disagreed; both now say ${opts.pullspec}`,
    });
  }
  const writes: AtomicWrite[] = [];
  if (refs.changed) writes.push({ path: refsPath, data: refs.text });
  if (cm.changed) writes.push({ path: cmPath, data: cm.text });
  if (writes.length > 0) await editFilesAtomic(writes);
  return {
    pullspec: opts.pullspec,
    imageReferences: { path: refsPath, action: refs.action, previous: refs.previous },
    configMap: { path: cmPath, action: cm.action, previous: cm.previous },
    changed: writes.length > 0,
    warnings,
  };
}

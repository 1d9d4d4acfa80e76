/**
 * `release info --contents`: the release's files as oc 4.13 prints them, each under a `# NAME` line:
 * image-references and release-metadata first, then every manifest file (`*.yaml`, `*.yml`, `*.json`) sorted
 * by name, each as stored, ended by a newline when it does not end with one. Other files are not shown.
 */
import type { ReleaseInfo } from '../release/info.js';

/** `r` read with keepManifests (release/info.ts): `raw.files` holds the manifests' bytes. */
export function renderContents(r: Pick<ReleaseInfo, 'raw' | 'manifests'>): Buffer {
  const parts: Buffer[] = [];
  const add = (name: string, data: Buffer) => {
    parts.push(Buffer.from(`# ${name}\n`, 'utf8'), data);
    if (data.length > 0 && data[data.length - 1] !== 0x0a) parts.push(Buffer.from('\n'));
  };
  add('image-references', r.raw.imageReferences);
  if (r.raw.releaseMetadata) add('release-metadata', r.raw.releaseMetadata);
  const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  for (const name of [...r.manifests].sort(byteOrder)) add(name, r.raw.files?.[name] ?? Buffer.alloc(0));
  return Buffer.concat(parts);
}

/**
 * One door to every transport: `oci:DIR[:TAG]`, `oci-archive:FILE[:TAG]`, `file://REF` (under --dir), else a
 * registry reference (with digest mirrors when a policy file gave some).
 * Each transport's module is imported only when it is used.
 */
import type { ConnectOptions } from './connect.js';
import type { ImageSource, SourceOptions } from './types.js';

export async function openImage(
  ref: string,
  opts: SourceOptions & Pick<ConnectOptions, 'transports' | 'credentials'> = {},
): Promise<ImageSource> {
  if (ref.startsWith('oci:')) return (await import('./oci-layout.js')).openOciLayout(ref, opts);
  if (ref.startsWith('oci-archive:')) return (await import('./oci-archive.js')).openOciArchive(ref, opts);
  if (ref.startsWith('file://')) return (await import('./file-dir.js')).openFileDir(ref, opts);
  if (opts.mirrors) return (await import('./mirrored.js')).openMirrored(ref, opts, opts.mirrors);
  return (await import('./remote.js')).openRemote(ref, opts);
}

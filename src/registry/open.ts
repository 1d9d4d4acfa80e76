/**
 * One door to every transport: `oci:DIR[:TAG]`, `oci-archive:FILE[:TAG]`, else a registry reference.
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
  return (await import('./remote.js')).openRemote(ref, opts);
}

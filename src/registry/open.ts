/**
 * One door to every transport: `oci:DIR[:TAG]`, `oci-archive:FILE[:TAG]`, `dir:DIR` and `docker-archive:FILE[:REF]`
 * (as skopeo writes them), `file://REF` (under --dir), else a registry reference (`docker://` optional; with digest
 * mirrors when a policy file gave some). Other transports of containers/image are refused in one line
 * (transports.ts). Each transport's module is imported only when it is used.
 */
import type { ConnectOptions } from './connect.js';
import { localTransport, unreadableTransport } from './transports.js';
import type { ImageSource, SourceOptions } from './types.js';

export async function openImage(
  ref: string,
  opts: SourceOptions & Pick<ConnectOptions, 'transports' | 'credentials'> = {},
): Promise<ImageSource> {
  const unreadable = unreadableTransport(ref);
  if (unreadable) throw unreadable;
  switch (localTransport(ref)) {
    case 'oci':
      return (await import('./oci-layout.js')).openOciLayout(ref, opts);
    case 'oci-archive':
      return (await import('./oci-archive.js')).openOciArchive(ref, opts);
    case 'dir':
      return (await import('./skopeo-dir.js')).openSkopeoDir(ref, opts);
    case 'docker-archive':
      return (await import('./docker-archive.js')).openDockerArchive(ref, opts);
    case undefined:
      break;
  }
  if (ref.startsWith('file://')) return (await import('./file-dir.js')).openFileDir(ref, opts);
  if (opts.mirrors) return (await import('./mirrored.js')).openMirrored(ref, opts, opts.mirrors);
  return (await import('./remote.js')).openRemote(ref, opts);
}

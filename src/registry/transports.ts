/**
 * The transports an image argument may name, in containers/image's (skopeo's, podman's) spelling
 * `TRANSPORT:DETAILS`: which of them osimage reads, and the one line that refuses the others. A word that is a
 * transport name of containers/image is never read as a Docker Hub repository (`dir:/x`, `docker-archive:x.tar`
 * would otherwise be `docker.io/library/dir`, `docker.io/library/docker-archive:x.tar`): write
 * `docker.io/library/dir:TAG` (or `docker://dir:TAG`) for such an image.
 */
import { UsageError } from '../errors.js';

/** What osimage reads, as a user writes it. */
export const READABLE_TRANSPORTS = [
  'docker://REF (or a bare registry reference)',
  'oci:DIR[:TAG]',
  'oci-archive:FILE[:TAG]',
  'dir:DIR',
  'docker-archive:FILE[:REF]',
  'file://REF (under --dir)',
] as const;

/** containers/image's transports that osimage does not read (it has no daemon, store or signature format of theirs). */
const UNREADABLE = ['containers-storage', 'docker-daemon', 'ostree', 'sif', 'tarball'] as const;

/** Local transports osimage reads, besides `file://`; the registry (`docker://`) is the default. */
export type LocalTransport = 'oci' | 'oci-archive' | 'dir' | 'docker-archive';
const LOCAL: readonly LocalTransport[] = ['oci', 'oci-archive', 'dir', 'docker-archive'];

/** The local transport `ref` names (`oci:…`, `oci-archive:…`, `dir:…`, `docker-archive:…`), if any. */
export function localTransport(ref: string): LocalTransport | undefined {
  return LOCAL.find((t) => ref.startsWith(`${t}:`));
}

/**
 * A UsageError when `ref` names a transport osimage does not read (`containers-storage:…`), else undefined. The
 * message is one line listing the transports that work.
 */
export function unreadableTransport(ref: string): UsageError | undefined {
  const name = UNREADABLE.find((t) => ref.startsWith(`${t}:`));
  if (name === undefined) return undefined;
  return new UsageError(
    `the ${name}: transport is not supported (${JSON.stringify(ref)}); osimage reads ${READABLE_TRANSPORTS.join(', ')}`,
  );
}

/** `ref` names a local transport (osimage's or not): it is no registry reference. */
export function isTransportReference(ref: string): boolean {
  return localTransport(ref) !== undefined || UNREADABLE.some((t) => ref.startsWith(`${t}:`));
}

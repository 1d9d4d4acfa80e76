/**
 * The registry client's view of an image reference: the one grammar (src/oci/reference.ts) with the
 * command line's policy (a `docker://` prefix is dropped; a tag and a digest together: the digest names the
 * image and the tag is ignored, as oc does; a transport name of containers/image, `dir:`, `docker-archive:`,
 * `oci:`…, is no registry: transports.ts), normalised for docker.io:
 *
 * - no domain → `docker.io`, and a one-component path on docker.io gets `library/`;
 * - `index.docker.io` is `docker.io`; the API host for docker.io is `registry-1.docker.io`.
 */
import { ImageReference, InvalidReferenceError, parseImageReference } from '../oci/reference.js';
import { localTransport, unreadableTransport } from './transports.js';

export { DOCKER_HUB, DOCKER_HUB_API, ImageReference, InvalidReferenceError } from '../oci/reference.js';

export interface ParsedReference {
  reference: ImageReference;
}

/** Parse a reference for the registry. Invalid input is an InvalidReferenceError (exit 2) naming the reason. */
export function parseReference(input: string): ParsedReference {
  // `dir:/x`, `docker-archive:x.tar`: a transport of containers/image, never a Docker Hub repository named `dir`.
  const unreadable = unreadableTransport(input);
  if (unreadable) throw unreadable;
  const local = localTransport(input);
  if (local) throw new InvalidReferenceError(input, `${JSON.stringify(input)} names a ${local}: image, not an image in a registry`);
  return { reference: ImageReference.from(parseImageReference(input, { dockerTransport: true })) };
}

/**
 * The registry client's view of an image reference: the one grammar (src/oci/reference.ts) with the
 * command line's policy (a `docker://` prefix is dropped; a tag and a digest together: the digest names the
 * image and the tag is ignored, as oc does), normalised for docker.io:
 *
 * - no domain → `docker.io`, and a one-component path on docker.io gets `library/`;
 * - `index.docker.io` is `docker.io`; the API host for docker.io is `registry-1.docker.io`.
 */
import { ImageReference, parseImageReference } from '../oci/reference.js';

export { DOCKER_HUB, DOCKER_HUB_API, ImageReference, InvalidReferenceError } from '../oci/reference.js';

export interface ParsedReference {
  reference: ImageReference;
}

/** Parse a reference for the registry. Invalid input is an InvalidReferenceError (exit 2) naming the reason. */
export function parseReference(input: string): ParsedReference {
  return { reference: ImageReference.from(parseImageReference(input, { dockerTransport: true })) };
}

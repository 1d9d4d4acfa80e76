/**
 * image-references as oc writes it into a release payload: the ImageStream and its tags with oc's keys in oc's
 * order, for the scripts that build release images (hack/sample, hack/bench, hack/oc-compare). Types:
 * image-stream.d.mts.
 */

/** One tag: `from` a DockerImage pullspec, with its annotations. */
export function ocTag(name, pullspec, annotations) {
  return {
    name,
    annotations,
    from: { kind: 'DockerImage', name: pullspec },
    generation: null,
    importPolicy: {},
    referencePolicy: { type: '' },
  };
}

/** The ImageStream named `name` (the release version) over `tags`, created at `created`, from the ART stream `fromImageStream`. */
export function ocImageStream(name, tags, { created, fromImageStream }) {
  return {
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: {
      name,
      creationTimestamp: created,
      annotations: { 'release.openshift.io/from-image-stream': fromImageStream },
    },
    spec: { lookupPolicy: { local: false }, tags },
    status: { dockerImageRepository: '' },
  };
}

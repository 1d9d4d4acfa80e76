/** Types for image-stream.mjs. */
export interface OcTag {
  name: string;
  annotations: Record<string, string> | undefined;
  from: { kind: 'DockerImage'; name: string };
  generation: null;
  importPolicy: Record<string, never>;
  referencePolicy: { type: '' };
}

export declare function ocTag(name: string, pullspec: string, annotations?: Record<string, string>): OcTag;

export declare function ocImageStream(
  name: string,
  tags: OcTag[],
  opts: { created: string; fromImageStream: string },
): Record<string, unknown>;

/**
 * `release new --from-dir` onto an image or into an archive: the payload assembled and packed into its release
 * layer at once, each file handed to the layer as it is made, so a payload of thousands of manifests is never
 * held whole (only the compressed layer is). `--to-dir` and `-o json` take assemblePayload's files instead.
 */
import type { BuiltLayer } from '../build-layer.js';
import { assemblePayload, type AssembledPayload, type AssembleOptions } from './assemble.js';
import { releaseLayerWriter } from './image.js';

export async function assemblePayloadLayer(opts: AssembleOptions): Promise<AssembledPayload & { layer?: BuiltLayer }> {
  if (opts.jsonOnly) return assemblePayload(opts);
  const w = releaseLayerWriter(opts.created);
  try {
    const payload = await assemblePayload({ ...opts, onFile: (f) => w.add(f) });
    return { ...payload, layer: await w.finish() };
  } catch (err) {
    w.abort(err instanceof Error ? err : undefined);
    throw err;
  }
}

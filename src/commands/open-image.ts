import type { ImageSource, SourceOptions } from '../registry/types.js';
import { sourceOptions, type RegistryOptionValues } from './registry-options.js';
import * as platformModule from '../registry/platform.js';
import { openImage } from '../registry/open.js';
import { warn } from '../output/terminal.js';

/** Opens images with the command's registry flags; every image opened this way is closed when the reading ends. */
export type OpenImage = (ref: string) => Promise<ImageSource>;

const TAMPERED = 'the release image failed content verification and may have been tampered with';

/**
 * Read release images the way every command does: open them with the registry flags (progress on stderr,
 * warnings printed as they come), run `read`, close what was opened, clear the progress line and, when
 * content failed verification (--skip-verification let it through), say that the image may have been
 * tampered with. The caller renders the value `read` returns.
 */
export async function readImages<T>(o: RegistryOptionValues, read: (open: OpenImage, opts: SourceOptions) => Promise<T>): Promise<T> {
  // A bad --filter-by-os is a usage error before any network, as in oc (even for an image that is no list).
  if (o.filterByOs !== undefined) platformModule.platformFilter(o.filterByOs);
  const state = { verificationFailed: false };
  const { opts, progress } = await sourceOptions(o, state);
  const opened: ImageSource[] = [];
  const open: OpenImage = async (ref) => {
    const source = await openImage(ref, opts);
    opened.push(source);
    return source;
  };
  let result: T;
  try {
    result = await read(open, opts);
  } finally {
    progress.done();
    for (const source of opened.reverse()) await source.close();
  }
  if (state.verificationFailed) warn(TAMPERED);
  return result;
}

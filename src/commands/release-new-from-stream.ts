/**
 * `release new -f FILE` and `release new TAG=PULLSPEC…` with no other input: options into types, one core call
 * (assembleFromStream), then the output (-o json, --to-dir, --to-file, --to-image, or oc's dry run).
 */
import { readRegularFile } from '../files/read.js';
import { setExitCode } from '../context.js';
import { OsimageError, describe, hasCode } from '../errors.js';
import { fetchBytes } from '../http/client.js';
import type { TagReference } from '../oci/image-stream.js';
import * as term from '../output/terminal.js';
import { openImage } from '../registry/open.js';
import { CREATE_PREFIX, MissingImagesError } from '../release/new/assemble.js';
import { createdTime } from '../release/new/created.js';
import { assembleFromStream, MAX_STREAM_FILE_BYTES, parseStreamFile, tagsFromStream } from '../release/new/from-stream.js';
import type { Mapping } from '../release/new/mappings.js';
import { publishRelease } from '../release/new/output.js';
import { readImages } from './open-image.js';
import { metadataFor, publishOptions, splitList, type NewOptions } from './release-new-options.js';

/** Standard input, whole, up to `max` bytes. */
async function readStdin(max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    total += (chunk as Buffer).length;
    if (total > max) throw new OsimageError(`unable to read input image stream file: standard input holds more than ${max} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The ImageStream file's bytes: `-` is standard input, an http(s) URL is fetched, anything else is a file. */
async function readStreamFile(file: string): Promise<Buffer> {
  if (file === '-') return readStdin(MAX_STREAM_FILE_BYTES);
  if (/^https?:\/\//.test(file)) {
    try {
      return await fetchBytes(file, { maxBytes: MAX_STREAM_FILE_BYTES });
    } catch (err) {
      throw new OsimageError(`unable to read input image stream file: ${describe(err)}`, { cause: err });
    }
  }
  try {
    // One bounded read that refuses a FIFO or a device before reading it.
    return await readRegularFile(file, MAX_STREAM_FILE_BYTES);
  } catch (err) {
    // oc passes a missing file's error through as Go words it.
    if (hasCode(err, 'file-missing')) throw new OsimageError(`open ${file}: no such file or directory`, { cause: err });
    throw new OsimageError(`unable to read input image stream file: ${describe(err)}`, { cause: err });
  }
}

export async function runFromStream(mappings: Mapping[], o: NewOptions): Promise<void> {
  const exclude = splitList(o.exclude);
  let tags: TagReference[] = [];
  if (o.fromImageStreamFile !== undefined) {
    const stream = parseStreamFile(await readStreamFile(o.fromImageStreamFile));
    tags = tagsFromStream(stream, o.referenceMode, new Set(exclude));
    term.info(`info: Found ${tags.length} images in image stream`);
  }
  const created = createdTime(o.created);
  const metadata = metadataFor(o, created);
  const done = await readImages(o, async (_open, opts) => {
    // One transport per registry for the component images: one ping, tokens kept; not cached.
    const shared = { transports: new Map(), credentials: new Map() };
    const { cache: _cache, ...uncached } = opts;
    let result;
    try {
      result = await assembleFromStream({
        tags,
        mappings,
        exclude,
        include: splitList(o.include),
        toImageBaseTag: o.toImageBaseTag,
        metadata,
        created,
        open: (pullspec) => openImage(pullspec, { ...uncached, ...shared }),
        filterByOs: o.keepManifestList ? 'linux/amd64' : o.filterByOs,
        allowMissingImages: o.allowMissingImages,
        skipManifestCheck: o.skipManifestCheck,
        jsonOnly: o.output === 'json',
        onInfo: (line) => term.info(`info: ${line}`),
      });
    } catch (err) {
      if (err instanceof MissingImagesError) {
        for (const p of err.problems) term.error(`${CREATE_PREFIX}${p.message}`);
        return false;
      }
      throw err;
    }
    if (result.json !== undefined) {
      term.outRaw(result.json);
      return true;
    }
    await publishRelease(
      {
        version: metadata.version,
        imageStream: result.imageStream,
        files: result.files,
        created,
        folderTime: result.folderTime,
        base: o.toImageBase,
      },
      publishOptions(o, opts),
    );
    return true;
  });
  if (!done) setExitCode(1);
}

/**
 * An image named by digest, read from its own repository first and, when that fails, from the mirrors a
 * policy file lists for it (mirrors.ts), as oc's registry client does with `--icsp-file` / `--idms-file`:
 * the first place that answers serves the image's manifests and blobs; when none does, the error is the one the
 * image's own repository gave. Messages and `Pull From` keep naming the image as it was written.
 */
import type { Readable } from 'node:stream';
import { OsimageError } from '../errors.js';
import { mirrorRepositories, type MirrorSet } from './mirrors.js';
import { parseReference } from './reference.js';
import { openRemote, type RemoteOptions } from './remote.js';
import type { Descriptor, FetchedManifest, ImageSource } from './types.js';

export class MirroredImageSource implements ImageSource {
  private active: ImageSource;
  private readonly opened = new Map<string, Promise<ImageSource>>();

  constructor(
    private readonly source: ImageSource,
    /** The other pullspecs (`mirror/repo@digest`), in the order to try them. */
    private readonly alternatives: string[],
    private readonly opts: RemoteOptions,
  ) {
    this.active = source;
  }

  get name(): string {
    return this.source.name;
  }

  get cache() {
    return this.active.cache;
  }

  pullspecFor(digest: string): string {
    return this.source.pullspecFor(digest);
  }

  private open(pullspec: string): Promise<ImageSource> {
    let p = this.opened.get(pullspec);
    if (!p) {
      p = openRemote(pullspec, this.opts);
      this.opened.set(pullspec, p);
    }
    return p;
  }

  /**
   * `read` from the place that answered last, then from the others in order; the first success wins and
   * serves what follows. Every place failing gives the image's own repository's error.
   */
  private async attempt<T>(read: (s: ImageSource) => Promise<T>): Promise<T> {
    const order: Array<() => Promise<ImageSource>> = [async () => this.active];
    if (this.active !== this.source) order.push(async () => this.source);
    for (const alt of this.alternatives) order.push(() => this.open(alt));
    let first: unknown;
    const tried = new Set<ImageSource>();
    for (const get of order) {
      let s: ImageSource;
      try {
        s = await get();
      } catch (err) {
        first ??= err;
        continue;
      }
      if (tried.has(s)) continue;
      tried.add(s);
      try {
        const value = await read(s);
        this.active = s;
        return value;
      } catch (err) {
        // The image's own error is the one to report, whichever order the places were tried in.
        if (s === this.source) first = err;
        else first ??= err;
      }
    }
    throw first instanceof Error ? first : new OsimageError(String(first));
  }

  manifest(): Promise<FetchedManifest> {
    return this.attempt((s) => s.manifest());
  }

  manifestByDigest(digest: string): Promise<FetchedManifest> {
    return this.attempt((s) => s.manifestByDigest(digest));
  }

  blob(desc: Descriptor): Promise<Readable> {
    return this.attempt((s) => s.blob(desc));
  }

  async close(): Promise<void> {
    await this.source.close();
    for (const p of this.opened.values()) await p.then((s) => s.close()).catch(() => undefined);
  }
}

/**
 * Open `ref` from the registry, with the mirrors `set` has for its repository when `ref` names a digest (a
 * tag is resolved by its own registry only, so it gets no mirrors).
 */
export async function openMirrored(ref: string, opts: RemoteOptions, set: MirrorSet): Promise<ImageSource> {
  const source = await openRemote(ref, opts);
  const { reference } = parseReference(ref);
  if (!reference.digest) return source;
  // The image's own repository is always asked first, also under NeverContactSource: oc asks it once too
  // before it consults the policy, so only the order of the mirrors matters here.
  const others = mirrorRepositories(reference.name, set).filter((r) => r !== reference.name);
  if (others.length === 0) return source;
  const alternatives = others.map((r) => `${r}@${reference.digest}`);
  return new MirroredImageSource(source, alternatives, opts);
}

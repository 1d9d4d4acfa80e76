/**
 * The release image pull spec and the release version written into oc and openshift-install as they are
 * extracted (`release extract --command/--tools`). Those binaries are built with placeholders: a NUL, a name
 * (`_RELEASE_IMAGE_LOCATION_`, `_RELEASE_VERSION_LOCATION_`), a NUL, a run of `X` that reserves the room, a
 * closing NUL. The first copy of each placeholder in the file gets the value written over it from its first byte,
 * ended by a NUL; the rest of the room is left as it was, so the file keeps its size (and the binary reads the
 * value as a C string). The bytes stream through: only a placeholder's length is held back between chunks.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { OsimageError } from '../errors.js';

export interface Replacement {
  /** How oc names it in its messages: `release image`, `release version`. */
  name: string;
  marker: Buffer;
  value: string;
}

const marker = (name: string, room: number) => Buffer.from(`\0${name}\0${'X'.repeat(room)}\0`, 'latin1');

/** Room for a pull spec: 300 bytes. */
export const RELEASE_IMAGE_MARKER = marker('_RELEASE_IMAGE_LOCATION_', 300);
/** Room for a version: 64 bytes. */
export const RELEASE_VERSION_MARKER = marker('_RELEASE_VERSION_LOCATION_', 64);

/** A value longer than its placeholder's room (less the closing NUL) cannot be written: oc's words. */
export function checkReplacements(replacements: readonly Replacement[]): void {
  for (const r of replacements) {
    const bytes = Buffer.byteLength(r.value);
    if (bytes > r.marker.length - 1) {
      throw new OsimageError(`the ${r.name} value has ${bytes} bytes, but the maximum replacement length is ${r.marker.length - 1}`);
    }
  }
}

/**
 * A stream that writes each value over the first copy of its placeholder. `missing()` names the placeholders
 * not found, sorted, once the stream has ended.
 */
export class MarkerReplacer extends Transform {
  private readonly pending: Array<{ name: string; marker: Buffer; value: Buffer }>;
  /** The bytes of the previous chunks that a placeholder may still start in. */
  private tail = Buffer.alloc(0);
  private readonly keep: number;

  constructor(replacements: readonly Replacement[]) {
    super();
    checkReplacements(replacements);
    this.pending = replacements.map((r) => ({ name: r.name, marker: r.marker, value: Buffer.from(r.value) }));
    this.keep = Math.max(0, ...replacements.map((r) => r.marker.length - 1));
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.pending.length === 0) {
      done(null, chunk);
      return;
    }
    let buf = this.tail.length > 0 ? Buffer.concat([this.tail, chunk]) : chunk;
    // The chunk belongs to whoever wrote it: a replacement goes into a copy (made once, only for a chunk that has one).
    let own = buf !== chunk;
    for (let i = 0; i < this.pending.length; ) {
      const r = this.pending[i]!;
      const at = buf.indexOf(r.marker);
      if (at < 0) {
        i++;
        continue;
      }
      if (!own) {
        buf = Buffer.from(buf);
        own = true;
      }
      r.value.copy(buf, at);
      buf[at + r.value.length] = 0;
      this.pending.splice(i, 1);
    }
    if (this.pending.length === 0) {
      this.tail = Buffer.alloc(0);
      done(null, buf);
      return;
    }
    // A placeholder that starts in the last keep bytes may end in the next chunk: hold them back.
    const cut = Math.max(0, buf.length - this.keep);
    this.tail = Buffer.from(buf.subarray(cut));
    done(null, buf.subarray(0, cut));
  }

  override _flush(done: TransformCallback): void {
    done(null, this.tail.length > 0 ? this.tail : undefined);
  }

  /** The names of the placeholders not found, sorted. */
  missing(): string[] {
    return this.pending.map((r) => r.name).sort();
  }
}

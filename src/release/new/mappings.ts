import { UsageError, describe } from '../../errors.js';
import { parseImageReference } from '../../oci/reference.js';
import { MAX_TAGS } from '../../oci/image-stream.js';

/** One `TAG=PULLSPEC` override, with where it came from for messages. */
export interface Mapping {
  source: string;
  target: string;
  origin: string;
}

const TAG_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function parsePair(pair: string, origin: string): Mapping {
  const eq = pair.indexOf('=');
  const source = eq > 0 ? pair.slice(0, eq) : '';
  const target = eq > 0 ? pair.slice(eq + 1) : '';
  if (!source || !target || !TAG_RE.test(source) || /\s/.test(target)) {
    throw new UsageError(`${origin}all arguments must be valid SRC=DST mappings`);
  }
  // The target is written into image-references and the manifests as it is given: it must be an image
  // reference (no control characters, no file:// URL, a digest of the right form, a bounded length).
  try {
    parseImageReference(target);
  } catch (err) {
    throw new UsageError(`${origin}mapping ${source}: ${describe(err)}`);
  }
  return { source, target, origin };
}

/** The most mappings `release new` takes (the most tags an ImageStream may have). */
export const MAX_MAPPINGS = MAX_TAGS;

/**
 * `TAG=PULLSPEC` arguments and a mapping file (space-separated pairs, `#` starts a comment), in oc's
 * words: `all arguments must be valid SRC=DST mappings`, `each source tag may only be specified once: X`,
 * prefixed `file F, line N: ` for the file.
 */
export function parseMappings(args: string[], file?: { path: string; text: string }): Mapping[] {
  const all: Mapping[] = args.map((a) => parsePair(a, ''));
  if (file) {
    file.text.split(/\r?\n/).forEach((line, i) => {
      const content = line.replace(/#.*/, '').trim();
      if (!content) return;
      for (const pair of content.split(/\s+/)) {
        all.push(parsePair(pair, `file ${file.path}, line ${i + 1}: `));
        // A release maps a few hundred images; each mapping is carried through every later step.
        if (all.length > MAX_MAPPINGS) {
          throw new UsageError(`file ${file.path}, line ${i + 1}: more than ${MAX_MAPPINGS} mappings (a release has a few hundred images)`);
        }
      }
    });
  }
  const seen = new Set<string>();
  for (const m of all) {
    if (seen.has(m.source)) throw new UsageError(`${m.origin}each source tag may only be specified once: ${m.source}`);
    seen.add(m.source);
  }
  return all;
}

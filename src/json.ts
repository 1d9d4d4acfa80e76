/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A plain object (not an array, not null). */
export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A copy with every object's keys sorted (code-unit order) and undefined members dropped, so that
 * serialising it (JSON, YAML) is canonical: pin snapshots, rendered MachineConfigs.
 */
export function sortKeys(v: unknown): Json {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isJsonObject(v)) {
    const out: { [key: string]: Json } = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sortKeys(v[k]);
    return out;
  }
  return v as Json;
}

/*
 * Words for JSON values that came from outside (images, registries, files), for messages that say what is
 * wrong with them, and a bound on how deeply they nest. JSON.parse reads any depth, but whatever walks the
 * value afterwards by recursion (JSON.stringify for `-o json`, the text views) overflows the stack on a
 * document nested 100,000 deep: such a document is refused once, where it is parsed.
 */

/** Deeper than any document an image or release holds (Kubernetes objects, Cincinnati metadata). */
export const MAX_JSON_DEPTH = 100;

/** What a JSON value is, in words: `null`, `a list`, `a map`, `a string`, `the number 5`. */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a map';
  if (typeof v === 'string') return 'a string';
  return `${typeof v === 'number' ? 'the number' : 'the value'} ${String(v)}`;
}

/** A JSON path segment: `[3]` for an index, `.name` for a plain key, `["a.b"]` otherwise. */
export function pathSegment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/**
 * Where `value` nests deeper than `max` levels (a path such as `metadata.a[0][0]…`, its first segments),
 * or undefined when it does not. Iterative: a value of any depth is measured without recursion.
 */
export function tooDeep(value: unknown, max = MAX_JSON_DEPTH): string | undefined {
  // Nearly every value passes: measure without building paths (a payload's image-references has thousands of
  // objects, and naming each cost more than parsing it), then name the place only when there is one.
  return nestsDeeper(value, max) ? deepPath(value, max) : undefined;
}

/** Whether `value` nests `max` levels or more: objects and arrays only, on an explicit stack. */
function nestsDeeper(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const values: object[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop()!;
    const depth = depths.pop()!;
    if (depth >= max) return true;
    if (Array.isArray(v)) {
      for (const x of v) {
        if (typeof x === 'object' && x !== null) {
          values.push(x);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        const x = (v as Record<string, unknown>)[k];
        if (typeof x === 'object' && x !== null) {
          values.push(x);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/** Where `value` first nests `max` levels deep, in the words of {@link tooDeep}. */
function deepPath(value: unknown, max: number): string | undefined {
  // Paths stop growing past PATH_CHARS (they only name where the nesting starts); `…` marks the rest.
  const PATH_CHARS = 60;
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= max) return path.length > PATH_CHARS ? `${path}…` : path || '(the document)';
    const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [k, x] of entries) {
      if (typeof x !== 'object' || x === null) continue;
      stack.push({ v: x, depth: depth + 1, path: path.length > PATH_CHARS ? path : `${path}${pathSegment(k)}` });
    }
  }
  return undefined;
}

/** The message for a value {@link tooDeep} refused. */
export function tooDeepMessage(at: string, max = MAX_JSON_DEPTH): string {
  return `is nested more than ${max} levels deep (at ${at.replace(/^\./, '')})`;
}

/**
 * How deeply `[` and `{` nest in JSON or YAML text (quoted strings skipped), measured before a parser that
 * recurses (the YAML parser overflows the stack on flow collections nested 100,000 deep) reads it.
 */
export function bracketDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return max;
}

/**
 * The house's dependency rules (docs/README.md "Layout of the code"), checked on every import of every file
 * under src/, as go-containerregistry's depcheck_test.go does: static imports, `export … from`, `import type`,
 * `import('…')` and `typeof import('…')`, read by TypeScript's own scanner (so text in comments and strings
 * is not an import). Type-only imports count: a type two floors share belongs to the lower one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The floors, top first. A room (a folder of src/, or a file at src/'s root) imports only itself and rooms on
 * floors below its own; rooms on one floor do not import each other. A new room goes into this table.
 */
const FLOORS: ReadonlyArray<readonly [rooms: readonly string[], what: string]> = [
  [['launcher'], 'start-up plumbing (bundle loading, V8 code cache): nothing imports it'],
  [['cli'], 'src/cli.ts: the program and its command table'],
  [['commands'], 'one file a command: parse options, call the core, render'],
  [['output'], 'terminal I/O and the views: only commands/ and cli.ts import it'],
  [['verify', 'packages'], 'what a release ships against what the release browser has'],
  [['release', 'pin'], 'release payload images; pin files'],
  [['payload'], 'payload manifests'],
  [['stream'], 'bootimage streams'],
  [['rhcos', 'rpm'], "the release browser; rpm's version order"],
  [['registry'], 'the OCI distribution client'],
  [['http', 'cache'], 'the one HTTP client; the digest-keyed cache'],
  [['files'], 'reading and atomic writing of files'],
  [['oc'], "oc's shapes and texts, built on golang/"],
  [['oci'], 'the vocabulary: image references, digests, media types, the ImageStream model'],
  [['verbosity'], 'src/verbosity.ts: how much a run logs (-v N), read from the run context'],
  [
    ['json', 'context', 'lifecycle', 'lazy', 'package-info', 'env-flag', 'code-cache-profile'],
    "src/*.ts: JSON's rules, the run context, the process's settings",
  ],
  [['errors'], 'src/errors.ts: the one error type and its codes'],
  [['golang'], "Go's behaviours: pure, imports nothing of ours"],
];

/** What oc/ may import: Go's behaviours and the vocabulary. */
const OC_MAY_IMPORT = new Set(['oc', 'golang', 'oci', 'errors', 'json']);

/**
 * Today's tree breaks these rules; each is listed (`from -> to`, paths under src/) with why it stands, so that
 * it stays visible until it is mended. An entry that no longer breaks a rule fails the test: delete it.
 */
const ALLOWED: Readonly<Record<string, string>> = {};

/** The same for import cycles, each as its files sorted and joined by ` <-> `. */
const ALLOWED_CYCLES: Readonly<Record<string, string>> = {};

interface Import {
  from: string;
  /** A path under src/ (`oci/digest.ts`), or the specifier when it is not one of ours. */
  to: string;
  ours: boolean;
}

function sourceFiles(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [relative(join(ROOT, 'src'), path)] : [];
  });
}

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, 'src', file), 'utf8');
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName: spec }) => {
    if (!spec.startsWith('.')) return { from: file, to: spec, ours: false };
    const to = relative(join(ROOT, 'src'), resolve(dirname(join(ROOT, 'src', file)), spec)).replace(/\.js$/, '.ts');
    return { from: file, to, ours: !to.startsWith('..') };
  });
}

const room = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file.replace(/\.ts$/, ''));
/** `registry/` for a folder, `errors.ts` for a file at src/'s root. */
const label = (r: string): string => (files.some((f) => f.startsWith(`${r}/`)) ? `${r}/` : `${r}.ts`);
const floorOf = new Map(FLOORS.flatMap(([rooms], floor) => rooms.map((r) => [r, floor] as const)));

const files = sourceFiles();
const imports = files.flatMap(importsOf);
const ours = imports.filter((i) => i.ours);

/** The imports that break a rule, each as `from -> to: rule`. */
function violations(): Map<string, string> {
  const found = new Map<string, string>();
  const add = (i: Import, rule: string) => {
    const edge = `${i.from} -> ${i.to}`;
    found.set(edge, found.has(edge) ? `${found.get(edge)}; ${rule}` : rule);
  };
  for (const i of imports) {
    const [a, b] = [room(i.from), i.ours ? room(i.to) : undefined];
    if (a === 'golang' && !(b === 'golang' || i.to.startsWith('node:'))) add(i, 'golang/ imports nothing but golang/ and node: built-ins');
    if (!i.ours || b === undefined || a === b) continue;
    if (a === 'oc' && !OC_MAY_IMPORT.has(b)) add(i, `oc/ imports only ${[...OC_MAY_IMPORT].map(label).join(', ')}`);
    if (a === 'cache' && b === 'registry') add(i, 'cache/ never imports registry/');
    const [fa, fb] = [floorOf.get(a), floorOf.get(b)];
    if (fa === undefined || fb === undefined) continue; // reported by the table's own test
    if (fb === fa) add(i, `${label(a)} and ${label(b)} share a floor: neither imports the other`);
    else if (fb < fa) add(i, `an arrow back up: ${label(b)} is above ${label(a)}`);
  }
  return found;
}

/** The import cycles between files (Tarjan's strongly connected components with more than one file, or a self-import). */
function cycles(): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const i of ours) next.get(i.from)?.push(i.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || next.get(v)?.includes(v)) found.push(scc.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

describe('the dependency rules of src/', () => {
  test('the imports are read (a scanner that finds nothing would pass every rule)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(ours.length).toBeGreaterThan(500);
    const kinds = imports.filter((i) => i.from === 'cli.ts').map((i) => i.to);
    expect(kinds).toContain('commands/release.ts'); // import('./commands/release.js')
    expect(kinds).toContain('output/terminal.ts'); // typeof import('./output/terminal.js') and import()
    expect(imports.some((i) => i.from === 'http/fetch.ts' && i.to === 'http/http-client.ts')).toBe(true); // import { type … }
  });

  test('every room is on a floor of the table', () => {
    const rooms = [...new Set(files.map(room))].sort();
    expect(rooms.filter((r) => !floorOf.has(r))).toEqual([]);
  });

  test('golang/ imports nothing of ours; oc/ only golang/ and the vocabulary; cache/ never registry/; no arrow back up a floor', () => {
    const found = violations();
    const unexpected = [...found].filter(([edge]) => !(edge in ALLOWED)).map(([edge, rule]) => `${edge}: ${rule}`);
    expect(unexpected).toEqual([]);
    const mended = Object.keys(ALLOWED).filter((edge) => !found.has(edge));
    expect(mended, 'allowed violations that are gone: delete them from ALLOWED').toEqual([]);
  });

  test('no two files import each other, however far round', () => {
    const found = cycles().map((c) => c.join(' <-> '));
    expect(found.filter((c) => !(c in ALLOWED_CYCLES))).toEqual([]);
    expect(
      Object.keys(ALLOWED_CYCLES).filter((c) => !found.includes(c)),
      'allowed cycles that are gone: delete them from ALLOWED_CYCLES',
    ).toEqual([]);
  });
});

import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli.js';
import { REPO, osimage } from '../helpers/cli.js';

/**
 * Help and docs cannot drift apart.
 *
 * 1. Every command, subcommand and long option that `--help` shows is named in docs/: on the command's own
 *    page (PAGE below), or, for the option families several commands share (SHARED), anywhere in docs/.
 *    Hidden options (old aliases) are exempt. Every top-level command has a line in README.md's table.
 * 2. The examples run. The extraction rule (also written in docs/README.md):
 *    - only lines inside ```sh fences of README.md and docs/*.md; a leading `$ ` prompt is dropped;
 *    - a line is an example when it starts with `osimage `, optionally after `NAME=value ` assignments;
 *    - it is run when it uses only the offline sample: it names `hack/sample`, or an earlier
 *      `export NAME=value …` line of the same block that names `hack/sample` set the environment, or it names
 *      a file an earlier example of the same page made (`cp`/`mkdir` targets; the values of `--write`, `--meta`,
 *      `--dir`, `--out`, `--to`, `--to-file`, `--to-dir`; `oci:`/`oci-archive:` and a `:TAG` are looked through)
 *      and names no registry or URL (a word, not a `TAG=PULLSPEC` mapping, that starts `http(s)://`,
 *      `localhost` or `HOST.DOMAIN/`); and it has no shell syntax the test does not run: `$`, `…`, `<`, `>`,
 *      `|`, `&`, `;`, backquotes;
 *    - a trailing `# comment` is dropped; `# exit N` in it is the exit code expected (else 0);
 *    - a line ending in `\` continues on the next line (joined as the shell joins it);
 *    - `mkdir -p DIR`, `cp FILE FILE` and `cp -r DIR DIR` lines in those blocks are carried out too, so
 *      examples can set up;
 *    - each file's examples run in order, in-process (`osimage()` of test/helpers/cli.ts), in a fresh
 *      folder holding a copy of hack/ (so `hack/sample/…` resolves and nothing in the repository changes).
 */

/** The page that documents each top-level command. */
const PAGE: Record<string, string> = {
  builds: 'settings.md',
  resolve: 'settings.md',
  packages: 'packages.md',
  diff: 'packages.md',
  payload: 'payload.md',
  release: 'release.md',
  pin: 'pins.md',
  promote: 'pins.md',
  cache: 'cache-and-performance.md',
  verify: 'verify.md',
  stream: 'bootimage-streams.md',
};

/** Options several commands share, each documented once on its family's page. */
const SHARED = new Set([
  '--base-url',
  '--channel',
  '--build',
  '--arch',
  '--registry-config',
  '--insecure',
  '--certificate-authority',
  '--skip-verification',
  '--filter-by-os',
  '--cache-dir',
  '--no-cache',
  '--output',
]);

const DOCS = join(REPO, 'docs');
const docFiles = readdirSync(DOCS).filter((f) => f.endsWith('.md'));
const read = (f: string) => readFileSync(f, 'utf8');
const allDocs = docFiles.map((f) => read(join(DOCS, f))).join('\n');

interface Entry {
  path: string[];
  options: string[];
}

async function commandTree(): Promise<Entry[]> {
  const out: Entry[] = [];
  const walk = (c: Command, path: string[]) => {
    const p = [...path, c.name()];
    out.push({ path: p, options: c.options.filter((o) => !o.hidden && o.long).map((o) => o.long as string) });
    for (const s of c.commands) walk(s, p);
  };
  for (const c of Object.values(COMMANDS)) walk((await c.load()).command(), []);
  return out;
}

const tree = await commandTree();

describe('docs/ names every command and option --help shows', () => {
  it.each(tree.map((e) => [e.path.join(' '), e] as const))('osimage %s', (_name, e) => {
    const top = e.path[0] as string;
    const page = PAGE[top];
    expect(page, `no docs page for "${top}": add it to PAGE in this test`).toBeDefined();
    const text = read(join(DOCS, page as string));
    expect(text, `docs/${page} does not mention "${e.path.join(' ')}"`).toContain(e.path.join(' '));
    const missing = e.options.filter((o) => !(SHARED.has(o) ? allDocs : text).includes(o));
    expect(missing, `options of "osimage ${e.path.join(' ')}" not in docs/${SHARED.size ? page : ''}`).toEqual([]);
  });

  it('README.md has one table line for every top-level command', () => {
    const readme = read(join(REPO, 'README.md'));
    for (const name of Object.keys(COMMANDS)) expect(readme).toMatch(new RegExp(`^\\| \`osimage ${name}\\b`, 'm'));
  });
});

interface Example {
  line: number;
  text: string;
  kind: 'osimage' | 'mkdir' | 'cp';
  args: string[];
  env: Record<string, string>;
  exit: number;
}

/** Split a command line into words: plain words, '…' and "…" (no expansion: `$` never reaches here). */
export function words(s: string): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  let quote = '';
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = '';
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      cur ??= '';
    } else if (/\s/.test(ch)) {
      if (cur !== undefined) out.push(cur);
      cur = undefined;
    } else cur = (cur ?? '') + ch;
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

const SHELL = /[$…<>|&;`\\]/;
/** A word naming a registry or a URL: not offline. */
const REMOTE = /^(https?:\/\/|localhost\b|127\.0\.0\.1\b|[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?\/)/;
/** Options whose value is a file or folder an example makes. */
const MAKES = new Set(['--write', '--meta', '--dir', '--out', '--to', '--to-file', '--to-dir']);
/** The file a word names, looking through `oci:`/`oci-archive:` and a `:TAG`. */
const fileOf = (w: string) => w.replace(/^oci(-archive)?:/, '').replace(/:[\w.-]+$/, '');
const ASSIGN = /^[A-Z_][A-Z0-9_]*=\S*$/;

/** The examples of one markdown file, by the rule above. */
export function examples(markdown: string): Example[] {
  const out: Example[] = [];
  let inSh = false;
  let blockEnv: Record<string, string> = {};
  let blockSample = false;
  const made = new Set<string>();
  // Continuation lines are joined onto the line they continue (the example keeps its first line's number).
  const lines = markdown.split('\n');
  for (let i = lines.length - 2; i >= 0; i--) {
    if (/\\$/.test(lines[i] as string) && !/^\s*```/.test(lines[i + 1] as string)) {
      lines[i] = `${(lines[i] as string).slice(0, -1)}${(lines[i + 1] as string).trim()}`;
      lines[i + 1] = '';
    }
  }
  lines.forEach((raw, i) => {
    if (/^\s*```/.test(raw)) {
      inSh = !inSh && /^\s*```sh\s*$/.test(raw);
      blockEnv = {};
      blockSample = false;
      return;
    }
    if (!inSh) return;
    let text = raw.trim().replace(/^\$ /, '');
    const comment = /\s#\s(.*)$/.exec(text);
    const exit = Number(/\bexit (\d)\b/.exec(comment?.[1] ?? '')?.[1] ?? 0);
    if (comment) text = text.slice(0, comment.index).trim();
    if (SHELL.test(text)) return;
    const w = words(text);
    if (w[0] === 'export' && w.length > 1 && w.slice(1).every((x) => ASSIGN.test(x))) {
      for (const a of w.slice(1)) blockEnv[a.slice(0, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
      blockSample ||= text.includes('hack/sample');
      return;
    }
    const env = { ...blockEnv };
    while (w.length > 0 && ASSIGN.test(w[0] as string)) {
      const a = w.shift() as string;
      env[a.slice(0, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
    }
    const local = w.some((x) => made.has(fileOf(x))) && !w.some((x) => !x.includes('=') && REMOTE.test(x));
    const sample = blockSample || text.includes('hack/sample') || local;
    if (w[0] === 'osimage' && sample) {
      out.push({ line: i + 1, text, kind: 'osimage', args: w.slice(1), env, exit });
      w.forEach((x, k) => {
        if (MAKES.has(x) && w[k + 1]) made.add(w[k + 1] as string);
      });
    } else if (w[0] === 'mkdir' && w[1] === '-p') {
      out.push({ line: i + 1, text, kind: 'mkdir', args: w.slice(2), env, exit });
      for (const d of w.slice(2)) made.add(d);
    } else if (w[0] === 'cp' && (w.length === 3 || (w[1] === '-r' && w.length === 4))) {
      out.push({ line: i + 1, text, kind: 'cp', args: w.slice(-2), env, exit });
      made.add(w.at(-1) as string);
    }
  });
  return out;
}

describe('the extraction rule', () => {
  it('takes sample lines, their exit comments and export lines; leaves shell syntax alone', () => {
    const md = [
      '```sh',
      'export RHCOS_BASE_URL=./hack/sample/releases',
      '$ osimage resolve -o json            # newest',
      'RHCOS_BUILD_NAME=47.245 osimage resolve --channel maipo   # exit 1',
      'osimage verify --release "$release"',
      "osimage pin --test 'echo a b'",
      'osimage release new --name 4.1.0 \\',
      '  a=b',
      '```',
      '```sh',
      'osimage resolve',
      'cp hack/release.sh r.sh',
      'osimage pin --check --pins r.sh',
      'osimage verify --pins r.sh --release quay.io/ocp/release:4.1',
      '```',
    ].join('\n');
    const ex = examples(md);
    expect(ex.map((e) => [e.line, e.args, e.exit])).toEqual([
      [3, ['resolve', '-o', 'json'], 0],
      [4, ['resolve', '--channel', 'maipo'], 1],
      [6, ['pin', '--test', 'echo a b'], 0],
      [7, ['release', 'new', '--name', '4.1.0', 'a=b'], 0],
      [12, ['hack/release.sh', 'r.sh'], 0],
      [13, ['pin', '--check', '--pins', 'r.sh'], 0],
    ]);
    expect(ex[1]?.env).toEqual({ RHCOS_BASE_URL: './hack/sample/releases', RHCOS_BUILD_NAME: '47.245' });
  });
});

const markdown = [join(REPO, 'README.md'), ...docFiles.map((f) => join(DOCS, f))];
const home = process.cwd();
const workspaces: string[] = [];
afterAll(() => {
  process.chdir(home);
  for (const w of workspaces) rmSync(w, { recursive: true, force: true });
});

describe('every offline example in README.md and docs/ runs and exits as documented', () => {
  for (const file of markdown) {
    const list = examples(read(file));
    if (list.length === 0) continue;
    const name = file.slice(REPO.length);
    it(`${name} (${list.length} examples)`, async () => {
      const ws = mkdtempSync(join(tmpdir(), 'osimage-docs-'));
      workspaces.push(ws);
      cpSync(join(REPO, 'hack'), join(ws, 'hack'), { recursive: true });
      process.chdir(ws);
      try {
        for (const e of list) {
          if (e.kind === 'mkdir') for (const d of e.args) mkdirSync(d, { recursive: true });
          else if (e.kind === 'cp') cpSync(e.args[0] as string, e.args[1] as string, { recursive: true });
          else {
            const r = await osimage(e.args, { env: e.env });
            const why = `${name}:${e.line}: ${e.text}\nexit ${r.exitCode}\n${r.stderr}`;
            expect(r.exitCode, why).toBe(e.exit);
          }
        }
      } finally {
        process.chdir(home);
      }
    });
  }
});

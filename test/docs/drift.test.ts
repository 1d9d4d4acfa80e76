import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli.js';
import { REPO, osimage } from '../helpers/cli.js';
import { examples } from '../helpers/doc-examples.js';

/**
 * Help and docs cannot drift apart.
 *
 * 1. Every command, subcommand and long option that `--help` shows is named in docs/: on the command's own
 *    page (PAGE below), or, for the option families several commands share (SHARED), anywhere in docs/.
 *    Hidden options (old aliases) are exempt. Every top-level command has a line in README.md's table.
 * 2. Every example of README.md and docs/ that uses only the offline sample runs, in-process, and exits as
 *    documented: which lines those are is the rule of test/helpers/doc-examples.ts (also in docs/README.md).
 *    Each file's examples run in order in a fresh folder holding a copy of hack/, so nothing in the
 *    repository changes.
 *
 * The examples of --help run in test/docs/help-examples.test.ts (against the public mirror's layout); help's
 * own consistency (summaries, repeated notes and defaults, examples present) is test/architecture/help.test.ts.
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
  completion: 'install.md',
  version: 'install.md',
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
    expect(missing, `options of "osimage ${e.path.join(' ')}" not in docs/${page}`).toEqual([]);
  });

  it('README.md has one table line for every top-level command', () => {
    const readme = read(join(REPO, 'README.md'));
    for (const name of Object.keys(COMMANDS)) expect(readme).toMatch(new RegExp(`^\\| \`osimage ${name}\\b`, 'm'));
  });
});

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
      '',
      '`ok: r.sh pins … (x)`',
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
    expect(ex.at(-1)?.shows?.test('a\nok: r.sh pins 1.2 (x)\n')).toBe(true);
    expect(ex.at(-1)?.shows?.test('ok: r.sh pins 1.2 (y)')).toBe(false);
    expect(ex[0]?.shows).toBeUndefined();
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
            if (e.shows) expect(`${r.stdout}\n${r.stderr}`, why).toMatch(e.shows);
          }
        }
      } finally {
        process.chdir(home);
      }
    });
  }
});

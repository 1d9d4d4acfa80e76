/**
 * Help is written from one source and says each thing once:
 *
 * - every summary comes from the command table (src/cli.ts COMMANDS): a module sets none of its own, the
 *   table names exactly the subcommands each module has, in help's order, and the top-level list names them;
 * - no help repeats a note (the same sentence twice), prints an option's default twice or a default that
 *   says nothing (`(default: [])`, a number as a string);
 * - every command's help ends with examples, and names no file an installed copy lacks (docs/, hack/sample).
 *
 * What the examples do when run is test/docs/help-examples.test.ts.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS, loadCommand, summaryOf } from '../../src/cli.js';
import { osimage } from '../helpers/cli.js';

interface Page {
  path: string[];
  help: string;
}

/** Every command path, the program first, and its --help as a user sees it. */
async function pages(): Promise<Page[]> {
  const paths: string[][] = [[]];
  const walk = (c: Command, parent: string[]) => {
    const path = [...parent, c.name()];
    paths.push(path);
    for (const s of c.commands) walk(s, path);
  };
  for (const name of Object.keys(COMMANDS)) walk(await loadCommand(name), []);
  const out: Page[] = [];
  for (const path of paths) {
    const r = await osimage([...path, '--help']);
    expect(r.exitCode, `osimage ${path.join(' ')} --help`).toBe(0);
    out.push({ path, help: r.stdout });
  }
  return out;
}

const all = await pages();
const title = (p: Page) => `osimage ${p.path.join(' ')}`.trim();

/** The text of one section (`Options:`, `Commands:`, …) up to the next heading. */
function section(help: string, heading: string): string {
  const start = help.indexOf(`\n${heading}:\n`);
  if (start < 0) return '';
  const rest = help.slice(start + heading.length + 3);
  const end = rest.search(/\n\S[^\n]*:\n/);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Each entry of the Options section, its wrapped lines joined. */
function optionEntries(help: string): string[] {
  const entries: string[] = [];
  for (const line of [...section(help, 'Options').split('\n'), ...section(help, 'Global Options').split('\n')]) {
    if (/^ {2}-/.test(line)) entries.push(line.trim());
    else if (/^ {8,}\S/.test(line) && entries.length > 0) entries[entries.length - 1] += ` ${line.trim()}`;
  }
  return entries;
}

describe('summaries come from the command table', () => {
  it.each(Object.keys(COMMANDS))('%s: the table names the subcommands the module has; the module types no summary', async (name) => {
    const entry = COMMANDS[name]!;
    const raw = (await entry.load()).command();
    const visible = raw.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden).map((c) => c.name());
    expect(Object.keys(entry.subcommands ?? {}), `COMMANDS.${name}.subcommands against src/commands`).toEqual(visible);
    expect(raw.summary(), `${name} sets its own summary`).toBe('');
    for (const sub of raw.commands) expect(sub.summary(), `${name} ${sub.name()} sets its own summary`).toBe('');
    const loaded = await loadCommand(name);
    for (const sub of loaded.commands) expect(sub.summary()).toBe(entry.subcommands?.[sub.name()]);
  });

  it('the top-level list shows each summary with its subcommands, derived from the table', async () => {
    const top = all.find((p) => p.path.length === 0)!.help.replace(/\s+/g, ' ');
    for (const [name, entry] of Object.entries(COMMANDS)) {
      expect(top).toContain(`${name} ${summaryOf(entry)}`);
      for (const sub of Object.keys(entry.subcommands ?? {})) expect(summaryOf(entry)).toMatch(new RegExp(`[:,] ${sub}(,|$)`));
    }
  });
});

describe('help says each thing once', () => {
  it.each(all.map((p) => [title(p), p] as const))('%s: no sentence twice', (_t, p) => {
    const prose = p.help.replace(/\nExamples:\n[\s\S]*$/, '').replace(/\s+/g, ' ');
    const sentences = prose.split(/(?<=[.;])\s+/).filter((s) => s.length >= 40);
    const twice = sentences.filter((s, i) => sentences.indexOf(s) !== i);
    expect(twice).toEqual([]);
  });

  it.each(all.map((p) => [title(p), p] as const))('%s: each default once, and only one that says something', (_t, p) => {
    for (const entry of optionEntries(p.help)) {
      expect(entry.match(/\bdefault\b/g)?.length ?? 0, entry).toBeLessThanOrEqual(1);
      expect(entry, entry).not.toMatch(/default: (\[\]|false\b|"\d+")/);
    }
  });
});

describe('help shows examples and names only what an installed copy has', () => {
  it.each(all.map((p) => [title(p), p] as const))('%s', (_t, p) => {
    expect(p.help).toMatch(/\nExamples:\n {2}\S/);
    expect(p.help).not.toMatch(/docs\/|hack\/sample/);
  });
});

// release verify-signatures says which images it can check itself (signatures are made for registry digests).
const readsImages = (p: Page) => /\n(IMAGE is|OLD and NEW are)|--release <image>/.test(p.help) && !p.path.includes('verify-signatures');

describe('help names every transport an image argument takes', () => {
  it.each(all.filter(readsImages).map((p) => [title(p), p] as const))('%s', (_t, p) => {
    for (const transport of ['docker://', 'oci:', 'oci-archive:', 'dir:', 'docker-archive:']) expect(p.help).toContain(transport);
  });
});

describe('help names the aliases it hides', () => {
  it.each(all.filter((p) => p.help.includes('--registry-config')).map((p) => [title(p), p] as const))('%s: --authfile', (_t, p) => {
    expect(p.help).toContain('--authfile');
  });
});

describe("help and usage errors in oc's words", () => {
  it('`osimage help A B` is the help of `A B`', async () => {
    for (const path of [['payload', 'write'], ['release', 'info'], ['release'], ['cache', 'prune']]) {
      const help = await osimage(['help', ...path]);
      expect(help.exitCode).toBe(0);
      expect(help.stdout, path.join(' ')).toBe((await osimage([...path, '--help'])).stdout);
    }
  });

  it.each([
    [['bogus'], "error: unknown command 'bogus'", 'osimage'],
    [['release', 'info'], "error: missing required argument 'image'", 'osimage release info'],
    [['resolve', '-o', 'yaml'], "error: option '-o, --output <format>' argument 'yaml' is invalid.", 'osimage resolve'],
    [['payload', 'write'], "error: required option '--dir <dir>' not specified", 'osimage payload write'],
    [['release', 'info', '--bogus', 'x'], 'error: unknown flag: --bogus', 'osimage release info'],
    [['help', 'bogus'], "error: unknown command 'bogus'", 'osimage'],
    [['help', 'release', 'bogus'], "error: unknown command 'bogus'", 'osimage release'],
  ])('%j: the error, then See … for usage, exit 2', async (args, first, command) => {
    const r = await osimage(args);
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toContain(first);
    expect(lines.at(-1)).toBe(`See '${command} --help' for usage.`);
  });
});

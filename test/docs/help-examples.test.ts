/**
 * The examples of `--help` run as written against the public mirror's layout, offline. The default base URL
 * (src/rhcos/defaults.ts) is stood in, through RHCOS_BASE_URL, by a folder holding only the prod-stream channels
 * of the sample release browser (`4.16-9.4/builds`, `4.18-9.4/builds`, `rhel-10.2/builds`, laid out as the mirror's
 * `art/storage/prod/streams`), so an example that names a channel or build the mirror's layout does not have
 * fails here.
 *
 * Run are the examples of the commands that read a release browser (those with --base-url) that need nothing
 * else: no shell syntax, no registry or URL, no placeholder (`OLD`, `REGISTRY/…`), no release image, and no
 * option whose value is a file or folder the user has (`--dir <dir>`, `--pins <file>`, …). Each must exit 0,
 * or N with a `# exit N` comment.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, loadCommand } from '../../src/cli.js';
import { SAMPLE_RELEASES, osimage } from '../helpers/cli.js';
import { words } from '../helpers/doc-examples.js';

const mirror = mkdtempSync(join(tmpdir(), 'osimage-prod-streams-'));

/** The prod streams of the sample, as the mirror lays them out. */
const PROD_STREAMS = ['4.16-9.4/builds', '4.18-9.4/builds', 'rhel-10.2/builds'];
for (const s of PROD_STREAMS) cpSync(join(SAMPLE_RELEASES, s), join(mirror, s), { recursive: true });
const cacheDir = mkdtempSync(join(tmpdir(), 'osimage-help-cache-'));
afterAll(() => {
  rmSync(mirror, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

interface HelpExample {
  command: string;
  text: string;
  args: string[];
  env: Record<string, string>;
  exit: number;
}

const SHELL = /[$…<>|&;`]/;
/** A registry, a URL or a host: `quay.io/…`, `https://…`, `file://…`, `localhost:5000/…` (not a channel: `4.18-9.4/builds`). */
const REMOTE = /(:\/\/|^localhost\b|^127\.0\.0\.1\b|^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z][a-z0-9-]*(:\d+)?\/)/;
/** `OLD`, `NEW`, `REGISTRY/ocp/release:…`: a value the reader fills in. */
const PLACEHOLDER = /^[A-Z][A-Z_-]+(\/|$)/;
const IMAGE = /^(oci|oci-archive|docker|dir|docker-archive):/;
const ASSIGN = /^[A-Z_][A-Z0-9_]*=\S*$/;

/** The example lines of `cmd`'s help (its `Examples:` block), continuation lines joined. */
function helpExamples(cmd: Command, path: string): HelpExample[] {
  let after = '';
  // commander's help text events (addHelpText) are not in its typings: Command is an EventEmitter.
  (cmd as unknown as NodeJS.EventEmitter).emit('afterHelp', { error: false, command: cmd, write: (s: string) => void (after += s) });
  const block = after
    .slice(after.indexOf('\nExamples:\n') + 1)
    .split('\n')
    .slice(1);
  const lines: string[] = [];
  for (const raw of block) {
    const line = raw.trim();
    if (lines.length > 0 && lines.at(-1)!.endsWith('\\')) lines[lines.length - 1] = `${lines.at(-1)!.slice(0, -1)} ${line}`;
    else if (line !== '') lines.push(line);
  }
  return lines.map((text) => {
    const comment = /\s#\s(.*)$/.exec(text);
    const exit = Number(/\bexit (\d)\b/.exec(comment?.[1] ?? '')?.[1] ?? 0);
    const bare = comment ? text.slice(0, comment.index).trim() : text;
    const w = SHELL.test(bare) ? [] : words(bare);
    const env: Record<string, string> = {};
    while (w.length > 0 && ASSIGN.test(w[0]!)) {
      const a = w.shift()!;
      env[a.slice(0, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
    }
    return { command: path, text, args: w[0] === 'osimage' ? w.slice(1) : [], env, exit };
  });
}

/** Options whose value names a file or folder the user has. */
const takesPath = (cmd: Command) =>
  new Set(
    cmd.options.filter((o) => /<[^>]*(file|dir|path)[^>]*>/.test(o.flags)).flatMap((o) => [o.long, o.short].filter(Boolean) as string[]),
  );

/** Every command that reads a release browser, with its examples. */
async function browserExamples(): Promise<{ run: HelpExample[]; skipped: HelpExample[] }> {
  const run: HelpExample[] = [];
  const skipped: HelpExample[] = [];
  const walk = (c: Command, parent: string[]) => {
    const path = [...parent, c.name()];
    if (c.options.some((o) => o.long === '--base-url')) {
      const paths = takesPath(c);
      for (const e of helpExamples(c, path.join(' '))) {
        const runnable =
          e.args.length > 0 &&
          !e.args.some((a) => REMOTE.test(a) || PLACEHOLDER.test(a) || IMAGE.test(a) || paths.has(a.replace(/=.*$/, '')));
        (runnable ? run : skipped).push(e);
      }
    }
    for (const s of c.commands) walk(s, path);
  };
  for (const name of Object.keys(COMMANDS)) walk(await loadCommand(name), []);
  return { run, skipped };
}

const { run } = await browserExamples();

describe('the help examples that read the release browser run against the public mirror layout', () => {
  it('there are such examples for builds, resolve, packages, diff and stream', () => {
    expect(new Set(run.map((e) => e.command))).toEqual(new Set(['builds', 'resolve', 'packages', 'diff', 'stream']));
  });

  it.each(run.map((e) => [`${e.command}: ${e.text}`, e] as const))('%s', async (_name, e) => {
    const ws = mkdtempSync(join(tmpdir(), 'osimage-help-example-'));
    const home = process.cwd();
    mkdirSync(ws, { recursive: true });
    process.chdir(ws);
    try {
      // The default base URL stood in by the documented override: RHCOS_BASE_URL (an example may set its own).
      const r = await osimage(e.args, { env: { RHCOS_BASE_URL: pathToFileURL(mirror).toString(), ...e.env, OSIMAGE_CACHE_DIR: cacheDir } });
      expect(r.exitCode, `${e.text}\n${r.stderr}`).toBe(e.exit);
    } finally {
      process.chdir(home);
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli.js';
import { BIN, REPO, osimage, osimageBin, testEnv } from '../helpers/cli.js';
import { serveFolder } from '../helpers/file-server.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The `Commands:` section of a help text: each command's name and description (wrapped lines joined). */
function helpCommands(help: string): Map<string, string> {
  const out = new Map<string, string>();
  let last: string | undefined;
  for (const line of (help.split(/^Commands:\n/m)[1] ?? '').split('\n')) {
    if (line.trim() === '') break;
    const [, name, text] = /^ {2}(\S+).*? {2,}(\S.*)$/.exec(line) ?? [];
    if (name && text) out.set((last = name), text);
    else if (last) out.set(last, `${out.get(last)} ${line.trim()}`);
  }
  return out;
}

describe('osimage (top level)', () => {
  it('--version prints `osimage VERSION`, then the Node.js version (the commit only from a build)', async () => {
    const r = await osimage(['--version']);
    expect(r.exitCode).toBe(0);
    // src/ has no dist/build-info.json beside it: no commit line.
    expect(r.stdout).toBe(`osimage ${VERSION}\nnode ${process.version}`);
    expect((await osimage(['-V'])).stdout).toBe(r.stdout);
  });

  it('--help lists every command; each summary names every subcommand; every command has usage and examples', async () => {
    const top = await osimage(['--help']);
    expect(top.exitCode).toBe(0);
    const commands = helpCommands(top.stdout);
    expect([...commands.keys()]).toEqual([...Object.keys(COMMANDS), 'help']);
    for (const [name, summary] of commands) {
      if (name === 'help') continue;
      const h = await osimage([name, '--help']);
      expect(h.exitCode, name).toBe(0);
      expect(h.stdout, name).toContain(`Usage: osimage ${name} `);
      expect(h.stdout, name).toContain('Examples:\n  osimage ');
      const subs = [...helpCommands(h.stdout).keys()].filter((s) => s !== 'help');
      // Named as a word: `coreos-bootimages` names `bootimages`; `information` does not name `info`.
      const named = (word: string) => new RegExp(`\\b${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(summary);
      expect(
        subs.filter((s) => !named(s)),
        `the summary of ${name} ("${summary}") leaves out subcommands`,
      ).toEqual([]);
      // A summary ending in a list (`...: info, prune, clear`) lists subcommands only.
      const list = /: ([\w-]+(?:, [\w-]+)+)$/.exec(summary)?.[1]?.split(', ') ?? [];
      if (subs.length > 0)
        expect(
          list.filter((w) => !subs.includes(w)),
          `the summary of ${name} names no such subcommand`,
        ).toEqual([]);
      for (const sub of subs) {
        const sh = await osimage([name, sub, '--help']);
        expect(sh.exitCode, `${name} ${sub}`).toBe(0);
        expect(sh.stdout, `${name} ${sub}`).toContain(`Usage: osimage ${name} ${sub} `);
        expect(sh.stdout, `${name} ${sub}`).toContain('Examples:\n  osimage ');
      }
    }
  });

  it.each(['resolve', 'builds'])('%s --help shows the settings', async (cmd) => {
    const r = await osimage([cmd, '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('--base-url');
  });

  it('an unknown command or option is a usage error (exit 2)', async () => {
    const a = await osimage(['frobnicate']);
    expect(a.exitCode).toBe(2);
    expect(a.stderr).toMatch(/^error: unknown command 'frobnicate'/);
    const b = await osimage(['resolve', '--nope']);
    expect(b.exitCode).toBe(2);
    // pflag's words, as oc prints them (src/commands/argv.ts).
    expect(b.stderr).toBe("error: unknown flag: --nope\nSee 'osimage resolve --help' for usage.");
    const c = await osimage(['resolve', '-o', 'yaml']);
    expect(c.exitCode).toBe(2);
  });
});

describe('bin/osimage (the built launcher, as a subprocess)', () => {
  it('starts, prints the version and exits 0', async () => {
    const r = await osimageBin(['--version']);
    expect(r).toMatchObject({ stderr: '', exitCode: 0 });
    // A build in a git checkout adds the commit it built (build/build-info.mjs).
    expect(r.stdout).toMatch(
      new RegExp(`^osimage ${VERSION.replace(/\./g, '\\.')}\nnode ${process.version}(\ncommit [0-9a-f]{40}( \\(modified\\))?)?$`),
    );
  });

  it('exits 2 on a usage error and 1 on a failure, with one error line', async () => {
    const usage = await osimageBin(['frobnicate']);
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr).toMatch(/^error: unknown command 'frobnicate'/);
    const failure = await osimageBin(['release', 'info', 'oci-archive:/nonexistent/release.tar']);
    expect(failure.exitCode).toBe(1);
    expect(failure.stderr).toMatch(/^error: .*\/nonexistent\/release\.tar/);
    expect(failure.stderr.split('\n')).toHaveLength(1);
  });

  it('a closed pipe (| head, | true) ends it quietly with exit 0', async () => {
    // `true` exits without reading, so osimage writes into a closed pipe (EPIPE).
    const r = await execa('bash', ['-c', `"$OSIMAGE" --help | true; echo "exit \${PIPESTATUS[0]}" >&2`], {
      cwd: REPO,
      env: testEnv({ OSIMAGE: BIN }),
      extendEnv: false,
      reject: false,
    });
    expect(r.stderr).toBe('exit 0');
    const head = await execa('bash', ['-c', '"$OSIMAGE" release info oci-archive:hack/sample/release.oci-archive | head -1'], {
      cwd: REPO,
      env: testEnv({ OSIMAGE: BIN }),
      extendEnv: false,
      reject: false,
    });
    expect(head).toMatchObject({ stdout: expect.stringMatching(/^Name: /), stderr: '', exitCode: 0 });
  });

  it('a closed pipe keeps the exit code a run asked for (`builds | true` with a pin that is not listed: exit 1)', async () => {
    // `builds` prints the list, then the error, then asks for exit 1 without throwing; the closed pipe
    // ends the process in the launcher, which must still exit 1.
    // Over HTTP, so that the run still has work (closing its connections) when the EPIPE arrives.
    const server = await serveFolder(join(REPO, 'test/fixtures/browser'));
    try {
      const cmd = `"$OSIMAGE" builds --base-url ${server.url} --channel maipo --build 0.0 | true; echo "exit \${PIPESTATUS[0]}" >&2`;
      const r = await execa('bash', ['-c', cmd], { cwd: REPO, env: testEnv({ OSIMAGE: BIN }), extendEnv: false, reject: false });
      expect(r.stderr).toMatch(/^error: no build with name '0\.0'/);
      expect(r.stderr).toMatch(/\nexit 1$/);
    } finally {
      await server.close();
    }
  });
});

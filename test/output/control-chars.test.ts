/**
 * control characters from outside never reach the terminal. Build ids in builds.json and
 * tag names and annotations in a release image carrying ANSI/OSC escapes, C1 controls and bidi overrides
 * are printed as visible escapes (`\x1b`, `\u202e`) in text views, warnings and errors; `-o json` keeps the
 * exact values (JSON-escaped).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { escapeControls, escapeText } from '../../src/output/escape.js';
import { osimage } from '../helpers/cli.js';
import { type FileServer, serveFolder } from '../helpers/file-server.js';
import { CLI_PULLSPEC, entry, layout, releaseImage } from '../helpers/oci-builder.js';

/** Retitles the terminal (OSC 0 ended by BEL) and turns the text red (CSI). */
const OSC_ID = '48.1\x1b]0;pwned\x07\x1b[31m';
/** A C1 CSI (0x9b) and DEL. */
const C1_ID = '48.2\x9b31m\x7f';
/** A right-to-left override and an isolate. */
const BIDI_ID = '48.3\u202etxt.exe\u2066';
const IDS = [OSC_ID, C1_ID, BIDI_ID, '47.246'];

/** Anything that drives a terminal: C0 but newline and tab, DEL, C1, bidi controls. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function expectClean(...texts: string[]): void {
  for (const t of texts) expect(t).not.toMatch(RAW_CONTROL);
}

let root: string;
let server: FileServer;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'osimage-controls-'));
  await mkdir(join(root, 'hostile'), { recursive: true });
  await writeFile(join(root, 'hostile', 'builds.json'), JSON.stringify({ builds: IDS }));
  // A listed build whose meta.json says another (hostile) buildid and carries a hostile ostree-version.
  const meta = JSON.parse(await readFile(fileURLToPath(new URL('../fixtures/browser/maipo/47.246/meta.json', import.meta.url)), 'utf8'));
  await mkdir(join(root, 'hostile', '47.246'), { recursive: true });
  await writeFile(
    join(root, 'hostile', '47.246', 'meta.json'),
    JSON.stringify({ ...meta, buildid: OSC_ID, 'ostree-version': `47.246${'\x1b'}]8;;http://evil/${'\x07'}` }),
  );
  server = await serveFolder(root);
});
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

const browser = () => ['--base-url', server.url, '--channel', 'hostile'];

describe('build ids from builds.json', () => {
  test('a pinned build that is not listed: the error lists the hostile ids escaped', async () => {
    const r = await osimage(['resolve', ...browser(), '--build', '99.9']);
    expect(r.exitCode).toBe(1);
    expectClean(r.stdout, r.stderr);
    expect(r.stderr).toContain(String.raw`48.1\x1b]0;pwned\x07\x1b[31m`);
    expect(r.stderr).toContain(String.raw`48.2\x9b31m\x7f`);
    expect(r.stderr).toContain(String.raw`48.3\u202etxt.exe\u2066`);
  });

  test('`osimage builds` text view escapes them in the table and in the error', async () => {
    const r = await osimage(['builds', ...browser(), '--build', '99.9']);
    expect(r.exitCode).toBe(1);
    expectClean(r.stdout, r.stderr);
    expect(r.stdout).toContain(String.raw`48.1\x1b]0;pwned\x07\x1b[31m`);
    expect(r.stdout).toContain(String.raw`48.3\u202etxt.exe\u2066`);
    expect(r.stderr).toMatch(/^error: no build with name '99\.9'/);
  });

  test('`osimage builds -o json` keeps the ids exact', async () => {
    const r = await osimage(['builds', ...browser(), '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect((JSON.parse(r.stdout) as { builds: Array<{ id: string }> }).builds.map((b) => b.id)).toEqual(IDS);
  });
});

describe('meta.json values', () => {
  test('`resolve` text view and the buildid warning escape them', async () => {
    const r = await osimage(['resolve', ...browser(), '--build', '47.246']);
    expect(r.exitCode).toBe(0);
    expectClean(r.stdout, r.stderr);
    expect(r.stdout).toMatch(/^OSTree version: +47\.246\\x1b\]8;;http:\/\/evil\/\\x07$/m);
    expect(r.stderr).toContain(String.raw`says buildid 48.1\x1b]0;pwned\x07\x1b[31m, not 47.246`);
  });
});

describe('release info of a hostile image', () => {
  let ref: string;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'osimage-controls-release-'));
    const img = await releaseImage({
      tags: [
        {
          name: 'cli\x1b]0;owned\x07',
          pullspec: CLI_PULLSPEC,
          annotations: {
            'io.openshift.build.commit.id': '\x1b[31mdeadbeef\u202e',
            'io.openshift.build.source-location': 'https://github.com/openshift/oc\x9b2J',
            'io.openshift.build.versions': 'kubectl=1.26.1\x1b[2J',
          },
        },
        { name: 'tools\x1b[?1049h', pullspec: 'quay.io/x/tools:latest' },
      ],
    });
    ref = await layout(dir, 'hostile', [entry(img, '4.13.1')], '4.13.1');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test.each([[[]], [['--commits']], [['--pullspecs']], [['--commit-urls']]])(
    'text view %j escapes tag names and annotations',
    async (flags) => {
      const r = await osimage(['release', 'info', ref, ...flags]);
      expect(r.exitCode).toBe(0);
      expectClean(r.stdout, r.stderr);
      expect(r.stdout).toContain(String.raw`cli\x1b]0;owned\x07`);
    },
  );

  test('the commits view shows the hostile annotations escaped', async () => {
    const r = await osimage(['release', 'info', ref, '--commits']);
    expect(r.stdout).toContain(String.raw`\x1b[31mdeadbeef\u202e`);
    expect(r.stdout).toContain(String.raw`https://github.com/openshift/oc\x9b2J`);
  });

  test('an error naming a hostile tag (`-o digest` of a pullspec without digest) is escaped', async () => {
    const r = await osimage(['release', 'info', ref, '-o', 'digest']);
    expectClean(r.stderr);
    expect(r.stderr).toContain(String.raw`error: tools\x1b[?1049h does not point to a digest`);
  });

  test('`release info -o json` keeps the tag names exact', async () => {
    const r = await osimage(['release', 'info', ref, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const tags = (JSON.parse(r.stdout) as { references: { spec: { tags: Array<{ name: string }> } } }).references.spec.tags;
    expect(tags.map((t) => t.name)).toEqual(['cli\x1b]0;owned\x07', 'tools\x1b[?1049h']);
  });
});

describe('escape.ts', () => {
  test('C0, DEL, C1 and bidi controls become visible escapes; escapeText keeps newlines and tabs', () => {
    const hostile = 'a\x00\x07\x1b[1m\x7f\x85\x9b\u202a\u202e\u2066\u2069\tb\nc';
    expect(escapeControls(hostile)).toBe(String.raw`a\x00\x07\x1b[1m\x7f\x85\x9b\u202a\u202e\u2066\u2069\x09b\x0ac`);
    expect(escapeText(hostile)).toBe(`${String.raw`a\x00\x07\x1b[1m\x7f\x85\x9b\u202a\u202e\u2066\u2069`}\tb\nc`);
    expect(escapeText('plain ünïcödé \u200f text')).toBe('plain ünïcödé \u200f text');
  });
});

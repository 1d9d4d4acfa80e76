/**
 * The progress bar (TTY only) and the shipped sample release image.
 */
import { describe, expect, test } from 'vitest';
import { progressBar } from '../../src/output/progress.js';
import { tabwrite } from '../../src/output/release-view.js';
import { execa } from 'execa';
import { BIN, REPO, osimage } from '../helpers/cli.js';

function sink(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const s = {
    isTTY,
    text: '',
    write(chunk: string) {
      s.text += chunk;
      return true;
    },
  };
  return s as unknown as NodeJS.WriteStream & { text: string };
}

describe('progress bar', () => {
  test('draws on a TTY and clears its line when done', () => {
    const s = sink(true);
    const p = progressBar(s, {});
    p.update(`sha256:${'ab'.repeat(32)}`, 512 * 1024, 1024 * 1024);
    expect(s.text).toBe(`\r\x1b[Kabababababab [${'='.repeat(15)}${' '.repeat(15)}] 50% 0.5/1.0 MiB`);
    const small = sink(true);
    progressBar(small, {}).update('sha256:0123456789abcdef', 1536, 1536);
    expect(small.text).toBe(`\r\x1b[K0123456789ab [${'='.repeat(30)}] 100% 1.5/1.5 KiB`);
    p.done();
    expect(s.text.endsWith('\r\x1b[K')).toBe(true);
  });

  test('writes nothing when stderr is not a TTY, or TERM is dumb', () => {
    for (const [tty, env] of [
      [false, {}],
      [true, { TERM: 'dumb' }],
    ] as const) {
      const s = sink(tty);
      const p = progressBar(s, env);
      p.update('sha256:00', 1, 2);
      p.done();
      expect(s.text).toBe('');
    }
  });
});

const hasScript = await execa('script', ['--version'], { reject: false }).then(
  (r) => r.exitCode === 0,
  () => false,
);

describe.skipIf(!hasScript)('on a real terminal (util-linux script gives the CLI a TTY)', () => {
  test('blob downloads draw a bar on stderr, cleared before the answer', async () => {
    const r = await execa(
      'script',
      ['-qec', `${BIN} release info --image-for cli oci-archive:hack/sample/release.oci-archive`, '/dev/null'],
      {
        cwd: REPO,
        reject: false,
        env: { NO_COLOR: '1', TERM: 'xterm' },
      },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/\r\x1b\[K[0-9a-f]{12} \[=+\] 100% [0-9.]+\/[0-9.]+ KiB/);
    expect(r.stdout).toMatch(/\r\x1b\[Kquay\.io\/openshift-release-dev\/ocp-v4\.0-art-dev@sha256:1{64}\r?$/);
  });
});

describe('tabwriter layout (Go text/tabwriter, padding 1)', () => {
  test('a column is as wide as its widest cell in a run of lines that have it', () => {
    expect(tabwrite('a:\tx\nlonger:\ty\n\nc:\tz\n')).toBe('a:      x\nlonger: y\n\nc: z\n');
    // Cells after the last tab are not a column; a line without the column ends the run.
    expect(tabwrite('  k\tv\tdisplay\n  kk\tvv\t\nnone\n  k\tv\n')).toBe('  k  v  display\n  kk vv \nnone\n  k v\n');
  });
});

describe('the sample release image (hack/sample/release.oci-archive)', () => {
  test('release info reads it offline', async () => {
    const r = await osimage(['release', 'info', 'oci-archive:hack/sample/release.oci-archive:4.13.1']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Name: +4\.13\.1$/m);
    expect(r.stdout).toMatch(/^Manifests: +2$/m);
    const m = await osimage(['release', 'info', '--image-for', 'machine-os-content', 'oci-archive:hack/sample/release.oci-archive']);
    expect(m).toEqual({ stdout: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'3'.repeat(64)}`, stderr: '', exitCode: 0 });
  });
});

/**
 * hack/release.sh (the example release script users copy) and hack/demo.sh (`npm start`), run for real on
 * the offline sample: they are the product's main job, so a change that breaks them fails here.
 * The pipeline runs once: the demo runs the release script as its steps 3-6 (payload write -> release new ->
 * release info -> verify) on a copy of the sample payload, and both are checked on that one run. README.md's
 * own walk through the same steps runs in-process in test/docs/drift.test.ts: it checks the commands as the
 * README writes them, which this run cannot, at a fifth of the cost.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO, SAMPLE_RELEASES, testEnv } from '../helpers/cli.js';

/** The test environment, without the host's payload and release settings either. */
const cleanEnv = (extra: Record<string, string>) => testEnv(extra, /PAYLOAD_DIR|RELEASE_|OSIMAGE_DEMO_DIR/);

let dir: string;
let work: string;
let demo: { stdout: string; stderr: string; exitCode?: number | undefined };
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-script-'));
  work = join(dir, 'demo');
  await mkdir(work);
  demo = await execa('bash', [join(REPO, 'hack/demo.sh')], { env: cleanEnv({ OSIMAGE_DEMO_DIR: work }), extendEnv: false, reject: false });
}, 180_000);
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** The demo's output under one `== title` heading, up to the next. */
function step(title: string): string {
  const found = demo.stdout.split(/^== /m).find((s) => s.startsWith(title));
  if (found === undefined) throw new Error(`no step "${title}" in the demo's output:\n${demo.stdout}`);
  return found;
}

describe('hack/release.sh (the demo’s steps 3-6)', () => {
  it('writes the pinned OS container into the payload, builds the release, and verifies it', async () => {
    expect(demo.exitCode).toBe(0);
    const out = step('3-6. the release script');
    const build = /^Build: +(412\.86\.\d{12}-0) \(pinned\)$/m.exec(out)?.[1];
    // Step 2 pinned the newest build of the channel in the demo's copy of the script.
    expect(build).toBe('412.86.202301311551-0');
    expect(out).toMatch(/^sha256:[0-9a-f]{64} 4\.12\.99 1970-01-01T00:00:00Z$/m);
    expect(out).toMatch(/^consistent: the payload ships the bootimage's OS image$/m);
    const cm = await readFile(join(work, 'payload/machine-config-operator/0000_30_machine-config-operator_05_osimageurl.yaml'), 'utf8');
    const refs = await readFile(join(work, 'payload/machine-config-operator/image-references'), 'utf8');
    const meta = JSON.parse(await readFile(join(SAMPLE_RELEASES, `rhcos-4.12/${build}/x86_64/meta.json`), 'utf8'));
    const pullspec = `${meta.oscontainer.image}@${meta.oscontainer.digest}`;
    expect(cm).toContain(pullspec);
    expect(refs).toContain(pullspec);
  });

  it('as shipped, resolves its own pin, and refuses to assemble without a version', async () => {
    const r = await execa('bash', [join(REPO, 'hack/release.sh')], {
      env: cleanEnv({ OSIMAGE: BIN, RHCOS_BASE_URL: `file://${SAMPLE_RELEASES}`, PAYLOAD_DIR: join(dir, 'payload') }),
      extendEnv: false,
      reject: false,
    });
    expect(r.stdout).toMatch(/^Build: +412\.86\.202301250001-0 \(pinned\)$/m);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('RELEASE_VERSION');
  });
});

describe('npm start (hack/demo.sh)', () => {
  it('runs the whole pipeline offline and exits 0', () => {
    expect(demo.exitCode, demo.stderr).toBe(0);
    const steps = [
      '1. resolve',
      '2. pin',
      '3-6. the release script',
      'verify the shipped sample release',
      'promote',
      'release new --from-release',
      'done',
    ];
    for (const s of steps) {
      expect(demo.stdout).toContain(`== ${s}`);
    }
    expect(demo.stdout).toMatch(/^promoted 412\.86\.202301311551-0 /m);
    // The OS swap of the sample release 4.16.3: the new build in release info, and verify consistent with it.
    expect(demo.stderr).toContain('info: rhel-coreos: 416.94.202406251923-0 → 416.94.202407081958-0');
    expect(demo.stdout).toMatch(/^ {2}machine-os 416\.94\.202407081958-0 Red Hat Enterprise Linux CoreOS$/m);
    expect(demo.stdout).toMatch(/^Payload: oci-archive:.*\/swapped\.tar:4\.16\.3 tag rhel-coreos$/m);
  });
});

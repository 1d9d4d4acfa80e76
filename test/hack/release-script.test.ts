/**
 * hack/release.sh (the example release script users copy) and hack/demo.sh (`npm start`), run for real on
 * the offline sample: they are the product's main job, so a change that breaks them fails here.
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO, SAMPLE_RELEASES, testEnv } from '../helpers/cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-script-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** The test environment, without the host's payload and release settings either. */
const cleanEnv = (extra: Record<string, string>) => testEnv(extra, /PAYLOAD_DIR|RELEASE_/);

describe('hack/release.sh', () => {
  it('writes the pinned OS container into the payload, builds the release, and verifies it', async () => {
    await cp(join(REPO, 'hack/release.sh'), join(dir, 'release.sh'));
    await cp(join(REPO, 'hack/sample/payload'), join(dir, 'payload'), { recursive: true });
    const r = await execa('bash', [join(dir, 'release.sh')], {
      env: cleanEnv({
        OSIMAGE: BIN,
        RHCOS_BASE_URL: `file://${SAMPLE_RELEASES}`,
        PAYLOAD_DIR: join(dir, 'payload'),
        RELEASE_VERSION: '4.12.99',
        RELEASE_IMAGE: `oci-archive:${join(dir, 'release.tar')}`,
      }),
      extendEnv: false,
      reject: false,
    });
    expect(r.stderr).not.toMatch(/^error:/m);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Build: +412\.86\.202301250001-0 \(pinned\)$/m);
    expect(r.stdout).toMatch(/^sha256:[0-9a-f]{64} 4\.12\.99 1970-01-01T00:00:00Z$/m);
    expect(r.stdout).toMatch(/^consistent: the payload ships the bootimage's OS image$/m);
    const cm = await readFile(join(dir, 'payload/machine-config-operator/0000_30_machine-config-operator_05_osimageurl.yaml'), 'utf8');
    const refs = await readFile(join(dir, 'payload/machine-config-operator/image-references'), 'utf8');
    const meta = JSON.parse(await readFile(join(SAMPLE_RELEASES, 'rhcos-4.12/412.86.202301250001-0/x86_64/meta.json'), 'utf8'));
    const pullspec = `${meta.oscontainer.image}@${meta.oscontainer.digest}`;
    expect(cm).toContain(pullspec);
    expect(refs).toContain(pullspec);
  });

  it('refuses to assemble without a version', async () => {
    const r = await execa('bash', [join(REPO, 'hack/release.sh')], {
      env: cleanEnv({ OSIMAGE: BIN, RHCOS_BASE_URL: `file://${SAMPLE_RELEASES}`, PAYLOAD_DIR: join(dir, 'payload') }),
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('RELEASE_VERSION');
  });
});

describe('npm start (hack/demo.sh)', () => {
  it('runs the whole pipeline offline and exits 0', async () => {
    const r = await execa('bash', [join(REPO, 'hack/demo.sh')], { env: cleanEnv({}), extendEnv: false, reject: false });
    expect(r.exitCode).toBe(0);
    const steps = [
      '1. resolve',
      '2. pin',
      '3-6. the release script',
      'verify the shipped sample release',
      'promote',
      'release new --from-release',
      'done',
    ];
    for (const step of steps) {
      expect(r.stdout).toContain(`== ${step}`);
    }
    expect(r.stdout).toMatch(/^consistent: the payload ships the bootimage's OS image$/m);
    expect(r.stdout).toMatch(/^promoted 412\.86\.202301311551-0 /m);
    // The OS swap of the sample release 4.16.3: the new build in release info, and verify consistent with it.
    expect(r.stderr).toContain('info: rhel-coreos: 416.94.202406251923-0 → 416.94.202407081958-0');
    expect(r.stdout).toMatch(/^ {2}machine-os 416\.94\.202407081958-0 Red Hat Enterprise Linux CoreOS$/m);
    expect(r.stdout).toMatch(/^Payload: oci-archive:.*\/swapped\.tar:4\.16\.3 tag rhel-coreos$/m);
  }, 120_000);
});

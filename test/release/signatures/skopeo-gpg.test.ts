/**
 * GPG simple signing against an independent oracle: gpg makes the key and skopeo's `standalone-sign` makes the
 * signature (Debian's skopeo, containers/image's simple signing: a compressed, signed OpenPGP message), placed
 * in the cluster-version operator's store layout by hand (skopeo's own lookaside layout differs). osimage must
 * verify it, and refuse it for another digest.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../../helpers/cli.js';
import { archive, entry, releaseImage, tempDir, type Temp } from '../../helpers/oci-builder.js';

const HAVE_TOOLS = existsSync('/usr/bin/gpg') && existsSync('/usr/bin/skopeo');

describe.runIf(HAVE_TOOLS)('release verify-signatures: what skopeo standalone-sign signs', () => {
  let tmp: Temp;
  let env: Record<string, string>;
  let fpr: string;
  let ref: string;
  let digest: string;
  let manifestFile: string;
  let storeDir: string;

  beforeAll(async () => {
    tmp = await tempDir('osimage-skopeo-');
    const home = join(tmp.dir, 'gnupg');
    await mkdir(home, { mode: 0o700 });
    env = { ...process.env, GNUPGHOME: home } as Record<string, string>;
    await execa('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', 'Osimage Test <test@example.com>', 'nistp256', 'sign', 'never'], {
      env,
    });
    const listed = await execa('gpg', ['--list-keys', '--with-colons'], { env });
    fpr = /^fpr:+([0-9A-F]{40}):/m.exec(listed.stdout)![1]!;
    await execa('gpg', ['--batch', '--export', '--armor', '--output', join(tmp.dir, 'key.asc'), fpr], { env });
    const image = await releaseImage({ name: '4.17.2' });
    manifestFile = join(tmp.dir, 'manifest.json');
    await writeFile(manifestFile, image.bytes);
    digest = image.descriptor.digest;
    ref = await archive(tmp.dir, 'release.tar', [entry(image, '4.17.2')], '4.17.2');
    storeDir = join(tmp.dir, 'store');
    await mkdir(join(storeDir, digest.replace(':', '=')), { recursive: true });
    await execa(
      'skopeo',
      [
        'standalone-sign',
        manifestFile,
        'quay.io/openshift-release-dev/ocp-release:4.17.2-x86_64',
        fpr,
        '-o',
        join(storeDir, digest.replace(':', '='), 'signature-1'),
      ],
      { env },
    );
  }, 60_000);

  afterAll(async () => {
    await execa('gpgconf', ['--kill', 'gpg-agent'], { env, reject: false });
    await tmp?.cleanup();
  });

  test('osimage verifies it, reporting skopeo as the creator', async () => {
    const r = await osimage([
      'release',
      'verify-signatures',
      '--keyring',
      join(tmp.dir, 'key.asc'),
      '--store',
      `file://${storeDir}`,
      '--require',
      'gpg',
      ref,
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const [sig] = JSON.parse(r.stdout).signatures;
    expect(sig).toMatchObject({
      kind: 'gpg',
      verdict: 'valid',
      key: fpr,
      identity: 'quay.io/openshift-release-dev/ocp-release:4.17.2-x86_64',
      digest,
    });
    expect(sig.creator).toMatch(/skopeo|atomic/);
  });

  test('the same signature filed under another digest is refused', async () => {
    const other = await releaseImage({ name: '4.17.3' });
    const otherRef = await archive(tmp.dir, 'other.tar', [entry(other, '4.17.3')], '4.17.3');
    const dir = join(storeDir, other.descriptor.digest.replace(':', '='));
    await mkdir(dir, { recursive: true });
    await execa('cp', [join(storeDir, digest.replace(':', '='), 'signature-1'), join(dir, 'signature-1')]);
    const r = await osimage([
      'release',
      'verify-signatures',
      '--keyring',
      join(tmp.dir, 'key.asc'),
      '--store',
      `file://${storeDir}`,
      '--require',
      'gpg',
      otherRef,
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(`the signature is for ${digest}, not ${other.descriptor.digest}`);
  });
});

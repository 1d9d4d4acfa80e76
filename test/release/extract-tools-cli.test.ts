/**
 * `osimage release extract --tools / --command` end to end against the registry of the oc comparison
 * (hack/oc-compare: images.mjs buildRunSet): what oc's recordings cannot show. sha256sum.txt names each file with
 * its real hash, --signing-key writes a signature of it that verifies, and --idms-file (which oc 4.13's extract
 * lacks) finds components on their mirrors; and `--command -o json`.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Environment, startEnvironment } from '../../hack/oc-compare/lib.mjs';
import { osimage } from '../helpers/cli.js';

let env: Environment;
let dir: string;
beforeAll(async () => {
  // The releases built for this registry are enough: the pairs' images are side-by-side.test.ts's.
  env = await startEnvironment({ pairs: false });
  dir = await mkdtemp(join(tmpdir(), 'osimage-tools-cli-'));
});
afterAll(async () => {
  await env?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('release extract --tools', () => {
  it('writes archives, release.txt and a sha256sum.txt of them, signed with --signing-key', async () => {
    const openpgp = await import('openpgp');
    const { privateKey, publicKey } = await openpgp.generateKey({
      type: 'ecc',
      curve: 'curve25519Legacy',
      userIDs: [{ name: 'osimage test' }],
      format: 'armored',
    });
    const key = join(dir, 'key.asc');
    await writeFile(key, privateKey);
    const out = join(dir, 'tools');
    const r = await osimage([
      'release',
      'extract',
      '--insecure',
      '--tools',
      '--signing-key',
      key,
      '--to',
      out,
      `${env.registry}/ocp/release:tools`,
    ]);
    expect(r).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    expect((await readdir(out)).sort()).toEqual([
      'ccoctl-linux-4.13.1.tar.gz',
      'openshift-client-linux-4.13.1.tar.gz',
      'openshift-install-linux-4.13.1.tar.gz',
      'release.txt',
      'sha256sum.txt',
      'sha256sum.txt.asc',
    ]);
    const sums = await readFile(join(out, 'sha256sum.txt'));
    for (const line of sums.toString().trimEnd().split('\n')) {
      const [hash, name] = line.split('  ') as [string, string];
      expect(
        createHash('sha256')
          .update(await readFile(join(out, name)))
          .digest('hex'),
        name,
      ).toBe(hash);
    }
    const verified = await openpgp.verify({
      message: await openpgp.createMessage({ binary: new Uint8Array(sums) }),
      signature: await openpgp.readSignature({ armoredSignature: await readFile(join(out, 'sha256sum.txt.asc'), 'utf8') }),
      verificationKeys: await openpgp.readKey({ armoredKey: publicKey }),
    });
    await expect(verified.signatures[0]!.verified).resolves.toBe(true);
    // The archives carry the binary's time in its image, and so do the files.
    expect((await stat(join(out, 'openshift-client-linux-4.13.1.tar.gz'))).mtime.toISOString()).toBe('2023-05-24T13:41:35.000Z');
  });
});

describe('release extract --command', () => {
  it('writes the binary with the release version and pull spec in it, at its time in the image', async () => {
    const out = join(dir, 'install');
    const r = await osimage([
      'release',
      'extract',
      '--insecure',
      '--command',
      'openshift-install',
      '--to',
      out,
      `${env.registry}/ocp/release:tools`,
    ]);
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    const bin = await readFile(join(out, 'openshift-install'), 'latin1');
    expect(bin).toContain(`${env.registry}/ocp/release@${env.runDigests['ocp/release:tools']}\0`);
    expect(bin).toContain('4.13.1\0SE_VERSION_LOCATION_');
    const st = await stat(join(out, 'openshift-install'));
    expect([st.mode & 0o777, st.mtime.toISOString()]).toEqual([0o755, '2023-05-24T13:41:35.000Z']);
  });

  it('--idms-file: components named by digest are read from their mirrors', async () => {
    const components = ['cli', 'installer'];
    const idms = join(dir, 'idms.yaml');
    await writeFile(
      idms,
      `apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: m\nspec:\n  imageDigestMirrors:\n${components
        .map((c) => `  - source: ${env.closed}/ocp/${c}\n    mirrors:\n    - ${env.registry}/ocp/${c}\n`)
        .join('')}`,
    );
    const out = join(dir, 'mirrored');
    const release = `${env.registry}/ocp/release@${env.runDigests['ocp/release:tools-mirror']}`;
    const r = await osimage(['release', 'extract', '--insecure', '--idms-file', idms, '--command', 'oc', '--to', out, release]);
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    expect(await readFile(join(out, 'oc'), 'latin1')).toContain('# oc linux release-arch');
    const tagged = await osimage([
      'release',
      'extract',
      '--insecure',
      '--idms-file',
      idms,
      '--command',
      'oc',
      '--to',
      out,
      `${env.registry}/ocp/release:tools-mirror`,
    ]);
    expect(tagged.stderr).toBe(
      'warning: --idms-file(and --icsp-file) only applies to images referenced by digest and will be ignored for tags',
    );
    const both = await osimage(['release', 'extract', '--icsp-file', idms, '--idms-file', idms, '--command', 'oc', release]);
    expect(both).toMatchObject({ exitCode: 2, stderr: 'error: icsp-file and idms-file are mutually exclusive' });
  });
});

// `-o json` of --command (the shape of docs/release.md; the other modes are in extract-json.test.ts): here, where
// the registry is running anyway.
describe('release extract --command -o json', () => {
  it('names the binary written, relative to --to, and the release digest', async () => {
    const out = join(dir, 'json-bin');
    const image = `${env.registry}/ocp/release:tools`;
    const r = await osimage(['release', 'extract', '--insecure', '--command', 'openshift-install', '--to', out, image, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j)).toEqual(['image', 'mode', 'digest', 'listDigest', 'created', 'dir', 'files']);
    expect(j).toMatchObject({ image, mode: 'tools', digest: env.runDigests['ocp/release:tools'], dir: out, files: ['openshift-install'] });
  });
});

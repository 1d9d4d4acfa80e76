/**
 * `release extract -o json` (the shape of docs/release.md): the release read and the files written, for --to and
 * --credentials-requests (an OCI archive); -o commit stays oc's, for --git only, with oc's words. --command -o json
 * (the real registry of the oc comparison) is in extract-tools-cli.test.ts, which starts that registry anyway.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { archive, entry, image, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';

const KEYS = ['image', 'mode', 'digest', 'listDigest', 'created', 'dir', 'files'];
const cr = (name: string) =>
  `apiVersion: cloudcredential.openshift.io/v1\nkind: CredentialsRequest\nmetadata:\n  name: ${name}\nspec:\n  providerSpec:\n    kind: AWSProviderSpec\n`;

let tmp: Temp;
let ref: string;
beforeAll(async () => {
  tmp = await tempDir();
  const img = await image(
    [
      {
        entries: releaseEntries({
          extra: [
            { name: 'release-manifests/0000_30_cco_aws.yaml', data: cr('aws-creds') },
            { name: 'release-manifests/sub/nested.json', data: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"}}' },
          ],
        }),
      },
    ],
    { created: '2023-05-25T08:25:20.123Z' },
  );
  ref = await archive(tmp.dir, 'rel.tar', [entry(img, 'v')], 'v');
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('release extract -o json (an OCI archive)', () => {
  it('--to: the image, its digest and creation time, and every file written, relative to the folder', async () => {
    const to = join(tmp.dir, 'manifests');
    const r = await osimage(['release', 'extract', ref, '--to', to, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j)).toEqual(KEYS);
    expect(j).toMatchObject({ image: ref, mode: 'manifests', listDigest: null, created: '2023-05-25T08:25:20.123Z', dir: to });
    expect(j.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect([...j.files].sort()).toEqual([
      '0000_30_cco_aws.yaml',
      '0000_50_x_a.yaml',
      'image-references',
      'release-metadata',
      'sub/nested.json',
    ]);
    // The digest is the one the text names.
    const text = await osimage(['release', 'extract', ref, '--to', to, '-o', 'text']);
    expect(text.stdout).toBe(`Extracted release payload from digest ${j.digest} created at 2023-05-25T08:25:20Z`);
  });

  it('--credentials-requests: only the files that hold them', async () => {
    const to = join(tmp.dir, 'creds');
    const r = await osimage(['release', 'extract', ref, '--credentials-requests', '--to', to, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ mode: 'credentials-requests', dir: to, files: ['0000_30_cco_aws.yaml'] });
    expect(await readdir(to)).toEqual(['0000_30_cco_aws.yaml']);
  });

  it.each([
    [['-o', 'commit', '--to', 'x'], 'error: --output is only supported with --git'],
    [['--git', 'x', '-o', 'json'], "error: the only supported option for --output is 'commit'"],
    [['--file', 'image-references', '-o', 'json'], "error: --output json cannot be used with --file: the file's bytes are the output"],
    [['-o', 'yaml'], "error: option '-o, --output <format>' argument 'yaml' is invalid. Allowed choices are text, json, commit."],
  ])('%j is a usage error before anything is read', async (args, message) => {
    const r = await osimage(['release', 'extract', ref, ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(message);
  });
});

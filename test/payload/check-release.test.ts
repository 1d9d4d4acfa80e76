/** `payload check --from-release`: the input images come from a release image's image-references. */
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { archive, baseEntries, entry, image, releaseEntries, tempDir, type Temp } from '../helpers/oci-builder.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/release-new/payload', import.meta.url));
let tmp: Temp;
let release: string;
let ops: string;

beforeAll(async () => {
  tmp = await tempDir('osimage-check-release-');
  const file = join(tmp.dir, 'release.tar');
  const r = await osimage(['release', 'new', '--from-dir', FIXTURE, '--name', '4.99.0', '--to-file', file]);
  expect(r.exitCode).toBe(0);
  release = `oci-archive:${file}:4.99.0`;
  ops = join(tmp.dir, 'operators');
  await mkdir(ops);
  await cp(join(FIXTURE, 'machine-config-operator'), join(ops, 'machine-config-operator'), { recursive: true });
});
afterAll(async () => tmp.cleanup());

describe('payload check --from-release', () => {
  it('passes when the release has every tag the operators name', async () => {
    const r = await osimage(['payload', 'check', '--dir', ops, '--from-release', release]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^payload check: 1 operator .*all found among 3 input tags$/);
  });

  it("reports tags the release lacks in oc's words", async () => {
    const extra = join(tmp.dir, 'operators-extra');
    await cp(ops, extra, { recursive: true });
    await mkdir(join(extra, 'new-operator'));
    await writeFile(
      join(extra, 'new-operator', 'image-references'),
      'kind: ImageStream\napiVersion: image.openshift.io/v1\nspec:\n  tags:\n  - name: new-thing\n    from:\n      kind: DockerImage\n      name: quay.io/openshift/origin-new-thing\n',
    );
    const r = await osimage(['payload', 'check', '--dir', extra, '--from-release', release, '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      'error: operator "new-operator" contained an invalid image-references file: no input image tag named "new-thing"',
    );
    expect(JSON.parse(r.stdout).problems).toHaveLength(1);
  });

  it('needs exactly one source of input images', async () => {
    const none = await osimage(['payload', 'check', '--dir', ops]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toBe('error: give exactly one of --images and --from-release');
    const both = await osimage(['payload', 'check', '--dir', ops, '--images', 'x', '--from-release', release]);
    expect(both.exitCode).toBe(2);
  });

  it("a release image that lacks image-references is an error in oc's words", async () => {
    // An image that opens and reads (its release-manifests/ has metadata and a manifest), but lacks the file.
    const entries = releaseEntries({ name: '4.99.0' }).filter((e) => e.name !== 'release-manifests/image-references');
    const img = await image([{ entries: baseEntries() }, { entries }]);
    const lacking = await archive(tmp.dir, 'lacking.tar', [entry(img, '4.99.0')], '4.99.0');
    const r = await osimage(['payload', 'check', '--dir', ops, '--from-release', lacking]);
    expect(r).toEqual({ stdout: '', stderr: 'error: release image did not contain an image-references file', exitCode: 1 });
  });

  it('a release archive that does not exist is an error naming it', async () => {
    const r = await osimage(['payload', 'check', '--dir', ops, '--from-release', `oci-archive:${join(tmp.dir, 'missing.tar')}`]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^error: .*missing\.tar/);
  });
});

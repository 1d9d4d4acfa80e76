/**
 * Digest mirrors (`--icsp-file`, `--idms-file`): reading the policy files with oc's errors, which repositories
 * an image is read from and in what order, and the reads themselves against a real registry: a digest that
 * its own registry cannot serve comes from a mirror; a tag never does.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mirrorRepositories, parseMirrorFile, readMirrorFile, type MirrorSet } from '../../src/registry/mirrors.js';
import { openImage } from '../../src/registry/open.js';
import { freePort, useRegistry } from '../helpers/registry.js';
import { image, pushBuilt, tempDir, type Temp } from '../helpers/oci-builder.js';
import { readAll } from './fixtures.js';

/** openImage's options, with a retry policy for the remote transport it passes them to. */
type OpenOptions = Parameters<typeof openImage>[1];

const ICSP = `apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
metadata:
  name: release
spec:
  repositoryDigestMirrors:
  - source: quay.io/openshift-release-dev/ocp-release
    mirrors:
    - mirror.example.com/ocp/release
    - mirror2.example.com/ocp/release
  - source: quay.io/openshift-release-dev/ocp-v4.0-art-dev
    mirrors:
    - mirror.example.com/ocp/release
---
apiVersion: operator.openshift.io/v1alpha1
kind: ImageContentSourcePolicy
spec:
  repositoryDigestMirrors:
  - source: ignored.example.com/second/document
    mirrors: [x.example.com/y]
`;

const IDMS = (policy = '') => `apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
spec:
  imageDigestMirrors:
  - source: quay.io/ocp
    mirrors:
    - mirror.example.com/ocp
${policy}---
apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
spec:
  imageDigestMirrors:
  - source: docker.io/library/busybox
    mirrors: [mirror.example.com/busybox]
`;

describe('policy files', () => {
  let tmp: Temp;
  beforeAll(async () => {
    tmp = await tempDir('osimage-mirrors-');
  });
  afterAll(async () => {
    await tmp.cleanup();
  });

  test('an ImageContentSourcePolicy: its first object only', () => {
    const set = parseMirrorFile(ICSP, 'icsp.yaml', 'icsp');
    expect(set.flag).toBe('--icsp-file');
    expect(set.rules.map((r) => r.source)).toEqual([
      'quay.io/openshift-release-dev/ocp-release',
      'quay.io/openshift-release-dev/ocp-v4.0-art-dev',
    ]);
  });

  test('ImageDigestMirrorSets: every object, each rule with its policy', () => {
    const set = parseMirrorFile(IDMS('    mirrorSourcePolicy: NeverContactSource\n'), 'idms.yaml', 'idms');
    expect(set.rules).toEqual([
      { source: 'quay.io/ocp', mirrors: ['mirror.example.com/ocp'], policy: 'NeverContactSource' },
      { source: 'docker.io/library/busybox', mirrors: ['mirror.example.com/busybox'] },
    ]);
  });

  test("files that are not policies: oc's sentences", async () => {
    const f = join(tmp.dir, 'f.yaml');
    await expect(readMirrorFile(join(tmp.dir, 'none.yaml'), 'icsp')).rejects.toThrow(
      `unable to read ImageContentSourceFile ${tmp.dir}/none.yaml: open ${tmp.dir}/none.yaml: no such file or directory`,
    );
    await writeFile(f, '');
    await expect(readMirrorFile(f, 'idms')).rejects.toThrow(`no data found in ImageDigestMirrorSet ${f}`);
    await writeFile(f, ICSP);
    await expect(readMirrorFile(f, 'idms')).rejects.toThrow(`could not decode ImageDigestMirrorSet from ${f}`);
    await writeFile(f, 'a: [');
    await expect(readMirrorFile(f, 'icsp')).rejects.toThrow(`error decoding ImageContentSourcePolicy from ${f}:`);
    await writeFile(f, 'metadata: {}\n');
    await expect(readMirrorFile(f, 'icsp')).rejects.toThrow("Object 'Kind' is missing");
    await writeFile(f, IDMS('    mirrorSourcePolicy: Sometimes\n'));
    await expect(readMirrorFile(f, 'idms')).rejects.toThrow(
      'mirrorSourcePolicy "Sometimes" is not AllowContactingSource or NeverContactSource',
    );
  });
});

describe('mirrorRepositories', () => {
  const icsp = parseMirrorFile(ICSP, 'icsp.yaml', 'icsp');
  test('the image first, then the mirrors of every rule that names its repository, without repeats', () => {
    expect(mirrorRepositories('quay.io/openshift-release-dev/ocp-release', icsp)).toEqual([
      'quay.io/openshift-release-dev/ocp-release',
      'mirror.example.com/ocp/release',
      'mirror2.example.com/ocp/release',
    ]);
    expect(mirrorRepositories('quay.io/other/repo', icsp)).toEqual(['quay.io/other/repo']);
  });

  test('a rule for a parent repository covers those below it (a path boundary, not a prefix) and keeps the rest of the path', () => {
    const idms = parseMirrorFile(IDMS(), 'idms.yaml', 'idms');
    expect(mirrorRepositories('quay.io/ocp/release', idms)).toEqual(['quay.io/ocp/release', 'mirror.example.com/ocp/release']);
    expect(mirrorRepositories('quay.io/ocp/a/b', idms)).toEqual(['quay.io/ocp/a/b', 'mirror.example.com/ocp/a/b']);
    expect(mirrorRepositories('quay.io/ocp-other/release', idms)).toEqual(['quay.io/ocp-other/release']);
    // docker.io is written either way.
    expect(mirrorRepositories('docker.io/library/busybox', idms)).toEqual(['docker.io/library/busybox', 'mirror.example.com/busybox']);
  });

  test('NeverContactSource takes the image itself out of the alternatives; rules for one source must agree', () => {
    const never = parseMirrorFile(IDMS('    mirrorSourcePolicy: NeverContactSource\n'), 'idms.yaml', 'idms');
    expect(mirrorRepositories('quay.io/ocp/release', never)).toEqual(['mirror.example.com/ocp/release']);
    const split: MirrorSet = {
      ...never,
      rules: [...never.rules, { source: 'quay.io/ocp', mirrors: ['m2.example.com/ocp'], policy: 'AllowContactingSource' }],
    };
    expect(() => mirrorRepositories('quay.io/ocp/release', split)).toThrow(
      'ImageDigestMirrorSet can only contain one MirrorSourcePolicy for source quay.io/ocp',
    );
  });

  test('a source or mirror that is no reference is an error naming it', () => {
    const bad: MirrorSet = { kind: 'icsp', flag: '--icsp-file', file: 'f', rules: [{ source: 'quay.io/UPPER/x', mirrors: [] }] };
    expect(() => mirrorRepositories('quay.io/a/b', bad)).toThrow('invalid source "quay.io/UPPER/x"');
  });
});

describe('reading through mirrors (registry)', () => {
  const registry = useRegistry();
  let closed: string;
  let digest: string;
  let img: Awaited<ReturnType<typeof image>>;
  const set = (source: string, mirror: string): MirrorSet => ({
    kind: 'icsp',
    flag: '--icsp-file',
    file: 'icsp.yaml',
    rules: [{ source, mirrors: [mirror] }],
  });
  const RETRY = { retries: 0, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 };

  beforeAll(async () => {
    closed = `127.0.0.1:${await freePort()}`;
    img = await image([{ entries: [{ name: 'hello', data: 'world' }] }]);
    digest = await pushBuilt(`${registry().host}/ocp/release:1`, img);
  });

  test('a digest the image registry cannot serve comes from the mirror; it is still named as written', async () => {
    const ref = `${closed}/ocp/release@${digest}`;
    const src = await openImage(ref, {
      insecure: true,
      retry: RETRY,
      mirrors: set(`${closed}/ocp/release`, `${registry().host}/ocp/release`),
    } as OpenOptions);
    const m = await src.manifest();
    expect(m.digest).toBe(digest);
    expect(src.name).toBe(ref);
    expect(src.pullspecFor(digest)).toBe(ref);
    const layer = img.layers[0]!;
    expect((await readAll(await src.blob(layer.descriptor))).equals(layer.bytes)).toBe(true);
    await src.close();
  });

  test("when every place fails, the image registry's own error is the one reported", async () => {
    const ref = `${closed}/ocp/release@${digest}`;
    const src = await openImage(ref, {
      insecure: true,
      retry: RETRY,
      mirrors: set(`${closed}/ocp/release`, `${registry().host}/ocp/nothere`),
    } as OpenOptions);
    await expect(src.manifest()).rejects.toThrow(`unable to read image ${ref}`);
  });

  test('a tag is asked of its own registry only', async () => {
    const src = await openImage(`${closed}/ocp/release:1`, {
      insecure: true,
      retry: RETRY,
      mirrors: set(`${closed}/ocp/release`, `${registry().host}/ocp/release`),
    } as OpenOptions);
    await expect(src.manifest()).rejects.toThrow('connection refused');
  });
});

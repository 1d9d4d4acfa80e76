import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { osimage, SAMPLE_RELEASES } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { changedLines, CM_FILE, cleanup, FIXTURES, read, snapshot, tempDir, U, V, W } from './helpers.js';

let server: FileServer;
beforeAll(async () => {
  server = await serveFolder(SAMPLE_RELEASES);
});
afterAll(() => server.close());
afterEach(cleanup);

describe('osimage payload write', () => {
  it('updates the 2019 MCO files, then says unchanged on a second run', async () => {
    const dir = await tempDir('mco-2019');
    const before = await read(join(dir, 'image-references'));
    const r = await osimage(['payload', 'write', '--dir', dir, '--os-image', U]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`tag machine-os-content updated (was ${V})`);
    expect(changedLines(before, await read(join(dir, 'image-references')))).toHaveLength(1);
    const files = await snapshot(dir);
    const again = await osimage(['payload', 'write', '--dir', dir, '--os-image', U]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/^unchanged: .*image-references and .*osimageurl.yaml already point at quay.io\/x\/os@sha256:c{64}$/);
    expect(await snapshot(dir)).toEqual(files);
  });

  it('without --os-image writes the resolved build oscontainer (image@digest), fetched over HTTP', async () => {
    const dir = await tempDir();
    const r = await osimage(['payload', 'write', '--dir', dir, '--base-url', server.url, '--channel', 'rhcos-4.12']);
    expect(r.exitCode).toBe(0);
    const want = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:1992a6a15b26ab3a1aac7b5617ec526a7663100e7a6035203fdae22d47cb1154';
    expect(r.stderr).toContain(`OS container of build 412.86.202301311551-0 (x86_64): ${want}`);
    expect(parse(await read(join(dir, CM_FILE))).data.osImageURL).toBe(want);
    expect(parse(await read(join(dir, 'image-references'))).spec.tags[0].from.name).toBe(want);
  });

  it('errors when the build has no oscontainer, naming its meta.json', async () => {
    const rel = await tempDir();
    await cp(join(SAMPLE_RELEASES, 'maipo'), join(rel, 'maipo'), { recursive: true });
    const metaPath = join(rel, 'maipo', '47.246', 'meta.json');
    const meta = JSON.parse(await readFile(metaPath, 'utf8'));
    delete meta.oscontainer;
    await writeFile(metaPath, JSON.stringify(meta));
    const local = await serveFolder(rel);
    try {
      const dir = await tempDir();
      const r = await osimage(['payload', 'write', '--dir', dir], {
        env: { RHCOS_BASE_URL: local.url, RHCOS_DEFAULT_CHANNEL: 'maipo', RHCOS_BUILD_NAME: '47.246' },
      });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toBe(`error: RHCOS build 47.246 has no "oscontainer" in ${local.url}/maipo/47.246/meta.json: pass --os-image`);
      expect(await snapshot(dir)).toEqual({});
    } finally {
      await local.close();
    }
  });

  it('refuses a tag (exit 2) unless --allow-tag, and a bad digest', async () => {
    const dir = await tempDir();
    const r = await osimage(['payload', 'write', '--dir', dir, '--os-image', 'quay.io/x/os:latest']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: --os-image: image reference "quay.io\/x\/os:latest" is by tag, not by digest/);
    expect(await snapshot(dir)).toEqual({});
    expect((await osimage(['payload', 'write', '--dir', dir, '--os-image', 'quay.io/x/os:latest', '--allow-tag'])).exitCode).toBe(0);
    const bad = await osimage(['payload', 'write', '--dir', dir, '--os-image', `quay.io/x/os@sha256:${'c'.repeat(63)}`]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('a sha256 digest has 64 hex digits, not 63');
    const empty = await osimage(['payload', 'write', '--dir', dir, '--os-image', '']);
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain('the value is empty');
  });

  it('a duplicated repository is exit 1 with oc words and the file name', async () => {
    const dir = await tempDir('mco-2019');
    const r = await osimage(['payload', 'write', '--dir', dir, '--os-image', 'quay.io/coreos/etcd:v3.3.10', '--allow-tag']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `error: ${join(dir, 'image-references')}: the source repository "quay.io/coreos/etcd:v3.3.10" was defined more than once (for "etcd" and "machine-os-content")`,
    );
  });

  it('a missing --dir is a usage error', async () => {
    const r = await osimage(['payload', 'write', '--os-image', U]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("required option '--dir <dir>' not specified");
  });
});

describe('osimage payload render and merge', () => {
  it('renders a YAML stream to stdout, or files to --out that merge into the same name in any order', async () => {
    const r = await osimage(['payload', 'render', '--os-image', U, '--role', 'master', '--role', 'worker']);
    expect(r.exitCode).toBe(0);
    const docs = parseAllDocuments(r.stdout);
    expect(Array.isArray(docs) && docs.map((d) => d.toJS().metadata.name)).toEqual(['00-master-osimageurl', '00-worker-osimageurl']);

    const out = await tempDir();
    const w = await osimage(['payload', 'render', '--os-image', U, '--role', 'master', '--role', 'worker', '--out', out]);
    expect(w.exitCode).toBe(0);
    expect(Object.keys(await snapshot(out))).toEqual(['00-master-osimageurl.yaml', '00-worker-osimageurl.yaml']);
    await writeFile(
      join(out, '00-master.yaml'),
      'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: 00-master\n  labels:\n    machineconfiguration.openshift.io/role: master\nspec:\n  config:\n    ignition:\n      version: 2.2.0\n',
    );
    await writeFile(
      join(out, '99-user.yaml'),
      `apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: 99-user\n  labels:\n    machineconfiguration.openshift.io/role: master\nspec:\n  osImageURL: ${W}\n`,
    );
    const files = ['99-user.yaml', '00-master-osimageurl.yaml', '00-worker-osimageurl.yaml', '00-master.yaml'].map((f) => join(out, f));
    const a = await osimage(['payload', 'merge', '--role', 'master', ...files]);
    const b = await osimage(['payload', 'merge', '--role', 'master', '-o', 'name', ...[...files].reverse()]);
    const c = await osimage(['payload', 'merge', '--role', 'master', '-o', 'name', out]);
    expect(a.exitCode).toBe(0);
    const rendered = parse(a.stdout);
    expect(rendered.metadata.name).toMatch(/^rendered-master-[0-9a-f]{32}$/);
    expect(rendered.spec.osImageURL).toBe(W);
    expect(b.stdout).toBe(rendered.metadata.name);
    expect(c.stdout).toBe(rendered.metadata.name);
    expect(a.stderr).toContain('00-worker-osimageurl): role "worker"');
    expect(a.stderr).toContain(
      'merged 3 MachineConfigs for pool master as the MCO of OpenShift 5.0: 00-master, 00-master-osimageurl, 99-user',
    );
    // Today's MCO renders Ignition 3.5 from the 2.2 configs, with its empty fields written.
    expect(rendered.spec).toMatchObject({
      config: { ignition: { version: '3.5.0' } },
      kernelType: 'default',
      kernelArguments: [],
      fips: false,
    });
    expect(rendered.metadata.annotations).toEqual({ 'machineconfiguration.openshift.io/os-image-url-overridden': 'true' });
    expect(a.stderr).toContain(`osImageURL (last-wins): ${W} from 99-user`);
    const first = await osimage(['payload', 'merge', '--role', 'master', '--policy', 'first-non-empty', out]);
    expect(parse(first.stdout).spec.osImageURL).toBe(U);
    expect(parse(first.stdout).metadata.name).not.toBe(rendered.metadata.name);
    const cc = await osimage(['payload', 'merge', '--role', 'master', '--openshift-version', '4.10', '--os-image', U, '-o', 'json', out]);
    expect(cc.exitCode).toBe(0);
    expect(JSON.parse(cc.stdout).spec.osImageURL).toBe(U);
    expect(cc.stderr).toContain(`osImageURL (controller-config): ${U} from --os-image`);
    await rm(join(out, '99-user.yaml'));
    const json = await osimage(['payload', 'merge', '--role', 'master', '-o', 'json', out]);
    expect(JSON.parse(json.stdout).spec.osImageURL).toBe(U);

    const again = await osimage(['payload', 'render', '--os-image', U, '--role', 'master', '--role', 'worker', '--out', out]);
    expect(again.stdout).toContain('unchanged: 2 MachineConfig file(s)');
  });

  it('usage errors: empty URL, bad role, bad policy; failures: no MC for the role', async () => {
    expect((await osimage(['payload', 'render', '--os-image', '', '--role', 'master'])).exitCode).toBe(2);
    const role = await osimage(['payload', 'render', '--os-image', U, '--role', 'Master']);
    expect(role.exitCode).toBe(2);
    expect(role.stderr).toContain('invalid role "Master"');
    expect((await osimage(['payload', 'merge', '--role', 'master', '--policy', 'cvo', FIXTURES])).exitCode).toBe(2);
    const none = await osimage(['payload', 'merge', '--role', 'master', join(FIXTURES, 'mco-2019')]);
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toContain("error: couldn't find any MachineConfigs for pool: master");
    const pool = await osimage(['payload', 'merge', '--role', 'infra', '--role', 'edge', FIXTURES]);
    expect(pool).toMatchObject({ exitCode: 2, stderr: 'error: --role infra, edge: name the pool these roles render with --pool' });
    const era = await osimage(['payload', 'merge', '--role', 'master', '--openshift-version', '3.11', FIXTURES]);
    expect(era.exitCode).toBe(2);
    expect(era.stderr).toContain('give an OpenShift release from 4.1 on');
  });
});

describe('osimage payload check', () => {
  it('lists every problem on stderr and exits 1', async () => {
    const r = await osimage([
      'payload',
      'check',
      '--dir',
      join(FIXTURES, 'operators'),
      '--images',
      join(FIXTURES, 'inputs', 'missing.json'),
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toEqual([
      'error: operator "cluster-etcd-operator" contained an invalid image-references file: no input image tag named "setup-etcd-environment"',
      'error: operator "console" contained an invalid image-references file: the source repository "quay.io/openshift/origin-console:latest" was defined more than once (for "console" and "console-downloads")',
      'error: operator "machine-config-operator" contained an invalid image-references file: no input image tag named "machine-os-content"',
      'error: payload check: 3 problems in 3 operator(s)',
    ]);
    const json = await osimage([
      'payload',
      'check',
      '--dir',
      join(FIXTURES, 'operators'),
      '--images',
      join(FIXTURES, 'inputs', 'missing.json'),
      '-o',
      'json',
    ]);
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.stdout).problems).toHaveLength(3);
  });

  it('exits 0 with a one-line summary when sound', async () => {
    const dir = await tempDir('operators');
    await rm(join(dir, 'console', 'image-references'));
    const r = await osimage(['payload', 'check', '--dir', dir, '--images', join(FIXTURES, 'inputs', 'complete.json')]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('payload check: 4 operators (2 with image-references), 5 image references, all found among 7 input tags');
  });
});

describe('osimage payload bootimages', () => {
  it('writes the ConfigMap from a build served over HTTP, then leaves it unchanged', async () => {
    const dir = await tempDir();
    const args = ['payload', 'bootimages', '--dir', dir, '--base-url', server.url, '--channel', 'rhcos-4.12', '--arch', 'aarch64'];
    const r = await osimage(args);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`${join(dir, 'coreos-bootimages.yaml')}: written (stream rhcos-4.12, build 412.86.202301311551-0, aarch64)`);
    const cm = parse(await read(join(dir, 'coreos-bootimages.yaml')));
    expect(cm.metadata).toMatchObject({ name: 'coreos-bootimages', namespace: 'openshift-machine-config-operator' });
    expect(cm.data.releaseVersion).toBe('0.0.1-snapshot');
    const stream = JSON.parse(cm.data.stream);
    expect(Object.keys(stream.architectures)).toEqual(['aarch64']);
    expect(stream.metadata.generator).toMatch(/^osimage \d+\.\d+\.\d+/);
    const files = await snapshot(dir);
    const again = await osimage(args);
    expect(again.stdout).toContain('unchanged');
    expect(await snapshot(dir)).toEqual(files);
  });

  it('fails with the URL when the release browser does not have the channel', async () => {
    const dir = await tempDir();
    const r = await osimage(['payload', 'bootimages', '--dir', dir, '--base-url', server.url, '--channel', 'nope']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${server.url}/nope/builds.json`);
    expect(await snapshot(dir)).toEqual({});
  });
});

import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FileServer, serveFolder } from '../helpers/file-server.js';
import { SAMPLE_RELEASES, osimage, osimageRaw } from '../helpers/cli.js';
import type { StreamJson } from '../../src/stream/types.js';
import { BASE_2021, BASE_2026, META_2021_S390X, META_2021_X86, META_2026_PPC, META_2026_X86, STREAM_2021, STREAM_2026 } from './eras.js';

let root: string;
let server: FileServer;
const B16 = '416.94.202405291527-0';
const put = async (path: string, doc: unknown) => {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), `${JSON.stringify(doc, null, 2)}\n`);
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'osimage-stream-'));
  await cp(SAMPLE_RELEASES, root, { recursive: true });
  // 2021: one channel per arch.
  await put('rhcos-4.8/builds.json', { 'schema-version': '1.0.0', builds: [{ id: '48.84.202105190318-0', arches: ['x86_64'] }] });
  await put('rhcos-4.8/48.84.202105190318-0/x86_64/meta.json', META_2021_X86);
  await put('rhcos-4.8-s390x/builds.json', { 'schema-version': '1.0.0', builds: [{ id: '48.84.202105190719-0', arches: ['s390x'] }] });
  await put('rhcos-4.8-s390x/48.84.202105190719-0/s390x/meta.json', META_2021_S390X);
  // 2026: arches at different builds of one channel.
  await put('rhel-9.6/builds/builds.json', {
    'schema-version': '1.0.0',
    builds: [
      { id: '9.6.20260415-0', arches: ['x86_64'] },
      { id: '9.6.20260414-1', arches: ['ppc64le'] },
    ],
    timestamp: '2026-04-16T00:00:00Z',
  });
  await put('rhel-9.6/builds/9.6.20260415-0/x86_64/meta.json', META_2026_X86);
  await put('rhel-9.6/builds/9.6.20260414-1/ppc64le/meta.json', META_2026_PPC);
  server = await serveFolder(root);
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

const version = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')).version as string;
const parse = (text: string | Buffer) => JSON.parse(text.toString()) as StreamJson;

describe('osimage stream', () => {
  it('prints every arch of the channel from the release browser, as the installer keeps it (final newline)', async () => {
    const r = await osimageRaw(['stream', '--base-url', server.url, '--channel', '4.16-9.4/builds']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const s = parse(r.stdout);
    expect(r.stdout.toString().endsWith('}\n')).toBe(true);
    expect(s.stream).toBe('rhcos-4.16-9.4');
    expect(s.metadata).toEqual({ 'last-modified': '2024-05-29T15:55:30Z', generator: `osimage ${version}` });
    expect(Object.keys(s.architectures)).toEqual(['aarch64', 'ppc64le', 's390x', 'x86_64']);
    expect(Object.keys(s.architectures.s390x!.artifacts)).toEqual(['ibmcloud', 'metal', 'qemu', 'qemu-secex']);
    expect(Object.keys(s.architectures.x86_64!.images)).toEqual(['aliyun', 'aws', 'gcp', 'ibmcloud', 'kubevirt']);
    expect(s.architectures.ppc64le!.images.powervs!.regions.dal10!.bucket).toBe('rhcos-powervs-images-dal10');
    expect(s.architectures.x86_64!.artifacts.metal!.formats.pxe!.rootfs!.location).toBe(
      `${server.url}/4.16-9.4/builds/${B16}/x86_64/rhcos-${B16}-live-rootfs.x86_64.img`,
    );
    // Reruns are identical: last-modified comes from the builds, never the clock.
    const again = await osimageRaw(['stream', '--base-url', server.url, '--channel', '4.16-9.4/builds']);
    expect(again.stdout.equals(r.stdout)).toBe(true);
  });

  it('2021: --arch A=CHANNEL for per-arch channels, --signatures, --location-base: the stream written by hand', async () => {
    const r = await osimage([
      'stream',
      '--base-url',
      server.url,
      '--channel',
      'rhcos-4.8',
      '--arch',
      'x86_64',
      '--arch',
      's390x=rhcos-4.8-s390x',
      '--signatures',
      '--location-base',
      BASE_2021,
    ]);
    expect(r.exitCode).toBe(0);
    expect(parse(r.stdout)).toEqual({ ...STREAM_2021, metadata: { ...STREAM_2021.metadata, generator: `osimage ${version}` } });
  });

  it('2026: each arch at the pin where builds.json lists it, else the newest, with a warning naming the arch and build', async () => {
    const r = await osimage(
      ['stream', '--channel', 'rhel-9.6/builds', '--build', '9.6.20260415-0', '--name', 'rhcos-4.21', '--location-base', BASE_2026],
      { env: { RHCOS_BASE_URL: server.url } },
    );
    expect(r.exitCode).toBe(0);
    expect(parse(r.stdout)).toEqual({ ...STREAM_2026, metadata: { ...STREAM_2026.metadata, generator: `osimage ${version}` } });
    expect(r.stderr).toContain(
      `warning: ppc64le: build 9.6.20260415-0 does not list ppc64le in ${server.url}/rhel-9.6/builds/builds.json; using the newest ppc64le build 9.6.20260414-1`,
    );
    expect(r.stderr).toContain('warning: left out of the stream: image keys osimage does not know as bootimages: teleporter (x86_64)');
  });

  it('a pin that builds.json does not list is an error; flags that do not go together are usage errors', async () => {
    const a = await osimage(['stream', '--base-url', server.url, '--channel', '4.16-9.4/builds', '--build', '416.94.209901010000-0']);
    expect(a.exitCode).toBe(1);
    expect(a.stderr).toMatch(/no build with name '416.94.209901010000-0' found/);
    expect((await osimage(['stream', '--dry-run'])).exitCode).toBe(2);
    const c = await osimage(['stream', '--check', '--target', 'x.json', '--name', 'n']);
    expect(c.exitCode).toBe(2);
    expect(c.stderr).toContain('--check reads the builds from the file; it cannot be combined with --name');
  });
});

describe('osimage stream --target (a stream file pinned in git)', () => {
  const gen = (target: string, ...more: string[]) =>
    osimage(['stream', '--base-url', server.url, '--channel', '4.16-9.4/builds', '--target', target, ...more]);

  it('writes the file, leaves it untouched on a rerun, keeps arches not asked for and its own name; --dry-run prints a diff', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'osimage-target-'));
    const target = join(dir, 'coreos-rhel-9.json');
    const first = await gen(target, '--arch', 'x86_64', '--arch', 's390x');
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toBe(`${target}: written (stream rhcos-4.16-9.4; s390x, x86_64 updated)`);
    const text = await readFile(target, 'utf8');
    expect(Object.keys(parse(text).architectures)).toEqual(['s390x', 'x86_64']);
    // The installer's copy names its own stream; plume keeps that name.
    await writeFile(target, text.replace('"rhcos-4.16-9.4"', '"rhcos-4.16"'));
    const named = await readFile(target, 'utf8');
    const mtime = (await stat(target)).mtimeMs;
    const rerun = await gen(target, '--arch', 'x86_64');
    expect(rerun.stderr).toMatch(/: unchanged \(stream rhcos-4\.16: /);
    expect(await readFile(target, 'utf8')).toBe(named);
    expect((await stat(target)).mtimeMs).toBe(mtime);

    const dry = await gen(target, '--arch', 'ppc64le', '--dry-run');
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^--- ${target}\n\\+\\+\\+ ${target}\n@@ `));
    expect(dry.stdout).toContain('+    "ppc64le": {');
    expect(dry.stderr).toBe(`${target}: would be written (stream rhcos-4.16; ppc64le updated; s390x, x86_64 kept)`);
    expect(await readFile(target, 'utf8')).toBe(named);

    const add = await gen(target, '--arch', 'ppc64le');
    expect(add.exitCode).toBe(0);
    const after = parse(await readFile(target, 'utf8'));
    expect(after.stream).toBe('rhcos-4.16');
    expect(Object.keys(after.architectures)).toEqual(['ppc64le', 's390x', 'x86_64']);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('osimage stream --check --target', () => {
  it('exit 0 while every build is listed and every sha256 matches; exit 1 naming each difference', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'osimage-check-'));
    const browser = join(dir, 'releases');
    await cp(join(root, '4.16-9.4'), join(browser, '4.16-9.4'), { recursive: true });
    const local = await serveFolder(browser);
    try {
      const target = join(dir, 'rhcos.json');
      expect((await osimage(['stream', '--base-url', local.url, '--channel', '4.16-9.4/builds', '--target', target])).exitCode).toBe(0);
      const ok = await osimage(['stream', '--check', '--target', target]);
      expect(ok.exitCode).toBe(0);
      expect(ok.stdout).toMatch(
        /^ok: .*rhcos.json: 4 arches, \d+ artifacts: every build is still in its builds.json and every sha256 matches its meta.json$/,
      );
      // RHCOS_BASE_URL set to the browser the file was written from: locations under it are read as they are.
      const env = await osimage(['stream', '--check', '--target', target], { env: { RHCOS_BASE_URL: local.url } });
      expect(env.stdout).toMatch(/^ok: /);

      // A rebuilt image (new sha256) and an arch whose build is gone from builds.json.
      const metaPath = join(browser, `4.16-9.4/builds/${B16}/x86_64/meta.json`);
      const meta = JSON.parse(await readFile(metaPath, 'utf8'));
      const oldSha = meta.images.aws.sha256 as string;
      meta.images.aws.sha256 = '9b1c'.repeat(16);
      await writeFile(metaPath, JSON.stringify(meta));
      const listPath = join(browser, '4.16-9.4/builds/builds.json');
      const list = JSON.parse(await readFile(listPath, 'utf8'));
      list.builds[0].arches = ['x86_64', 'aarch64', 'ppc64le'];
      await writeFile(listPath, JSON.stringify(list));
      const bad = await osimage(['stream', '--check', '--target', target]);
      expect(bad.exitCode).toBe(1);
      expect(bad.stdout.split('\n')).toEqual([
        `s390x: build ${B16} is gone from builds.json (${local.url}/4.16-9.4/builds/builds.json)`,
        `x86_64 aws vmdk.gz: sha256 ${oldSha.slice(0, 4)}… → 9b1c…`,
        `${target}: 2 differences from the release browser`,
      ]);
    } finally {
      await local.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a hand-edited target with a null platform or format, or nested absurdly deep, is one line naming where', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'osimage-check-'));
    const target = join(dir, 'rhcos.json');
    expect((await osimage(['stream', '--base-url', server.url, '--channel', '4.16-9.4/builds', '--target', target])).exitCode).toBe(0);
    const doc = JSON.parse(await readFile(target, 'utf8'));
    const arch = Object.keys(doc.architectures).sort()[0]!;
    const platform = Object.keys(doc.architectures[arch].artifacts)[0]!;
    doc.architectures[arch].artifacts[platform] = null;
    await writeFile(target, JSON.stringify(doc));
    const nul = await osimage(['stream', '--check', '--target', target]);
    expect(nul).toMatchObject({ exitCode: 1, stdout: '' });
    expect(nul.stderr).toBe(`error: ${target}: architectures.${arch}.artifacts.${platform} is null, not a map`);
    let deep = '1';
    for (let i = 0; i < 20000; i++) deep = `[${deep}]`;
    await writeFile(target, `{"stream":"x","metadata":{},"architectures":{"x86_64":{"artifacts":{},"images":${deep}}}}`);
    const d = await osimage(['stream', '--check', '--target', target]);
    expect(d.exitCode).toBe(1);
    expect(d.stderr).toMatch(
      new RegExp(
        `^error: ${target.replace(/[.]/g, '\\.')}: not a stream file: it is nested more than 100 levels deep \\(at architectures\\.x86_64\\.images\\[0\\]`,
      ),
    );
    await rm(dir, { recursive: true, force: true });
  });

  it('--base-url reads a file written for a public URL from a mirror (the prefix before /<channel>/<build>/ replaced)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'osimage-check-'));
    const target = join(dir, 'rhcos.json');
    const public_ = 'https://rhcos.mirror.example/art/storage/prod/streams';
    const common = ['--channel', '4.16-9.4/builds', '--target', target];
    expect((await osimage(['stream', '--base-url', server.url, '--location-base', public_, ...common])).exitCode).toBe(0);
    expect((await readFile(target, 'utf8')).includes(server.url)).toBe(false);
    const r = await osimage(['stream', '--check', '--base-url', server.url, ...common]);
    expect(r.stdout).toMatch(/^ok: /);
    expect(r.exitCode).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });
});

import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  bootimagesConfigMap,
  bootimagesUpdate,
  formatOf,
  streamMetadata,
  streamNameFor,
  writeBootimages,
} from '../../src/payload/bootimages.js';
import { resolveBuild } from '../../src/rhcos/resolve.js';
import { resolveSettings } from '../../src/rhcos/settings.js';
import { SAMPLE_RELEASES } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { cleanup, read, tempDir } from './helpers.js';

const NO_CONTAINERS = { oscontainer: null, 'base-oscontainer': null, 'extensions-container': null };

let server: FileServer;
beforeAll(async () => {
  server = await serveFolder(SAMPLE_RELEASES);
});
afterAll(() => server.close());
afterEach(cleanup);

const resolve = (channel: string, arch = 'x86_64', build?: string) =>
  resolveBuild(resolveSettings({ baseUrl: server.url, channel, arch, ...(build ? { build } : {}) }, {}));

describe('stream metadata from a build served over HTTP', () => {
  it('has the stream-metadata shape: stream, metadata, artifacts with URLs resolved against the build dir, AWS regions', async () => {
    const build = await resolve('rhcos-4.12');
    const s = streamMetadata(build, { generator: 'osimage test' });
    const dir = `${server.url}/rhcos-4.12/412.86.202301311551-0/x86_64/`;
    expect(s).toEqual({
      stream: 'rhcos-4.12',
      metadata: { 'last-modified': '2023-01-31T15:51:00Z', generator: 'osimage test' },
      architectures: {
        x86_64: {
          artifacts: {
            qemu: {
              release: '412.86.202301311551-0',
              formats: {
                'qcow2.gz': {
                  disk: {
                    location: `${dir}rhcos-412.86.202301311551-0-qemu.x86_64.qcow2.gz`,
                    sha256: '3280931b523676f21133227ec875b56d098dd45e9c1e0a0dda53cba84945e371',
                    'uncompressed-sha256': 'b5cc71438187056a49c1b1f8821b498e4b5a651d57716a29fe1d474d5f018720',
                  },
                },
              },
            },
          },
          images: {
            aws: {
              regions: {
                'us-east-1': { release: '412.86.202301311551-0', image: 'ami-0066999812964904f' },
                'eu-central-1': { release: '412.86.202301311551-0', image: 'ami-07038d298e7d082d7' },
              },
            },
          },
        },
      },
    });
    expect(server.requests).toContain('/rhcos-4.12/412.86.202301311551-0/x86_64/meta.json');
  });

  it('uses the arch asked for, and a prod-stream channel', async () => {
    const build = await resolve('4.16-9.4/builds', 'aarch64');
    const s = streamMetadata(build, { generator: 'g' });
    expect(s.stream).toBe('rhcos-4.16-9.4');
    expect(Object.keys(s.architectures)).toEqual(['aarch64']);
    expect(Object.keys(s.architectures.aarch64!.artifacts)).toEqual(['qemu']);
    expect(s.architectures.aarch64!.artifacts.qemu!.formats['qcow2.gz']!.disk!.location).toBe(
      `${server.url}/4.16-9.4/builds/416.94.202405291527-0/aarch64/rhcos-416.94.202405291527-0-qemu.aarch64.qcow2.gz`,
    );
  });

  it('maps live and metal artifacts to the metal platform', () => {
    const meta = {
      buildid: '1',
      containers: NO_CONTAINERS,
      amis: {},
      raw: {},
      images: {
        ostree: { path: 'x-ostree.tar' },
        metal: { path: 'x-metal.x86_64.raw.gz', sha256: 'a' },
        metal4k: { path: 'x-metal4k.x86_64.raw.gz' },
        'live-iso': { path: 'x-live.x86_64.iso' },
        'live-kernel': { path: 'x-live-kernel-x86_64' },
        'live-initramfs': { path: 'x-live-initramfs.x86_64.img' },
        vmware: { path: 'x-vmware.x86_64.ova' },
      },
    };
    const s = streamMetadata(
      { build: '1', channel: 'c', arch: 'x86_64', buildDir: 'https://h/b/', meta },
      { generator: 'g', now: new Date('2020-01-02T03:04:05.678Z') },
    );
    const a = s.architectures.x86_64!.artifacts;
    expect(Object.keys(a).sort()).toEqual(['metal', 'vmware']);
    expect(Object.keys(a.metal!.formats).sort()).toEqual(['4k.raw.gz', 'iso', 'pxe', 'raw.gz']);
    expect(Object.keys(a.metal!.formats.pxe!).sort()).toEqual(['initramfs', 'kernel']);
    expect(a.metal!.formats['raw.gz']!.disk).toEqual({ location: 'https://h/b/x-metal.x86_64.raw.gz', sha256: 'a' });
    expect(s.metadata['last-modified']).toBe('2020-01-02T03:04:05Z');
    expect(s.architectures.x86_64!.images).toBeUndefined();
  });

  it('refuses a build without bootimages', () => {
    expect(() =>
      streamMetadata(
        {
          build: '1',
          channel: 'c',
          arch: 'x86_64',
          buildDir: 'https://h/',
          meta: { buildid: '1', amis: {}, images: {}, containers: NO_CONTAINERS, raw: {} },
        },
        { generator: 'g' },
      ),
    ).toThrow(/build 1 \(x86_64\) has no bootimages/);
  });

  it('names formats and streams', () => {
    expect(formatOf('a/rhcos-qemu.x86_64.qcow2.gz')).toBe('qcow2.gz');
    expect(formatOf('rhcos-gcp.x86_64.tar.gz')).toBe('tar.gz');
    expect(formatOf('rhcos.iso')).toBe('iso');
    expect(streamNameFor('maipo')).toBe('rhcos-maipo');
    expect(streamNameFor('rhcos-4.12')).toBe('rhcos-4.12');
  });
});

describe('the coreos-bootimages ConfigMap', () => {
  it('is a v1 ConfigMap in the MCO namespace with releaseVersion 0.0.1-snapshot and the stream as JSON', async () => {
    const s = streamMetadata(await resolve('rhcos-4.12'), { generator: 'g' });
    const text = bootimagesConfigMap(s);
    const cm = parse(text);
    expect(cm).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'coreos-bootimages', namespace: 'openshift-machine-config-operator' },
      data: { releaseVersion: '0.0.1-snapshot' },
    });
    expect(cm.metadata.annotations['include.release.openshift.io/self-managed-high-availability']).toBe('true');
    expect(JSON.parse(cm.data.stream)).toEqual(s);
    // unquoted, so oc's version substitution finds it
    expect(text).toContain('\n  releaseVersion: 0.0.1-snapshot\n');
  });

  it('is left alone when only last-modified or the generator would change; rewritten when the build changes', async () => {
    const old = await resolve('maipo', 'x86_64', '47.245');
    const first = bootimagesConfigMap(streamMetadata(old, { generator: 'osimage 0.1.0', now: new Date('2020-01-01T00:00:00Z') }));
    expect(
      bootimagesUpdate(first, streamMetadata(old, { generator: 'osimage 0.2.0', now: new Date('2021-01-01T00:00:00Z') })),
    ).toBeUndefined();
    const newer = streamMetadata(await resolve('maipo'), { generator: 'osimage 0.1.0' });
    expect(bootimagesUpdate(first, newer)).toBe(bootimagesConfigMap(newer));
    expect(bootimagesUpdate(undefined, newer)).toBe(bootimagesConfigMap(newer));
    expect(bootimagesUpdate('not yaml: [', newer)).toBe(bootimagesConfigMap(newer));
  });

  it('writeBootimages writes once, then leaves the file alone; refuses a bad file name or folder', async () => {
    const dir = await tempDir();
    const s = streamMetadata(await resolve('rhcos-4.12'), { generator: 'g' });
    expect(await writeBootimages(dir, 'coreos-bootimages.yaml', s)).toEqual({ path: join(dir, 'coreos-bootimages.yaml'), written: true });
    expect(await read(join(dir, 'coreos-bootimages.yaml'))).toBe(bootimagesConfigMap(s));
    expect((await writeBootimages(dir, 'coreos-bootimages.yaml', s)).written).toBe(false);
    await expect(writeBootimages(dir, '../x.yaml', s)).rejects.toThrow(/--file must be a file name inside --dir/);
    await expect(writeBootimages(join(dir, 'nope'), 'x.yaml', s)).rejects.toThrow(/nope: no such directory/);
  });
});

/**
 * `osimage payload bootimages` with the shared generator: every arch by default, two OS streams
 * (data.streams, rhel-9 the default) with a marketplace file, reruns that leave the file alone, --stream as
 * a deprecated alias of --name; and the round trip: the ConfigMap built into a release with `release new`,
 * read back by `release bootimages` exactly as written.
 */
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { osimage, SAMPLE_RELEASES } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';
import { cleanup, read, snapshot, tempDir } from './helpers.js';

const RELEASE_NEW_PAYLOAD = fileURLToPath(new URL('../fixtures/release-new/payload', import.meta.url));
const R9 = '418.94.202605101521-0';
const R10 = '10.2.20260217-0';

let server: FileServer;
beforeAll(async () => {
  server = await serveFolder(SAMPLE_RELEASES);
});
afterAll(() => server.close());
afterEach(cleanup);

/** `payload bootimages --dir DIR` over the sample browser with these `--os-stream` values. */
const withStreams = (dir: string, streams: string[], ...more: string[]) => [
  ...['payload', 'bootimages', '--dir', dir, '--base-url', server.url],
  ...streams.flatMap((s) => ['--os-stream', s]),
  ...more,
];
const twoStreams = (dir: string, ...more: string[]) => withStreams(dir, ['rhel-9=4.18-9.4/builds', 'rhel-10=rhel-10.2/builds'], ...more);

const MARKETPLACE = {
  x86_64: {
    azure: {
      'no-purchase-plan': {
        hyperVGen1: { publisher: 'azureopenshift', offer: 'aro4', sku: 'aro_418', version: '418.94.20260510' },
        hyperVGen2: { publisher: 'azureopenshift', offer: 'aro4', sku: '418-v2', version: '418.94.20260510' },
      },
    },
  },
};

describe('payload bootimages', () => {
  it('every arch of the build by default (one stream, data.stream only)', async () => {
    const dir = await tempDir();
    const r = await osimage(['payload', 'bootimages', '--dir', dir, '--base-url', server.url, '--channel', '4.16-9.4/builds']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      `${join(dir, 'coreos-bootimages.yaml')}: written (stream rhcos-4.16-9.4, build 416.94.202405291527-0, aarch64, ppc64le, s390x, x86_64)`,
    );
    const cm = parse(await read(join(dir, 'coreos-bootimages.yaml')));
    expect(Object.keys(cm.data)).toEqual(['releaseVersion', 'stream']);
    expect(Object.keys(JSON.parse(cm.data.stream).architectures)).toEqual(['aarch64', 'ppc64le', 's390x', 'x86_64']);
  });

  it('two OS streams and a marketplace file: data.streams, rhel-9 the default; a rerun leaves the file alone', async () => {
    const dir = await tempDir();
    const market = join(dir, 'marketplace-rhel-9.json');
    await writeFile(market, JSON.stringify(MARKETPLACE));
    const out = join(dir, 'manifests');
    await mkdir(out);
    const args = twoStreams(out, '--marketplace', `rhel-9=${market}`);
    const r = await osimage(args);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      `${join(out, 'coreos-bootimages.yaml')}: written (stream rhel-10, build ${R10}, aarch64, x86_64; stream rhel-9 (default), build ${R9}, aarch64, x86_64)`,
    );
    const cm = parse(await read(join(out, 'coreos-bootimages.yaml')));
    const streams = JSON.parse(cm.data.streams);
    expect(Object.keys(streams)).toEqual(['rhel-10', 'rhel-9']);
    expect(JSON.parse(cm.data.stream)).toEqual(streams['rhel-9']);
    expect(streams['rhel-9'].architectures.x86_64.artifacts.metal.release).toBe(R9);
    expect(streams['rhel-10'].architectures.aarch64.artifacts.metal.release).toBe(R10);
    expect(streams['rhel-9'].architectures.x86_64['rhel-coreos-extensions'].marketplace).toEqual(MARKETPLACE.x86_64);
    expect(streams['rhel-10'].architectures.x86_64['rhel-coreos-extensions']?.marketplace).toBeUndefined();
    expect(streams['rhel-9'].architectures.aarch64['rhel-coreos-extensions']?.marketplace).toBeUndefined();

    const files = await snapshot(out);
    const again = await osimage(args);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/: unchanged \(stream rhel-10, /);
    expect(await snapshot(out)).toEqual(files);
  });

  it('several OS streams without rhel-9: a usage error; --marketplace for a stream not given: an error', async () => {
    const dir = await tempDir();
    const r = await osimage(withStreams(dir, ['rhel-10=rhel-10.2/builds', 'centos-10=rhel-10.2/builds']));
    expect(r).toMatchObject({
      exitCode: 2,
      stderr: 'error: --os-stream: with several OS streams the default (data.stream) is rhel-9, which is not among rhel-10, centos-10',
    });
    const m = await osimage(twoStreams(dir, '--marketplace', 'rhel-11=m.json'));
    expect(m.exitCode).toBe(2);
    expect(m.stderr).toContain('--marketplace rhel-11=m.json: no --os-stream rhel-11 (streams: rhel-9, rhel-10)');
    expect(await snapshot(dir)).toEqual({});
  });

  it('--stream is the deprecated name of --name: a warning, the same file', async () => {
    const dir = await tempDir();
    const base = ['payload', 'bootimages', '--dir', dir, '--base-url', server.url, '--channel', 'rhcos-4.12', '--arch', 'x86_64'];
    const r = await osimage([...base, '--stream', 'rhcos-4.12-custom']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('warning: --stream is deprecated: use --name (the "stream" field)');
    expect(JSON.parse(parse(await read(join(dir, 'coreos-bootimages.yaml'))).data.stream).stream).toBe('rhcos-4.12-custom');
    const n = await osimage([...base, '--name', 'rhcos-4.12-custom']);
    expect(n).toMatchObject({ exitCode: 0, stderr: '' });
    expect(n.stdout).toContain(': unchanged (build 412.86.202301311551-0, x86_64)');
    const both = await osimage([...base, '--name', 'a', '--stream', 'b']);
    expect(both.exitCode).toBe(2);
  });

  it('--name OS_STREAM=NAME names each stream; a rerun without --name keeps the names the file has', async () => {
    const dir = await tempDir();
    const names = ['--name', 'rhel-9=rhcos-4.21', '--name', 'rhel-10=rhcos-4.22'];
    const r = await osimage(twoStreams(dir, ...names));
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    const file = join(dir, 'coreos-bootimages.yaml');
    const cm = parse(await read(file));
    const streams = JSON.parse(cm.data.streams);
    expect([streams['rhel-9'].stream, streams['rhel-10'].stream, JSON.parse(cm.data.stream).stream]).toEqual([
      'rhcos-4.21',
      'rhcos-4.22',
      'rhcos-4.21',
    ]);
    const files = await snapshot(dir);
    const again = await osimage(twoStreams(dir));
    expect(again).toMatchObject({ exitCode: 0, stderr: '' });
    expect(again.stdout).toMatch(/: unchanged \(stream rhel-10, /);
    expect(await snapshot(dir)).toEqual(files);
    // A new name is a change; --name NAME alone names the only stream.
    const one = await osimage(withStreams(dir, ['rhel-10=rhel-10.2/builds'], '--name', 'rhcos-4.22-custom'));
    expect(one.exitCode).toBe(0);
    expect(JSON.parse(parse(await read(file)).data.streams)['rhel-10'].stream).toBe('rhcos-4.22-custom');
  });

  it('--name without its stream among several, or for a stream not given: usage errors that say which', async () => {
    const dir = await tempDir();
    const plain = await osimage(twoStreams(dir, '--name', 'rhcos-4.22'));
    expect(plain).toMatchObject({
      exitCode: 2,
      stderr: 'error: --name rhcos-4.22: with several --os-stream say which stream it names: --name rhel-10=rhcos-4.22',
    });
    const stray = await osimage(twoStreams(dir, '--name', 'rhel-11=x'));
    expect(stray.exitCode).toBe(2);
    expect(stray.stderr).toContain('--name rhel-11=x: no --os-stream rhel-11 (streams: rhel-9, rhel-10)');
    expect(await snapshot(dir)).toEqual({});
  });

  it("--era writes an older installer form; auto then follows the file; --os-stream needs today's form", async () => {
    const dir = await tempDir();
    const file = join(dir, 'coreos-bootimages.yaml');
    const base = ['payload', 'bootimages', '--dir', dir, '--base-url', server.url, '--channel', 'rhcos-4.12', '--arch', 'x86_64'];
    const r = await osimage([...base, '--build', '412.86.202301250001-0', '--era', '2025-11']);
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    const compact = await read(file);
    expect(compact).toMatch(/\n {2}stream: '\{"stream":"rhcos-4\.12","metadata":/);
    expect(compact).not.toContain('creationTimestamp');
    // A newer build with --era auto (the default) keeps the file's form, and says so.
    const next = await osimage(base);
    expect(next.exitCode).toBe(0);
    expect(next.stderr).toBe(`${file}: kept the 2025-11 installer's form the file had (--era 2026 for today's)`);
    const kept = parse(await read(file)).data.stream as string;
    expect([kept.includes('\n'), JSON.parse(kept).architectures.x86_64.artifacts.metal.release]).toEqual([false, '412.86.202301311551-0']);
    expect((await osimage(base)).stdout).toContain(': unchanged (build 412.86.202301311551-0, x86_64)');
    // --era 2026 rewrites it in today's form.
    expect((await osimage([...base, '--era', '2026'])).exitCode).toBe(0);
    expect(await read(file)).toContain('\n  stream: |-\n    {\n');
    const streams = await osimage(withStreams(dir, ['rhel-9=4.18-9.4/builds'], '--era', '2021'));
    expect(streams.exitCode).toBe(2);
    expect(streams.stderr).toBe(
      'error: --era 2021: that installer wrote data.stream alone; --os-stream (data.streams) needs --era 2026 or auto',
    );
    const bad = await osimage([...base, '--era', '2024']);
    expect(bad).toMatchObject({ exitCode: 2, stderr: 'error: --era 2024: expected auto or one of 2021, 2025-08, 2025-11, 2026' });
  });

  it('round trip: release new from a folder holding the ConfigMap, release bootimages reads it back as written', async () => {
    const dir = await tempDir();
    const payload = join(dir, 'payload');
    await cp(RELEASE_NEW_PAYLOAD, payload, { recursive: true });
    await mkdir(join(payload, 'installer'));
    expect((await osimage(twoStreams(join(payload, 'installer')))).exitCode).toBe(0);
    const cm = parse(await read(join(payload, 'installer', 'coreos-bootimages.yaml')));
    const tar = join(dir, 'release.tar');
    expect((await osimage(['release', 'new', '--from-dir', payload, '--name', '4.99.0', '--to-file', tar])).exitCode).toBe(0);
    const def = await osimage(['release', 'bootimages', `oci-archive:${tar}`, '-o', 'json']);
    expect(def.exitCode).toBe(0);
    expect(def.stdout).toBe(cm.data.stream);
    const r10 = await osimage(['release', 'bootimages', '--os-stream', 'rhel-10', `oci-archive:${tar}`, '-o', 'json']);
    expect(JSON.parse(r10.stdout)).toEqual(JSON.parse(cm.data.streams)['rhel-10']);
    const text = await osimage(['release', 'bootimages', `oci-archive:${tar}`]);
    expect(text.stdout).toContain(`Stream:         rhel-9 (default)\nName:           rhcos-4.18-9.4`);
    expect(text.stdout).toContain(`x86_64   ${R10}  aws, gcp, metal, qemu  aws 3`);
  });
});

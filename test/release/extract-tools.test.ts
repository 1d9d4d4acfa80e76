/**
 * The pieces of `release extract --command/--tools`: oc's target table and choices, the markers written into
 * binaries (across chunk boundaries too), Mach-O re-signing, the archives (read back as a tar or zip reader reads
 * them), and --signing-key (a detached signature OpenPGP.js verifies). The whole command is compared with oc in
 * test/oc/side-by-side.test.ts (extractflag- pairs).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tarGzEntries, zipEntries } from '../infra/archives.mjs';
import { MarkerReplacer, RELEASE_IMAGE_MARKER, RELEASE_VERSION_MARKER, checkReplacements } from '../../src/release/binary-markers.js';
import { chooseTargets, goPlatform, matchesToolPath, planTools, type ToolsRelease } from '../../src/release/extract-tools.js';
import { parseMachO, resignMachO, signatureSize } from '../../src/release/macho-sign.js';
import { readSigningKey } from '../../src/release/signing.js';
import { tarGz, zip } from '../../src/release/tools-archive.js';
import type { ImageStream } from '../../src/oci/image-stream.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'osimage-tools-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stream = (images: string[]): ImageStream =>
  ({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: '4.13.1' },
    spec: { tags: images.map((name) => ({ name, from: { kind: 'DockerImage', name: `quay.io/ocp/${name}@sha256:${'a'.repeat(64)}` } })) },
  }) as ImageStream;

const release = (images: string[], arch = 'amd64'): ToolsRelease => ({
  image: 'quay.io/ocp/release:4.13.1',
  name: '4.13.1',
  arch,
  pullSpec: `quay.io/ocp/release@sha256:${'b'.repeat(64)}`,
  references: stream(images),
  infoText: '',
});

const ALL = ['cli', 'cli-artifacts', 'installer', 'installer-artifacts', 'baremetal-installer', 'cloud-credential-operator'];
const linux = { os: 'linux', arch: 'amd64' };

describe('planTools and chooseTargets (oc’s table)', () => {
  it('takes the release-arch Linux binary from cli / installer, and the other arch from -artifacts', () => {
    const own = chooseTargets(planTools('oc', undefined, linux), release(ALL), 'out', () => undefined);
    expect(own.map((t) => [t.image, t.from, t.to])).toEqual([['cli', 'usr/bin/oc', 'out/oc']]);
    const arm = chooseTargets(planTools('oc', 'linux/arm64', linux), release(ALL), 'out', () => undefined);
    expect(arm.map((t) => t.from)).toEqual(['usr/share/openshift/linux_arm64/oc']);
    // An arm64 release on an amd64 machine: the amd64 oc comes from cli-artifacts.
    const cross = chooseTargets(planTools('oc', undefined, linux), release(ALL, 'arm64'), '.', () => undefined);
    expect(cross.map((t) => [t.from, t.to])).toEqual([['usr/share/openshift/linux_amd64/oc', 'oc']]);
  });

  it('reads --command-os as oc does: an OS alone is amd64, mac is darwin, * gives archives', () => {
    expect(planTools('oc', 'mac', linux)).toMatchObject({ os: 'darwin', arch: 'amd64' });
    expect(planTools('oc', 'windows/arm64', linux)).toMatchObject({ os: 'windows', arch: 'arm64' });
    const all = planTools('oc', '*', linux);
    expect(all.targets.every((t) => t.asArchive)).toBe(true);
    expect(all.targets.filter((t) => t.zip).map((t) => t.os)).toEqual(['windows']);
    expect(() => planTools('oc', 'linux/amd64/v2', linux)).toThrow('invalid --command-os value');
    expect(() => planTools('kubectl', undefined, linux)).toThrow('command "kubectl" does not support the operating system "linux"');
    expect(() => planTools('kubectl', '*', linux)).toThrow("the supported commands are 'oc' and 'openshift-install'");
  });

  it('--tools leaves the optional baremetal installer out and names archives after the release', () => {
    const t = chooseTargets(planTools('', undefined, linux), release(ALL), 'out', () => undefined);
    expect(t.map((x) => x.to)).toEqual([
      'out/openshift-client-linux-4.13.1.tar.gz',
      'out/openshift-install-linux-4.13.1.tar.gz',
      'out/ccoctl-linux-4.13.1.tar.gz',
    ]);
  });

  it('says which images are missing, and refuses a newer target without its image as oc does', () => {
    const reports: string[] = [];
    const t = chooseTargets(planTools('', undefined, linux), release(ALL.filter((x) => x !== 'installer')), '.', (r) => reports.push(r));
    expect(t.map((x) => x.image)).toEqual(['cli', 'cloud-credential-operator']);
    // mac arm64 and linux arm64 are newer targets: without their image oc fails to parse an empty pull spec.
    expect(() => chooseTargets(planTools('', '*', linux), release(['cli', 'installer']), '.', () => undefined)).toThrow(
      'repository name must have at least one component',
    );
    expect(() => chooseTargets(planTools('oc', 'windows', linux), release(['cli']), '.', () => undefined)).toThrow(
      'the image "cli-artifacts" containing the desired command is not available',
    );
    expect(() => chooseTargets(planTools('ccoctl', 'mac', linux), release(ALL), '.', () => undefined)).toThrow(
      "the command 'ccoctl' is not available for darwin/amd64 on quay.io/ocp/release:4.13.1",
    );
    expect(reports).toEqual(['warning: Some commands can not be extracted due to missing images: installer\n']);
  });

  it('matches a layer entry as oc does: the folder literally, then the name as the first part', () => {
    expect(matchesToolPath('usr/bin/oc', 'file', 'usr/bin/oc')).toBe(true);
    expect(matchesToolPath('usr/bin/oc/extra', 'file', 'usr/bin/oc')).toBe(true);
    expect(matchesToolPath('./usr/bin/oc', 'file', 'usr/bin/oc')).toBe(false);
    expect(matchesToolPath('usr/bin/oc', 'symlink', 'usr/bin/oc')).toBe(false);
    expect(matchesToolPath('usr/bin/occ', 'file', 'usr/bin/oc')).toBe(false);
  });

  it('names Node’s platform in Go’s words', () => {
    expect(goPlatform('win32', 'x64')).toEqual({ os: 'windows', arch: 'amd64' });
    expect(goPlatform('darwin', 'arm64')).toEqual({ os: 'darwin', arch: 'arm64' });
  });
});

describe('MarkerReplacer', () => {
  const binary = Buffer.concat([
    Buffer.from('head'),
    RELEASE_VERSION_MARKER,
    Buffer.from('middle'),
    RELEASE_IMAGE_MARKER,
    Buffer.from('tail'),
    RELEASE_VERSION_MARKER,
  ]);
  const replacements = [
    { name: 'release image', marker: RELEASE_IMAGE_MARKER, value: 'quay.io/ocp/release@sha256:abc' },
    { name: 'release version', marker: RELEASE_VERSION_MARKER, value: '4.13.1' },
  ];
  const expected = (() => {
    const b = Buffer.from(binary);
    const v = b.indexOf(RELEASE_VERSION_MARKER);
    b.write('4.13.1\0', v, 'latin1');
    const i = b.indexOf(RELEASE_IMAGE_MARKER);
    b.write('quay.io/ocp/release@sha256:abc\0', i, 'latin1');
    return b;
  })();

  for (const size of [1, 7, 64, 4096]) {
    it(`writes each value over the first copy of its marker, in ${size}-byte chunks`, async () => {
      const chunks: Buffer[] = [];
      for (let i = 0; i < binary.length; i += size) chunks.push(binary.subarray(i, i + size));
      const r = new MarkerReplacer(replacements);
      const before = Buffer.from(binary);
      const out = await buffer(Readable.from(chunks).pipe(r));
      expect(out.equals(expected)).toBe(true);
      expect(out.length).toBe(binary.length);
      expect(r.missing()).toEqual([]);
      // The chunks it was given are left as they were (they may be shared: here, the binary itself).
      expect(binary.equals(before)).toBe(true);
    });
  }

  it('names the markers it did not find, sorted', async () => {
    const r = new MarkerReplacer(replacements);
    await buffer(Readable.from([Buffer.from('no markers here')]).pipe(r));
    expect(r.missing()).toEqual(['release image', 'release version']);
  });

  it('refuses a value longer than the room, in oc’s words', () => {
    expect(() => checkReplacements([{ name: 'release version', marker: RELEASE_VERSION_MARKER, value: 'x'.repeat(93) }])).toThrow(
      'the release version value has 93 bytes, but the maximum replacement length is 92',
    );
  });
});

/** A minimal 64-bit Mach-O executable: header, __TEXT, LC_CODE_SIGNATURE, code, room for the signature. */
function machO(codeSize: number, sigSize = signatureSize(codeSize)): Buffer {
  const b = Buffer.alloc(codeSize + sigSize);
  b.writeUInt32LE(0xfeedfacf, 0);
  b.writeUInt32LE(2, 12); // MH_EXECUTE
  b.writeUInt32LE(2, 16); // two load commands
  b.writeUInt32LE(72 + 16, 20);
  let p = 32;
  b.writeUInt32LE(0x19, p);
  b.writeUInt32LE(72, p + 4);
  b.write('__TEXT', p + 8, 'latin1');
  b.writeBigUInt64LE(0n, p + 40);
  b.writeBigUInt64LE(BigInt(codeSize), p + 48);
  p += 72;
  b.writeUInt32LE(0x1d, p);
  b.writeUInt32LE(16, p + 4);
  b.writeUInt32LE(codeSize, p + 8);
  b.writeUInt32LE(sigSize, p + 12);
  for (let i = p + 16; i < codeSize; i++) b[i] = i % 251;
  return b;
}

describe('resignMachO', () => {
  it('writes an ad-hoc signature whose page hashes match the code', async () => {
    const path = join(dir, 'macho');
    const codeSize = 3 * 4096 + 100;
    await writeFile(path, machO(codeSize));
    expect(await resignMachO(path)).toBe(true);
    const signed = await readFile(path);
    const m = parseMachO(signed)!;
    const sig = signed.subarray(m.dataoff, m.dataoff + m.datasize);
    expect(sig.readUInt32BE(0)).toBe(0xfade0cc0);
    expect(sig.readUInt32BE(4)).toBe(m.datasize);
    const cd = sig.subarray(20);
    expect(cd.readUInt32BE(0)).toBe(0xfade0c02);
    expect([cd.readUInt32BE(8), cd.readUInt32BE(12)]).toEqual([0x20400, 0x20002]); // version; ad-hoc, linker-signed
    expect(cd.readUInt32BE(28)).toBe(4); // pages
    expect(cd.readUInt32BE(32)).toBe(codeSize); // code limit
    const hashOff = cd.readUInt32BE(16);
    expect(cd.subarray(cd.readUInt32BE(20), hashOff).toString('latin1')).toBe('a.out\0');
    for (let page = 0; page < 4; page++) {
      const want = createHash('sha256')
        .update(signed.subarray(page * 4096, Math.min(codeSize, (page + 1) * 4096)))
        .digest();
      expect(cd.subarray(hashOff + page * 32, hashOff + (page + 1) * 32).equals(want)).toBe(true);
    }
    expect(signed.subarray(0, codeSize).equals(machO(codeSize).subarray(0, codeSize))).toBe(true);
  });

  it('leaves alone what it cannot re-sign in place: no Mach-O, or a signature of another size', async () => {
    const text = join(dir, 'script');
    await writeFile(text, '#!/bin/sh\necho hi\n');
    expect(await resignMachO(text)).toBe(false);
    const odd = join(dir, 'odd');
    const bytes = machO(5000, signatureSize(5000) + 16);
    await writeFile(odd, bytes);
    expect(await resignMachO(odd)).toBe(false);
    expect((await readFile(odd)).equals(bytes)).toBe(true);
  });
});

describe('archives', () => {
  const mtime = new Date('2023-05-24T13:41:35Z');

  it('tar.gz: README, the binary (streamed from its file) and hard links, with the given time and modes', async () => {
    const bin = join(dir, 'oc');
    await writeFile(bin, 'binary bytes');
    const bytes = await buffer(
      tarGz({
        mtime,
        files: [
          { name: 'README.md', data: Buffer.from('# readme\n'), mode: 0o644 },
          { name: 'oc', data: { path: bin, size: 12 }, mode: 0o755 },
        ],
        links: [{ name: 'kubectl', target: 'oc' }],
      }),
    );
    const entries = await tarGzEntries(bytes);
    expect(entries.map(({ data, ...e }) => ({ ...e, data: data.toString() }))).toEqual([
      { name: 'README.md', type: 'file', mode: '0644', size: 9, mtime: mtime.toISOString(), data: '# readme\n' },
      { name: 'oc', type: 'file', mode: '0755', size: 12, mtime: mtime.toISOString(), data: 'binary bytes' },
      { name: 'kubectl', type: 'link', mode: '0755', size: 0, mtime: mtime.toISOString(), linkname: 'oc', data: '' },
    ]);
  });

  it('zip: deflated entries with data descriptors that a zip reader reads back', async () => {
    const big = Buffer.alloc(300_000, 'abc');
    const bytes = await buffer(
      zip({
        mtime,
        files: [
          { name: 'README.md', data: Buffer.from('line\r\n'), mode: 0o755 },
          { name: 'oc.exe', data: big, mode: 0o755 },
        ],
        links: [],
      }),
    );
    const entries = zipEntries(bytes);
    expect(entries.map((e) => [e.name, e.mode, e.mtime, e.size])).toEqual([
      ['README.md', '0755', mtime.toISOString(), 6],
      ['oc.exe', '0755', mtime.toISOString(), big.length],
    ]);
    expect(entries[1]!.data.equals(big)).toBe(true);
    expect(bytes.length).toBeLessThan(big.length / 10);
  });
});

describe('--signing-key', () => {
  it('signs with an unprotected key, and asks for the passphrase of a protected one', async () => {
    const openpgp = await import('openpgp');
    const data = Buffer.from(`${'0'.repeat(64)}  release.txt\n`);
    for (const passphrase of [undefined, 'secret']) {
      const { privateKey, publicKey } = await openpgp.generateKey({
        type: 'ecc',
        curve: 'curve25519Legacy',
        userIDs: [{ name: 'osimage test' }],
        ...(passphrase ? { passphrase } : {}),
        format: 'armored',
      });
      const file = join(dir, `key-${passphrase ?? 'plain'}.asc`);
      await writeFile(file, privateKey);
      let asked = 0;
      const sign = await readSigningKey(file, async () => {
        asked++;
        return passphrase ?? '';
      });
      expect(asked).toBe(passphrase ? 1 : 0);
      const armored = await sign(data);
      expect(armored).toMatch(/^-----BEGIN PGP SIGNATURE-----/);
      const verified = await openpgp.verify({
        message: await openpgp.createMessage({ binary: new Uint8Array(data) }),
        signature: await openpgp.readSignature({ armoredSignature: armored }),
        verificationKeys: await openpgp.readKey({ armoredKey: publicKey }),
      });
      await expect(verified.signatures[0]!.verified).resolves.toBe(true);
    }
  });

  it('says so when the passphrase is wrong or the file holds no private key', async () => {
    const openpgp = await import('openpgp');
    const { privateKey, publicKey } = await openpgp.generateKey({
      type: 'ecc',
      curve: 'curve25519Legacy',
      userIDs: [{ name: 'osimage test' }],
      passphrase: 'right',
      format: 'armored',
    });
    const file = join(dir, 'protected.asc');
    await writeFile(file, privateKey);
    await expect(readSigningKey(file, async () => 'wrong')).rejects.toThrow(/^unable to decrypt signing key: /);
    const pub = join(dir, 'public.asc');
    await writeFile(pub, publicKey);
    await expect(readSigningKey(pub, async () => '')).rejects.toThrow(/cannot read the signing key/);
    await expect(readSigningKey(join(dir, 'none.asc'), async () => '')).rejects.toThrow(/cannot read the signing key .*none\.asc/);
  });
});

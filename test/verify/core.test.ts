/** verify's core pieces without a registry: the pins file, the two sides, the platform of an arch. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseImageReferences } from '../../src/oci/image-stream.js';
import { parseMeta } from '../../src/rhcos/meta.js';
import type { ResolvedBuild } from '../../src/rhcos/resolve.js';
import { settingsFromPinsFile } from '../../src/verify/pins.js';
import { payloadSide } from '../../src/release/os-build.js';
import { platformForArch } from '../../src/rhcos/platform.js';
import { bootimageSide } from '../../src/verify/verify.js';
import { imageReferences, tempDir, type Temp } from '../helpers/oci-builder.js';

// meta.json digests are checked: a made-up but well-formed one.
const OS_DIGEST = `sha256:${'ab'.repeat(32)}`;

let tmp: Temp;
beforeAll(async () => {
  tmp = await tempDir('osimage-verify-core-');
});
afterAll(async () => {
  await tmp.cleanup();
});

describe('settingsFromPinsFile', () => {
  test('reads the pins as pin --check does; --base-url and --arch override, the environment does not', async () => {
    const file = join(tmp.dir, 'release.sh');
    await writeFile(
      file,
      '#!/bin/sh\nexport RHCOS_BUILD_NAME="${RHCOS_BUILD_NAME:-412.86.1-0}"\n: "${RHCOS_DEFAULT_CHANNEL:=rhcos-4.12}"\nRHCOS_BASE_URL=https://mirror.example/releases/\n',
    );
    const saved = process.env.RHCOS_BUILD_NAME;
    process.env.RHCOS_BUILD_NAME = 'from-env';
    try {
      const p = await settingsFromPinsFile(file);
      expect(p.buildPin).toBe(`${file}:2`);
      expect(p.settings).toMatchObject({
        build: '412.86.1-0',
        channel: 'rhcos-4.12',
        baseUrl: 'https://mirror.example/releases',
        arch: 'x86_64',
      });
      const m = await settingsFromPinsFile(file, { baseUrl: 'http://127.0.0.1:9/mirror', arch: 'aarch64' });
      expect(m.settings).toMatchObject({ build: '412.86.1-0', baseUrl: 'http://127.0.0.1:9/mirror', arch: 'aarch64' });
    } finally {
      if (saved === undefined) delete process.env.RHCOS_BUILD_NAME;
      else process.env.RHCOS_BUILD_NAME = saved;
    }
  });

  test('an empty build pin, and a pin osimage cannot read, are errors naming the file and line', async () => {
    const empty = join(tmp.dir, 'empty.sh');
    await writeFile(empty, 'RHCOS_BUILD_NAME=\n');
    await expect(settingsFromPinsFile(empty)).rejects.toThrow(
      `${empty} has no pin: RHCOS_BUILD_NAME is empty on line 1, so there is no pinned bootimage to verify`,
    );
    const dynamic = join(tmp.dir, 'dynamic.sh');
    await writeFile(dynamic, 'RHCOS_BUILD_NAME="$(curl -s https://example/latest)"\n');
    await expect(settingsFromPinsFile(dynamic)).rejects.toThrow(new RegExp(`^${dynamic}:1: cannot read RHCOS_BUILD_NAME`));
  });
});

describe('the two sides', () => {
  const resolved = (meta: unknown): ResolvedBuild =>
    ({
      build: '47.246',
      metaUrl: 'http://x/maipo/47.246/meta.json',
      meta: parseMeta(meta, 'http://x/maipo/47.246/meta.json'),
    }) as ResolvedBuild;

  test('the bootimage is meta.json oscontainer, with or without a digest', () => {
    expect(bootimageSide(resolved({ buildid: '47.246', oscontainer: { image: 'r/os', digest: OS_DIGEST } }))).toEqual({
      pullspec: `r/os@${OS_DIGEST}`,
      digest: OS_DIGEST,
      buildId: '47.246',
      buildIdSource: 'meta.json',
    });
    expect(bootimageSide(resolved({ buildid: '47.246', oscontainer: { image: 'r/os:47.246' } })).digest).toBeUndefined();
    expect(() => bootimageSide(resolved({ buildid: '47.246' }))).toThrow(
      'RHCOS build 47.246 has no "oscontainer" in http://x/maipo/47.246/meta.json',
    );
  });

  test('the payload side: a DockerImage tag, its digest and its machine-os annotation', () => {
    const is = parseImageReferences(Buffer.from(imageReferences()));
    expect(payloadSide(is, 'machine-os-content', 'rel')).toEqual({
      pullspec: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${'b'.repeat(64)}`,
      digest: `sha256:${'b'.repeat(64)}`,
      buildId: '413.92.202305231734-0',
      buildIdSource: 'annotation',
    });
    expect(payloadSide(is, 'cli', 'rel').buildId).toBeUndefined();
    expect(() => payloadSide(is, 'rhel-coreos', 'rel:1')).toThrow('no image tag "rhel-coreos" exists in the release image rel:1');
    const notDocker = parseImageReferences(Buffer.from(imageReferences('x', [{ name: 'machine-os-content', kind: 'ImageStreamTag' }])));
    expect(() => payloadSide(notDocker, 'machine-os-content', 'rel')).toThrow('no image tag "machine-os-content" exists');
  });

  test('RHCOS arches map to image platforms', () => {
    expect(['x86_64', 'aarch64', 'ppc64le', 's390x', 'riscv64'].map(platformForArch)).toEqual([
      'linux/amd64',
      'linux/arm64',
      'linux/ppc64le',
      'linux/s390x',
      'linux/riscv64',
    ]);
  });
});

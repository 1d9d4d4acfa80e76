/**
 * `osimage release os-streams` on a release with two OS streams (rhel-9 and rhel-10): pushed to the real
 * distribution registry, and as an oci-archive holding the OS images too (looked up there by digest).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../helpers/cli.js';
import { archive, entry, pushBuilt, tempDir, type Temp } from '../helpers/oci-builder.js';
import { osStreamTags, streamImage, streamRelease } from '../helpers/os-stream-images.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';

const QUAY = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev';
const SPECS = {
  'rhel-coreos': { stream: 'rhel-9', kind: 'os' },
  'rhel-coreos-extensions': { stream: 'rhel-9', kind: 'extensions' },
  'rhel-coreos-10': { stream: 'rhel-10', kind: 'os' },
  'rhel-coreos-10-extensions': { stream: 'rhel-10', kind: 'extensions' },
} as const;

let reg: TestRegistry | undefined;
let tmp: Temp;
printLogsOnFailure(() => reg);
const digests: Record<string, string> = {};
let osRepo: string;
let relRepo: string;
let archiveRef: string;

beforeAll(async () => {
  reg = await startRegistry({ mode: 'open' });
  tmp = await tempDir('osimage-os-streams-');
  osRepo = `${reg.host}/os/node`;
  relRepo = `${reg.host}/ocp/release`;
  const built = [];
  for (const [tag, spec] of Object.entries(SPECS)) {
    const img = await streamImage(spec);
    digests[tag] = await pushBuilt(`${osRepo}:${tag}`, img);
    built.push(img);
  }
  const at = (repo: string) => Object.fromEntries(Object.keys(SPECS).map((t) => [t, `${repo}@${digests[t]}`]));
  await pushBuilt(`${relRepo}:4.21.0`, await streamRelease('4.21.0', osStreamTags(at(osRepo))));
  await pushBuilt(`${relRepo}:5.0.0`, await streamRelease('5.0.0', osStreamTags(at(osRepo))));
  // Only rhel-10's OS image: that stream is dropped, and the release has none left.
  await pushBuilt(
    `${relRepo}:half`,
    await streamRelease('4.21.0', osStreamTags({ 'rhel-coreos-10': `${osRepo}@${digests['rhel-coreos-10']}` })),
  );
  // Offline: the release names quay.io, the archive holds the images by digest.
  const rel = await streamRelease('4.21.0', osStreamTags(at(QUAY)));
  archiveRef = await archive(tmp.dir, 'release.tar', [entry(rel, '4.21.0'), ...built.map((b) => entry(b))], '4.21.0');
});

afterAll(async () => {
  await reg?.stop();
  reg = undefined;
  await tmp?.cleanup();
});

describe('release os-streams', () => {
  test('from the registry: two streams, rhel-9 the default of a 4.x release (JSON)', async () => {
    const r = await osimage(['release', 'os-streams', '--insecure', `${relRepo}:4.21.0`, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      defaultStream: 'rhel-9',
      streams: [
        {
          name: 'rhel-10',
          osImage: `${osRepo}@${digests['rhel-coreos-10']}`,
          osTag: 'rhel-coreos-10',
          extensionsImage: `${osRepo}@${digests['rhel-coreos-10-extensions']}`,
          extensionsTag: 'rhel-coreos-10-extensions',
        },
        {
          name: 'rhel-9',
          osImage: `${osRepo}@${digests['rhel-coreos']}`,
          osTag: 'rhel-coreos',
          extensionsImage: `${osRepo}@${digests['rhel-coreos-extensions']}`,
          extensionsTag: 'rhel-coreos-extensions',
        },
      ],
    });
  });

  test('a 5.x release defaults to rhel-10 (text view)', async () => {
    const r = await osimage(['release', 'os-streams', '--insecure', `${relRepo}:5.0.0`]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Default stream: rhel-10$/m);
    expect(r.stdout).toMatch(/^NAME +OS TAG +OS IMAGE +EXTENSIONS TAG +EXTENSIONS IMAGE$/m);
    expect(r.stdout).toMatch(/^rhel-10 +rhel-coreos-10 +\S+ +rhel-coreos-10-extensions +\S+$/m);
    expect(r.stdout).toMatch(/^rhel-9 +rhel-coreos +\S+ +rhel-coreos-extensions +\S+$/m);
  });

  test('offline from an oci-archive: the OS images are found by digest in the same archive', async () => {
    const r = await osimage(['release', 'os-streams', archiveRef, '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.defaultStream).toBe('rhel-9');
    expect(j.streams.map((s: { name: string; osImage: string }) => [s.name, s.osImage])).toEqual([
      ['rhel-10', `${QUAY}@${digests['rhel-coreos-10']}`],
      ['rhel-9', `${QUAY}@${digests['rhel-coreos']}`],
    ]);
  });

  test('a stream lacking its extensions image is dropped and said; no stream left: defaultStream null, exit 0', async () => {
    const t = await osimage(['release', 'os-streams', '--insecure', `${relRepo}:half`]);
    expect(t.exitCode).toBe(0);
    expect(t.stdout).toBe(
      'Default stream: none\nDropped: stream rhel-10 has no extensions image (only the OS image, tag rhel-coreos-10)\nNote: the release ships no complete OS image stream',
    );
    const j = await osimage(['release', 'os-streams', '--insecure', `${relRepo}:half`, '-o', 'json']);
    expect(JSON.parse(j.stdout)).toEqual({ defaultStream: null, streams: [] });
  });

  test('an OS image missing from the archive is an error naming it; --help has examples', async () => {
    const rel = await streamRelease('4.21.0', osStreamTags({ 'rhel-coreos': `${QUAY}@sha256:${'d'.repeat(64)}` }));
    const ref = await archive(tmp.dir, 'lonely.tar', [entry(rel, '4.21.0')], '4.21.0');
    const r = await osimage(['release', 'os-streams', ref]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`sha256/${'d'.repeat(64)}`);
    const h = await osimage(['release', 'os-streams', '--help']);
    expect(h.stdout).toContain('Examples:');
    expect(h.stdout).toContain('--filter-by-os');
  });
});

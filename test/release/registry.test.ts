/**
 * Round trips through the real distribution registry: release images built here, pushed with the project's
 * push client, then read back with `osimage release info` / `release extract` (run from the source, --insecure).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { osimage } from '../helpers/cli.js';
import {
  CLI_PULLSPEC,
  MOC_PULLSPEC,
  baseEntries,
  image,
  imageReferences,
  multiArch,
  pushBuilt,
  releaseEntries,
  releaseImage,
  tempDir,
  whiteout,
  type Temp,
} from '../helpers/oci-builder.js';
import { printLogsOnFailure, startRegistry, type TestRegistry } from '../helpers/registry.js';

let reg: TestRegistry | undefined;
let tmp: Temp;
printLogsOnFailure(() => reg);

describe('open registry', () => {
  let repo: string;
  let digest: string;
  beforeAll(async () => {
    reg = await startRegistry({ mode: 'open' });
    tmp = await tempDir();
    repo = `${reg.host}/ocp/release`;
    const img = await image([{ entries: baseEntries() }, { entries: releaseEntries() }]);
    digest = await pushBuilt(`${repo}:4.13.1`, img);
  });
  afterAll(async () => {
    await reg?.stop();
    reg = undefined;
    await tmp.cleanup();
  });

  test('info: Pull From is <repo>@<manifest digest>', async () => {
    const r = await osimage(['release', 'info', '--insecure', `${repo}:4.13.1`]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Name: +4\.13\.1$/m);
    expect(r.stdout).toMatch(new RegExp(`^Digest: +${digest}$`, 'm'));
    expect(r.stdout).toContain(`Pull From: ${repo}@${digest}\n`);
    expect(r.stdout).toMatch(/^ {2}Upgrades: 4\.12\.16, 4\.12\.17, 4\.13\.0$/m);
    expect(r.stdout).toMatch(/^ {2}machine-os 413\.92\.202305231734-0 Red Hat Enterprise Linux CoreOS$/m);
  });

  test('--image-for by tag and by digest', async () => {
    expect(await osimage(['release', 'info', '--insecure', '--image-for=cli', `${repo}:4.13.1`])).toEqual({
      stdout: CLI_PULLSPEC,
      stderr: '',
      exitCode: 0,
    });
    expect(await osimage(['release', 'info', '--insecure', '--image-for', 'machine-os-content', `${repo}@${digest}`])).toEqual({
      stdout: MOC_PULLSPEC,
      stderr: '',
      exitCode: 0,
    });
  });

  test('--image-for miss names the image as typed', async () => {
    const r = await osimage(['release', 'info', '--insecure', '--image-for=nope', `${repo}:4.13.1`]);
    expect(r).toEqual({ stdout: '', stderr: `error: no image tag "nope" exists in the release image ${repo}:4.13.1`, exitCode: 1 });
  });

  test("extract --file is byte-identical; a missing file is oc's error", async () => {
    const r = await osimage(['release', 'extract', '--insecure', `${repo}:4.13.1`, '--file', 'image-references']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(imageReferences());
    expect(await osimage(['release', 'extract', '--insecure', `${repo}:4.13.1`, '--file', 'missing'])).toEqual({
      stdout: '',
      stderr: 'error: image did not contain missing',
      exitCode: 1,
    });
  });

  test('the five placements, through the registry', async () => {
    const placements = {
      top: [{ entries: baseEntries() }, { entries: releaseEntries({ name: 'top' }) }],
      lower: [{ entries: releaseEntries({ name: 'lower' }) }, { entries: [{ name: 'usr/share/x', data: 'x' }] }],
      stale: [{ entries: releaseEntries({ name: 'stale' }) }, { entries: releaseEntries({ name: 'real' }) }],
      whiteout: [
        { entries: releaseEntries({ name: 'wh', extra: [{ name: 'release-manifests/0000_90_gone.yaml', data: 'a: 1\n' }] }) },
        { entries: [whiteout('release-manifests/0000_90_gone.yaml')] },
      ],
      deleted: [{ entries: releaseEntries({ name: 'deleted' }) }, { entries: [whiteout('release-manifests/image-references')] }],
    };
    for (const [tag, layers] of Object.entries(placements)) await pushBuilt(`${repo}:${tag}`, await image(layers));
    const name = async (tag: string) =>
      (await osimage(['release', 'info', '--insecure', `${repo}:${tag}`])).stdout.match(/^Name: +(\S+)$/m)?.[1];
    expect(await name('top')).toBe('top');
    expect(await name('lower')).toBe('lower');
    expect(await name('stale')).toBe('real');
    const wh = await osimage(['release', 'info', '--insecure', `${repo}:whiteout`]);
    expect(wh.stdout).toMatch(/^Manifests: +1$/m);
    const del = await osimage(['release', 'info', '--insecure', `${repo}:deleted`]);
    expect(del).toEqual({ stdout: '', stderr: 'error: release image did not contain an image-references file', exitCode: 1 });
  });

  test('manifest list: --filter-by-os picks, the list digest is shown; no match is an error', async () => {
    const amd = await releaseImage({ name: '4.13.1' });
    const arm = await releaseImage({ name: '4.13.1', architecture: 'arm64' });
    const idx = multiArch([
      { image: amd, platform: { os: 'linux', architecture: 'amd64' } },
      { image: arm, platform: { os: 'linux', architecture: 'arm64' } },
    ]);
    const listDigest = await pushBuilt(`${repo}:multi`, idx);
    const r = await osimage(['release', 'info', '--insecure', '--filter-by-os=linux/arm64', `${repo}:multi`]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Digest: +${listDigest}$`, 'm'));
    expect(r.stdout).toMatch(/^OS\/Arch: +multi \(linux\/arm64\)$/m);
    expect(r.stdout).toContain(`Pull From: ${repo}@${listDigest}\n`);
    const miss = await osimage(['release', 'info', '--insecure', '--filter-by-os=linux/s390x', `${repo}:multi`]);
    expect(miss.stderr).toMatch(
      new RegExp(
        `^error: unable to read image ${repo.replace(/\./g, '\\.')}:multi: filtered all images from manifest list .*linux/amd64, linux/arm64`,
      ),
    );
    expect(miss.exitCode).toBe(1);
  });

  test('extract --to through the registry writes the files', async () => {
    const to = join(tmp.dir, 'out');
    const r = await osimage(['release', 'extract', '--insecure', `${repo}:4.13.1`, '--to', to]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`Extracted release payload from digest ${digest} created at 2023-05-25T08:25:20Z`);
  });
});

describe('htpasswd registry and a repository-path key in the auth file', () => {
  let repo: string;
  beforeAll(async () => {
    reg = await startRegistry({ mode: 'htpasswd', users: { u: 'p' } });
    tmp = await tempDir();
    repo = `${reg.host}/ocp/release`;
    const cfg = join(tmp.dir, 'push.json');
    await writeFile(cfg, JSON.stringify({ auths: { [reg.host]: { auth: Buffer.from('u:p').toString('base64') } } }));
    await pushBuilt(`${repo}:1`, await releaseImage(), { registryConfig: cfg });
  });
  afterAll(async () => {
    await reg?.stop();
    reg = undefined;
    await tmp.cleanup();
  });

  test('-a with a `host/ocp` key succeeds', async () => {
    const cfg = join(tmp.dir, 'cfg.json');
    await writeFile(cfg, JSON.stringify({ auths: { [`${reg!.host}/ocp`]: { auth: 'dTpw' } } }));
    const r = await osimage(['release', 'info', '--insecure', '-a', cfg, `${repo}:1`, '--image-for', 'cli']);
    expect(r).toEqual({ stdout: CLI_PULLSPEC, stderr: '', exitCode: 0 });
  });

  test("without credentials: oc's error naming the image (no basic auth credentials); exit 1", async () => {
    const r = await osimage(['release', 'info', '--insecure', `${repo}:1`], { env: { HOME: tmp.dir, XDG_RUNTIME_DIR: tmp.dir } });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(`^error: unable to read image ${repo}:1: Head "http://\\S+/manifests/1": no basic auth credentials\n`),
    );
    expect(r.exitCode).toBe(1);
  });
});

/**
 * `release extract --command NAME` and `--tools`: the oc, openshift-install and ccoctl binaries read out of the
 * component images of a release, as oc's table says where each one is (which image, which path, for which
 * OS and architecture), with the release's version and pull spec written into them (binary-markers.ts), macOS
 * arm64 binaries re-signed (macho-sign.ts), and for --tools packed into archives (tools-archive.ts) with a
 * release.txt and a sha256sum.txt of them (signed with --signing-key).
 *
 * The choices follow oc's, so scripts that call `oc adm release extract` get the same files and messages:
 * `--command-os` names an OS (`linux` means linux/amd64, `mac` is darwin) or OS/ARCH, or `*` for all (archives);
 * a Linux binary built for the release's own architecture comes from the `cli`/`installer` image rather than the
 * `-artifacts` one; targets added after 4.1 (`new architectures`) are skipped silently when their image or file
 * is missing, the older ones are errors.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, utimes } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { join, normalize } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { OsimageError, UsageError, describe } from '../errors.js';
import { placeStaged, writeFileAtomic } from '../files/atomic.js';
import { forEachLimit } from '../files/parallel.js';
import { dockerImage, type ImageStream } from '../oci/image-stream.js';
import { resolveImage } from '../registry/platform.js';
import { parseReference } from '../registry/reference.js';
import type { ImageManifest, ImageSource } from '../registry/types.js';
import { README_CCOCTL, README_CLI_UNIX, README_CLI_WINDOWS, README_INSTALL, RELEASE_TXT_PREAMBLE } from '../oc/tools-texts.js';
import { MarkerReplacer, RELEASE_IMAGE_MARKER, RELEASE_VERSION_MARKER, type Replacement } from './binary-markers.js';
import { readLayer } from './layer-stream.js';
import { resignMachO } from './macho-sign.js';
import { tarGz, zip } from './tools-archive.js';

/** The architecture of the release itself (a Linux binary from the `cli` or `installer` image). */
export const RELEASE_ARCH = 'release-arch';

export interface ToolTarget {
  os: string;
  arch: string;
  command: string;
  /** Extracted only by --command, never by --tools (openshift-baremetal-install). */
  optional?: boolean;
  /** Added after the first releases: a release without its image or file is no error. */
  newArch?: boolean;
  injectImage?: boolean;
  injectVersion?: boolean;
  /** A macOS arm64 binary: re-signed after it was patched. */
  signMachO?: boolean;
  /** The archive's name, `%s` the release name. */
  archive: string;
  readme: string;
  linkTo?: string[];
  /** The component tag of the release, and the path of the binary in its image. */
  image: string;
  from: string;
}

const cli = (t: Omit<ToolTarget, 'command' | 'readme' | 'linkTo' | 'injectVersion'>): ToolTarget => ({
  command: 'oc',
  readme: README_CLI_UNIX,
  linkTo: ['kubectl'],
  injectVersion: true,
  ...t,
});
const install = (t: Omit<ToolTarget, 'command' | 'readme' | 'injectImage' | 'injectVersion'> & { command?: string }): ToolTarget => ({
  command: 'openshift-install',
  readme: README_INSTALL,
  injectImage: true,
  injectVersion: true,
  ...t,
});

/** oc's table, in oc's order (the order matters: it is the order of extraction and of errors). */
export const TOOL_TARGETS: readonly ToolTarget[] = [
  cli({
    os: 'darwin',
    arch: 'amd64',
    image: 'cli-artifacts',
    from: 'usr/share/openshift/mac/oc',
    archive: 'openshift-client-mac-%s.tar.gz',
  }),
  cli({
    os: 'darwin',
    arch: 'arm64',
    newArch: true,
    signMachO: true,
    image: 'cli-artifacts',
    from: 'usr/share/openshift/mac_arm64/oc',
    archive: 'openshift-client-mac-arm64-%s.tar.gz',
  }),
  cli({ os: 'linux', arch: RELEASE_ARCH, image: 'cli', from: 'usr/bin/oc', archive: 'openshift-client-linux-%s.tar.gz' }),
  cli({
    os: 'linux',
    arch: 'amd64',
    image: 'cli-artifacts',
    from: 'usr/share/openshift/linux_amd64/oc',
    archive: 'openshift-client-linux-amd64-%s.tar.gz',
  }),
  cli({
    os: 'linux',
    arch: 'arm64',
    newArch: true,
    image: 'cli-artifacts',
    from: 'usr/share/openshift/linux_arm64/oc',
    archive: 'openshift-client-linux-arm64-%s.tar.gz',
  }),
  {
    os: 'windows',
    arch: 'amd64',
    command: 'oc',
    image: 'cli-artifacts',
    from: 'usr/share/openshift/windows/oc.exe',
    readme: README_CLI_WINDOWS,
    injectVersion: true,
    archive: 'openshift-client-windows-%s.zip',
  },
  install({
    os: 'darwin',
    arch: 'amd64',
    image: 'installer-artifacts',
    from: 'usr/share/openshift/mac/openshift-install',
    archive: 'openshift-install-mac-%s.tar.gz',
  }),
  install({
    os: 'darwin',
    arch: 'arm64',
    newArch: true,
    signMachO: true,
    image: 'installer-artifacts',
    from: 'usr/share/openshift/mac_arm64/openshift-install',
    archive: 'openshift-install-mac-arm64-%s.tar.gz',
  }),
  install({
    os: 'linux',
    arch: RELEASE_ARCH,
    image: 'installer',
    from: 'usr/bin/openshift-install',
    archive: 'openshift-install-linux-%s.tar.gz',
  }),
  install({
    os: 'linux',
    arch: 'amd64',
    newArch: true,
    image: 'installer-artifacts',
    from: 'usr/share/openshift/linux_amd64/openshift-install',
    archive: 'openshift-install-linux-amd64-%s.tar.gz',
  }),
  install({
    os: 'linux',
    arch: 'arm64',
    newArch: true,
    image: 'installer-artifacts',
    from: 'usr/share/openshift/linux_arm64/openshift-install',
    archive: 'openshift-install-linux-arm64-%s.tar.gz',
  }),
  install({
    os: 'linux',
    arch: RELEASE_ARCH,
    command: 'openshift-baremetal-install',
    optional: true,
    image: 'baremetal-installer',
    from: 'usr/bin/openshift-install',
    archive: 'openshift-baremetal-install-linux-%s.tar.gz',
  }),
  {
    os: 'linux',
    arch: RELEASE_ARCH,
    command: 'ccoctl',
    newArch: true,
    image: 'cloud-credential-operator',
    from: 'usr/bin/ccoctl',
    readme: README_CCOCTL,
    archive: 'ccoctl-linux-%s.tar.gz',
  },
];

/** Node's platform and architecture in Go's words (what oc compares with). */
export function goPlatform(platform: string = process.platform, arch: string = process.arch): { os: string; arch: string } {
  const os = platform === 'win32' ? 'windows' : platform;
  const goArch: Record<string, string> = { x64: 'amd64', ia32: '386', ppc64: 'ppc64le', arm: 'arm' };
  return { os, arch: goArch[arch] ?? arch };
}

export interface ToolsPlan {
  /** The binary named by --command, or '' for --tools (every target that is not optional). */
  command: string;
  os: string;
  arch: string;
  targets: Array<ToolTarget & { asArchive: boolean; zip: boolean }>;
}

/**
 * The targets --command / --tools asks for, before the release is read: `--command-os` parsed, the table
 * filtered by command. The errors are oc's (a command not in the table "does not support the operating system").
 */
export function planTools(command: string, commandOs: string | undefined, runtime = goPlatform()): ToolsPlan {
  let os = runtime.os;
  let arch = runtime.arch;
  if (commandOs !== undefined && commandOs !== '') {
    os = commandOs;
    if (os === '*') arch = '*';
    else {
      const parts = os.split('/');
      if (parts.length === 1) arch = 'amd64';
      else if (parts.length === 2) [os, arch] = parts as [string, string];
      else throw new UsageError('invalid --command-os value');
    }
  }
  if (os === 'mac') os = 'darwin';
  const chosen = TOOL_TARGETS.filter((t) => (command !== '' ? t.command === command : !t.optional));
  const archives = command === '' || commandOs === '*';
  const targets = chosen.map((t) => ({ ...t, asArchive: archives, zip: archives && t.os === 'windows' }));
  if (targets.length === 0) {
    if (command !== '' && os !== '*') throw new UsageError(`command "${command}" does not support the operating system "${os}"`);
    if (command !== '') throw new UsageError("the supported commands are 'oc' and 'openshift-install'");
    throw new OsimageError('no available commands');
  }
  return { command, os, arch, targets };
}

/** What the release gives the extraction. */
export interface ToolsRelease {
  /** The release image as typed (for messages). */
  image: string;
  /** metadata version, else the image-references name. */
  name: string;
  /** The config's architecture. */
  arch: string;
  /** `<repository>@<digest>` (the list digest for a list): what openshift-install is told to install. */
  pullSpec: string;
  references: ImageStream;
  /** release.txt after oc's preamble: the release's info with pull specs. */
  infoText: string;
}

export interface ToolsOptions {
  dir: string;
  open: (ref: string) => Promise<ImageSource>;
  filterByOs?: string;
  /** How many images are read at once (--max-per-registry; 0 or less means 1, as in oc). */
  parallel?: number;
  /** Signs sha256sum.txt: an ASCII-armoured detached signature (sha256sum.txt.asc). */
  sign?: (data: Buffer) => Promise<string>;
  /** oc's warnings, word for word (one is not ended by a newline, as in oc): written to stderr as they are. */
  report: (text: string) => void;
}

interface ChosenTarget extends ToolTarget {
  asArchive: boolean;
  zip: boolean;
  spec: string;
  /** The file written: DIR/ARCHIVE or DIR/COMMAND. */
  to: string;
}

/** The targets that apply to this release and OS/arch, with their images; oc's errors when none does. */
export function chooseTargets(plan: ToolsPlan, release: ToolsRelease, dir: string, report: (text: string) => void): ChosenTarget[] {
  const missing = new Set<string>();
  const chosen: ChosenTarget[] = [];
  for (const t of plan.targets) {
    if (plan.os !== '*' && t.os !== plan.os) continue;
    if (plan.arch !== '*' && t.arch !== plan.arch && (plan.arch !== release.arch || t.arch !== RELEASE_ARCH)) continue;
    // The release's own architecture comes from the cli / installer image.
    if (t.os === 'linux' && t.arch === release.arch) continue;
    const tag = release.references.spec.tags?.find((x) => x.name === t.image);
    const spec = tag ? (dockerImage(tag) ?? '') : '';
    if (spec === '' && !t.newArch) {
      missing.add(t.image);
      continue;
    }
    // A newer target whose image the release lacks still gets here with no pull spec, which oc refuses so.
    if (spec === '') throw new OsimageError('repository name must have at least one component');
    parseReference(spec);
    const name = t.asArchive ? t.archive.replace('%s', release.name) : t.command;
    chosen.push({ ...t, spec, to: normalize(join(dir, name)) });
  }
  const missingList = [...missing].sort();
  if (chosen.length === 0) {
    if (missingList.length === 1) throw new OsimageError(`the image "${missingList[0]}" containing the desired command is not available`);
    if (missingList.length > 1) throw new OsimageError(`some required images are missing: ${missingList.join(', ')}`);
    throw new OsimageError(`the command '${plan.command}' is not available for ${plan.os}/${plan.arch} on ${release.image}`);
  }
  if (missingList.length > 0) report(`warning: Some commands can not be extracted due to missing images: ${missingList.join(', ')}\n`);
  return chosen;
}

/**
 * Whether a layer entry is the file `from` names, as oc matches it: the name starts with the file's folder
 * (`usr/bin/`, literally: no `./`), and what follows is the file's name, alone or as the first part of a longer
 * path. Regular files and folders count; links do not.
 */
export function matchesToolPath(name: string, type: string | undefined, from: string): boolean {
  if (type !== 'file' && type !== 'contiguous-file' && type !== 'directory') return false;
  const slash = from.lastIndexOf('/');
  const folder = from.slice(0, slash + 1);
  const base = from.slice(slash + 1);
  if (!name.startsWith(folder)) return false;
  return name.slice(folder.length).split('/')[0] === base;
}

interface Found {
  tmp: string;
  size: number;
  mtime: Date;
  missing: string[];
}

/**
 * Read `from` out of the image (top layer first, the first copy wins), patching it on the way, into a temp file
 * in `stage`: undefined when no layer has it.
 */
async function readTool(
  source: ImageSource,
  manifest: ImageManifest,
  from: string,
  replacements: Replacement[],
  stage: string,
  n: number,
): Promise<Found | undefined> {
  let found: Found | undefined;
  for (let i = manifest.layers.length - 1; i >= 0 && !found; i--) {
    await readLayer(source, manifest.layers[i]!, {
      wants: (h) => (matchesToolPath(h.name, h.type, from) ? 'stream' : false),
      onEntry: async (h, _data, stream) => {
        // Every entry comes by; only the one asked for comes with its bytes.
        if (!stream) return;
        const tmp = join(stage, `tool-${n}`);
        const replacer = new MarkerReplacer(replacements);
        let size = 0;
        const count = new Transform({
          transform(c: Buffer, _e, done) {
            size += c.length;
            done(null, c);
          },
        });
        await pipeline(stream as unknown as Readable, replacer, count, createWriteStream(tmp, { mode: 0o600 }));
        found = { tmp, size, mtime: h.mtime ?? new Date(0), missing: replacer.missing() };
        return 'stop' as const;
      },
    });
  }
  return found;
}

/** Write the archive (or the binary) for one target from the patched temp file; its sha256 for an archive. */
async function place(t: ChosenTarget, found: Found, stage: string, n: number): Promise<string | undefined> {
  if (!t.asArchive) {
    await utimes(found.tmp, found.mtime, found.mtime);
    await placeStaged(found.tmp, t.to, { mode: 0o755 });
    return undefined;
  }
  const binary = { name: t.zip ? `${t.command}.exe` : t.command, data: { path: found.tmp, size: found.size }, mode: 0o755 };
  const bytes = t.zip
    ? zip({
        mtime: found.mtime,
        files: [{ name: 'README.md', data: Buffer.from(t.readme.replace(/\n/g, '\r\n')), mode: 0o755 }, binary],
        links: [],
      })
    : tarGz({
        mtime: found.mtime,
        files: [{ name: 'README.md', data: Buffer.from(t.readme), mode: 0o644 }, binary],
        links: (t.linkTo ?? []).map((name) => ({ name, target: t.command })),
      });
  const hash = createHash('sha256');
  const tmp = join(stage, `archive-${n}`);
  await pipeline(
    bytes,
    new Transform({
      transform(c: Buffer, _e, done) {
        hash.update(c);
        done(null, c);
      },
    }),
    createWriteStream(tmp, { mode: 0o600 }),
  );
  await utimes(tmp, found.mtime, found.mtime);
  await placeStaged(tmp, t.to, { mode: 0o755 });
  return hash.digest('hex');
}

/**
 * Extract the chosen targets into `opts.dir` (created if missing), then (for archives) release.txt,
 * sha256sum.txt and its signature. Files appear atomically, each when it is complete. Returns the files written.
 */
export async function extractTools(plan: ToolsPlan, release: ToolsRelease, opts: ToolsOptions): Promise<string[]> {
  const dir = opts.dir;
  const chosen = chooseTargets(plan, release, dir, opts.report);
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new OsimageError(`cannot create ${dir}: ${describe(err)}`);
  }
  // Staged beside the files they become, so that each one is renamed into place.
  const stage = await mkdtemp(join(dir, '.osimage-tools-'));
  const hashes = new Map<string, string>();
  const done = new Set<ChosenTarget>();
  const written: string[] = [];
  try {
    await forEachLimit(
      chosen.map((t, n) => ({ t, n })),
      Math.max(1, opts.parallel ?? 1),
      async ({ t, n }) => {
        const replacements: Replacement[] = [
          ...(t.injectImage ? [{ name: 'release image', marker: RELEASE_IMAGE_MARKER, value: release.pullSpec }] : []),
          ...(t.injectVersion ? [{ name: 'release version', marker: RELEASE_VERSION_MARKER, value: release.name }] : []),
        ];
        const source = await opts.open(t.spec);
        const image = await resolveImage(source, opts.filterByOs);
        const found = await readTool(source, image.manifest.parsed, t.from, replacements, stage, n);
        if (!found) return;
        if (replacements.length > 0 && found.missing.length > 0) {
          // oc's words, without a line end as oc writes them.
          opts.report(`warning: Unable to make all expected replacements in ${t.command}.  Remaining: ${found.missing.join(', ')}`);
        }
        if (t.signMachO && replacements.length > 0) await resignMachO(found.tmp);
        const sum = await place(t, found, stage, n);
        if (sum !== undefined) hashes.set(t.to, sum);
        done.add(t);
        written.push(t.to);
      },
    );
    const archived = chosen.some((t) => t.asArchive);
    if (archived) {
      const text = Buffer.from(RELEASE_TXT_PREAMBLE + release.infoText);
      await writeFileAtomic(join(dir, 'release.txt'), text, { mode: 0o644 });
      written.push(join(dir, 'release.txt'));
      hashes.set('release.txt', createHash('sha256').update(text).digest('hex'));
    }
    if (hashes.size > 0) {
      // Sorted by the path written (release.txt by its bare name), as oc sorts them; the lines name the file only.
      const keys = [...hashes.keys()].sort();
      const sums = Buffer.from(keys.map((k) => `${hashes.get(k)}  ${k.slice(k.lastIndexOf('/') + 1)}\n`).join(''));
      await writeFileAtomic(join(dir, 'sha256sum.txt'), sums, { mode: 0o644 });
      written.push(join(dir, 'sha256sum.txt'));
      if (opts.sign) {
        const signature = await opts.sign(sums);
        await writeFileAtomic(join(dir, 'sha256sum.txt.asc'), signature, { mode: 0o644 });
        written.push(join(dir, 'sha256sum.txt.asc'));
      }
    }
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
  const notFound = chosen
    .filter((t) => !done.has(t) && !t.newArch)
    .map((t) => t.from)
    .sort();
  if (notFound.length === 1) throw new OsimageError(`image did not contain ${notFound[0]}`);
  if (notFound.length > 1) throw new OsimageError(`unable to find multiple files: ${notFound.join(', ')}`);
  return written;
}

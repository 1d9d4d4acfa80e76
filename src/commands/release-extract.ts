/**
 * `osimage release extract`: oc adm release extract's modes, one at a time: `--file` (one file to stdout), `--to`
 * (release-manifests/ into a folder), `--credentials-requests [--cloud]`, `--command NAME [--command-os OS]`,
 * `--tools` (archives, release.txt, sha256sum.txt [.asc]) and `--git DIR [-o commit]`. The image is the argument
 * or `--from`. Flag errors use oc's words; they exit 2 as every usage error here does.
 */
import { Command, Option } from 'commander';
import { OsimageError, UsageError } from '../errors.js';
import { readImages } from './open-image.js';
import { examples } from './options.js';
import { addRegistryOptions, type RegistryOptionValues } from './registry-options.js';
import { createdString, loadReleaseInfo } from '../release/info.js';
import { escapeText } from '../output/escape.js';
import { out, outRaw, errRaw, warn } from '../output/terminal.js';
import { parseReference } from '../registry/reference.js';
import type { ImageConfig } from '../registry/types.js';
import type { MirrorFileKind } from '../registry/mirrors.js';
import { setExitCode } from '../context.js';
import { json } from '../output/format.js';
import { parseIntFlag } from './release-info-flags.js';

interface ExtractOptions extends RegistryOptionValues {
  from?: string;
  file?: string;
  to: string;
  git?: string;
  tools?: boolean;
  signingKey?: string;
  command?: string;
  commandOs?: string;
  credentialsRequests?: boolean;
  cloud?: string;
  output?: string;
  icspFile?: string;
  idmsFile?: string;
  maxPerRegistry: number;
}

const REFERENCE_HELP =
  'IMAGE is a registry reference (quay.io/ns/release:tag or @sha256:…; docker://REF too), oci:DIR[:TAG], oci-archive:FILE[:TAG], dir:DIR or docker-archive:FILE[:REF] (as skopeo writes them).';

export function extractCommand(): Command {
  return addRegistryOptions(new Command('extract'))
    .description(
      `Extract what a release image holds: release-manifests/ (--to, --file), its CredentialsRequests (--credentials-requests), the oc / openshift-install / ccoctl binaries (--command, --tools) or the source of its components (--git).\n${REFERENCE_HELP}`,
    )
    .argument('[image...]', 'the release image (or --from)')
    .option('--from <image>', 'the release image (oc’s older spelling of the argument)')
    .option('--file <name>', 'write the raw bytes of release-manifests/NAME to stdout')
    .option('--to <dir>', 'the folder to write to (release-manifests/, credentials requests, binaries, archives)', '.')
    .option('--credentials-requests', 'write only the manifests that hold CredentialsRequests, with only those objects')
    .option('--cloud <name>', 'with --credentials-requests: only the requests for this cloud (aws, azure, gcp, ibmcloud, …)')
    .option('--command <name>', 'extract this binary for your OS: oc, openshift-install, openshift-baremetal-install or ccoctl')
    .option(
      '--command-os <os>',
      "the OS (and arch) of --command / --tools: linux, mac, windows, linux/arm64, mac/arm64, or '*' for all (archives)",
    )
    .option('--tools', 'write the archives of every tool for --command-os (default: this OS), release.txt and sha256sum.txt')
    .option('--signing-key <file>', 'with --tools: sign sha256sum.txt with this OpenPGP private key (sha256sum.txt.asc)')
    .option('--git <dir>', 'clone the source of every component into DIR/<host>/<path> and check out its commit (needs git)')
    .addOption(
      new Option(
        '-o, --output <format>',
        "text (default) or json: the files written (--to, --credentials-requests, --command, --tools); with --git: 'commit' prints each clone and its commit, checking nothing out",
      ).choices(['text', 'json', 'commit']),
    )
    .option('--icsp-file <file>', 'read images named by digest from the mirrors of this ImageContentSourcePolicy too')
    .option('--idms-file <file>', 'read images named by digest from the mirrors of this ImageDigestMirrorSet too')
    .option('--dir <dir>', 'the folder file:// images are read from (default: the current folder)')
    .addOption(
      new Option('--max-per-registry <n>', 'images read at once (--command, --tools)')
        .argParser(parseIntFlag('--max-per-registry', 'osimage release extract'))
        .default(0, '1'),
    )
    .addHelpText(
      'after',
      examples([
        'osimage release extract oci-archive:release.tar --file image-references',
        'osimage release extract quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64 --to ./manifests',
        'osimage release extract oci-archive:release.tar --to ./manifests -o json   # the files written, as JSON',
        'osimage release extract --credentials-requests --cloud aws --to ./credreqs quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        'osimage release extract --command oc --to ./bin quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        'osimage release extract --command openshift-install --command-os mac/arm64 --to ./bin REGISTRY/ocp/release:4.16.0-multi',
        "osimage release extract --tools --command-os '*' --signing-key key.asc --to ./mirror quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64",
        'osimage release extract --git ./src -o commit --from quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64',
        'osimage release extract --icsp-file icsp.yaml --command oc --to ./bin MIRROR/ocp/release@sha256:…',
      ]),
    )
    .action(async (images: string[], o: ExtractOptions) => {
      if ((images.length === 1 && o.from !== undefined && o.from !== '') || images.length > 1) {
        throw new UsageError('you may only specify a single image via --from or argument');
      }
      const image = o.from !== undefined && o.from !== '' ? o.from : images[0];
      if (image === undefined || image === '') {
        throw new UsageError("missing required argument 'image'");
      }
      await validate(o);
      if (o.icspFile !== undefined && o.idmsFile !== undefined) throw new UsageError('icsp-file and idms-file are mutually exclusive');
      const mirrorFlag: [MirrorFileKind, string] | undefined =
        o.icspFile !== undefined ? ['icsp', o.icspFile] : o.idmsFile !== undefined ? ['idms', o.idmsFile] : undefined;
      if (mirrorFlag) {
        o.mirrors = await (await import('../registry/mirrors.js')).readMirrorFile(mirrorFlag[1], mirrorFlag[0]);
        if (!isDigestReference(image)) {
          warn(
            mirrorFlag[0] === 'icsp'
              ? '--icsp-file only applies to images referenced by digest and will be ignored for tags'
              : '--idms-file(and --icsp-file) only applies to images referenced by digest and will be ignored for tags',
          );
        }
      }
      if (o.git !== undefined && o.git !== '') return gitMode(image, o);
      if (o.tools || (o.command !== undefined && o.command !== '')) return toolsMode(image, o);
      if (o.credentialsRequests) return credentialsMode(image, o);
      if (o.file !== undefined && o.file !== '') {
        const name = o.file;
        const { extractFile } = await import('../release/extract.js');
        const { file } = await readImages(o, async (open) => extractFile(await open(image), name, filterOf(o)));
        if (!file) throw new OsimageError(`image did not contain ${name}`);
        outRaw(file.data);
        return;
      }
      const { extractTree } = await import('../release/extract.js');
      const tree = await readImages(o, async (open) => extractTree(await open(image), o.to, filterOf(o)));
      out(o.output === 'json' ? json(await extractJson(image, 'manifests', tree, o.to, tree.files)) : extractedLine(image, tree));
    });
}

/** oc's checks, in oc's order: modes that exclude each other, -o only with --git, --cloud only with requests. */
async function validate(o: ExtractOptions): Promise<void> {
  const given = (v: string | undefined) => v !== undefined && v !== '';
  const modes = [o.tools === true, o.credentialsRequests === true, given(o.file), given(o.command), given(o.git)].filter(Boolean).length;
  // text and json say what was written; commit is oc's, which takes -o with --git only (oc's words below).
  if (o.output === 'commit' && !given(o.git)) throw new UsageError('--output is only supported with --git');
  if (o.output === 'json' && given(o.file))
    throw new UsageError("--output json cannot be used with --file: the file's bytes are the output");
  // The credentials-requests module (and the YAML parser it loads) only when --cloud needs checking.
  if (o.cloud !== undefined && o.cloud !== '') {
    const { checkCloud } = await import('../release/credentials-requests.js');
    checkCloud(o.cloud, o.credentialsRequests === true);
  }
  if (modes > 1) throw new UsageError('only one of --tools, --command, --credentials-requests, --file, or --git may be specified');
  if (o.to !== '.' && given(o.file)) throw new UsageError('only one of --to and --file may be set');
  if (given(o.git) && o.output !== undefined && o.output !== '' && o.output !== 'commit') {
    throw new UsageError("the only supported option for --output is 'commit'");
  }
}

function isDigestReference(image: string): boolean {
  if (image.startsWith('oci:') || image.startsWith('oci-archive:')) return false;
  try {
    return parseReference(image).reference.digest !== undefined;
  } catch {
    return false;
  }
}

/** oc's last line: the digest (unless the image was named by one) and the time the image was created. */
function extractedLine(image: string, r: { digest: string; listDigest?: string; config: ImageConfig }): string {
  const created = createdString(r.config.created);
  if (isDigestReference(image)) return escapeText(`Extracted release payload created at ${created}`);
  return escapeText(`Extracted release payload from digest ${r.listDigest ?? r.digest} created at ${created}`);
}

async function credentialsMode(image: string, o: ExtractOptions): Promise<void> {
  const { extractCredentialsRequests } = await import('../release/credentials-requests.js');
  const r = await readImages(o, async (open) =>
    extractCredentialsRequests(await open(image), o.to, { ...filterOf(o), ...(o.cloud ? { cloud: o.cloud } : {}) }),
  );
  out(o.output === 'json' ? json(await extractJson(image, 'credentials-requests', r, o.to, r.files)) : extractedLine(image, r));
}

async function toolsMode(image: string, o: ExtractOptions): Promise<void> {
  const tools = await import('../release/extract-tools.js');
  const plan = tools.planTools(o.tools ? '' : (o.command ?? ''), o.commandOs);
  const signer =
    o.signingKey !== undefined && o.signingKey !== '' && plan.targets.some((t) => t.asArchive) ? await loadSigner(o.signingKey) : undefined;
  const releaseView = await import('../output/release-view.js');
  const done = await readImages(o, async (open) => {
    const info = await loadReleaseInfo(image, await open(image), filterOf(o));
    const release = {
      image,
      name: info.metadata ? info.metadata.version : (info.references.metadata.name ?? ''),
      arch: info.config.architecture ?? '',
      pullSpec: info.pullFrom,
      references: info.references,
      infoText: releaseView.renderInfo(info, 'pullspecs'),
    };
    const written = await tools.extractTools(plan, release, {
      dir: o.to,
      open,
      ...filterOf(o),
      parallel: o.maxPerRegistry,
      ...(signer ? { sign: signer } : {}),
      report: errRaw,
    });
    return { info, written };
  });
  if (o.output === 'json') out(json(await extractJson(image, 'tools', done.info, o.to, done.written)));
}

async function loadSigner(file: string): Promise<(data: Buffer) => Promise<string>> {
  const { readSigningKey } = await import('../release/signing.js');
  const { readPassphrase } = await import('./passphrase.js');
  return readSigningKey(file, () => readPassphrase('Enter password for private key: '));
}

async function gitMode(image: string, o: ExtractOptions): Promise<void> {
  const { extractGit } = await import('../release/git-clone.js');
  const dir = o.git!;
  const info = await readImages(o, async (open) => loadReleaseInfo(image, await open(image), { ...filterOf(o), referencesOnly: true }));
  const r = await extractGit(info.references, dir, { output: o.output === 'commit' ? 'commit' : '' });
  for (const m of r.messages) (m.stream === 'stdout' ? outRaw : errRaw)(m.text);
  if (r.failed) setExitCode(1);
}

/** The JSON view of what was written (its module loads only for -o json). */
async function extractJson(...args: Parameters<typeof import('../output/extract-view.js').extractJson>) {
  return (await import('../output/extract-view.js')).extractJson(...args);
}

/** `--filter-by-os` as the release readers take it. */
function filterOf(o: RegistryOptionValues): { filterByOs?: string } {
  return o.filterByOs !== undefined ? { filterByOs: o.filterByOs } : {};
}

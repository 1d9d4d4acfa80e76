/** The options of `release new`, as commander gives them: shared by its inputs (--from-dir, -f, --from-release, mappings). */
import { packageVersion } from '../package-info.js';
import { openImage } from '../registry/open.js';
import type { SourceOptions } from '../registry/types.js';
import * as term from '../output/terminal.js';
import { defaultReleaseName } from '../release/new/created.js';
import { releaseMetadata, type ReleaseMetadata } from '../release/new/metadata.js';
import type { PublishOptions } from '../release/new/output.js';
import type { SettingsOptionValues } from './options.js';
import type { RegistryOptionValues } from './registry-options.js';

export interface NewOptions extends RegistryOptionValues, SettingsOptionValues {
  fromDir?: string;
  fromRelease?: string;
  fromImageStreamFile?: string;
  fromImageStream?: string;
  componentVersions?: string;
  componentVersionsDisplayNames?: string;
  releaseManifest?: boolean;
  toSignature?: string;
  signKey?: string;
  gpgSign?: string;
  signatureDir?: string;
  signIdentity?: string;
  passphraseFile?: string;
  dir?: string;
  mirror?: string;
  name?: string;
  previous: string[];
  next: string[];
  metadata?: string;
  mappingFile?: string;
  toImageBase?: string;
  toImage?: string;
  toFile?: string;
  toDir?: string;
  include: string[];
  allowMissingImages?: boolean;
  skipManifestCheck?: boolean;
  created?: string;
  exclude: string[];
  toImageBaseTag?: string;
  keepManifestList?: boolean;
  output?: string;
  referenceMode?: string;
  dryRun?: boolean;
  fullRebuild?: boolean;
  os?: boolean;
  osImage?: string;
  extensionsImage?: string;
  legacyOsImage?: string;
  osStream?: string;
  nodeImage?: boolean;
  buildId?: string;
  manifestList?: boolean;
  allowTag?: boolean;
  pins?: string;
}

/** The flags that ask --from-release for an OS swap (any one of them). */
export const OS_FLAGS = [
  'os',
  'osImage',
  'extensionsImage',
  'legacyOsImage',
  'osStream',
  'nodeImage',
  'buildId',
  'manifestList',
  'pins',
  'baseUrl',
  'channel',
  'build',
  'arch',
] as const;

/** Where `release new` writes its payload, from the options: the same for every input. */
export function publishOptions(
  o: NewOptions,
  opts: SourceOptions,
  extra: Partial<PublishOptions> = {},
): PublishOptions & { creator: string } {
  return {
    toDir: o.toDir,
    toFile: o.toFile,
    toImage: o.toImage,
    dryRun: o.dryRun,
    filterByOs: o.filterByOs,
    keepManifestList: o.keepManifestList,
    toImageBaseTag: o.toImageBaseTag,
    toSignature: o.toSignature,
    ...(o.signKey !== undefined || o.gpgSign !== undefined
      ? {
          sign: {
            sigstoreKey: o.signKey,
            gpgKeyId: o.gpgSign,
            signatureDir: o.signatureDir,
            identity: o.signIdentity,
            passphraseFile: o.passphraseFile,
          },
        }
      : {}),
    // The base is closed by the publisher; it is opened with the command's registry flags.
    open: (ref) => openImage(ref, opts),
    sourceOptions: opts,
    out: term.out,
    info: (line) => term.info(`info: ${line}`),
    creator: `osimage-release-new/${packageVersion()}`,
    ...extra,
  };
}

/** The release's name and metadata for an input that has none of its own: --name, else oc's default from the creation time. */
export function metadataFor(o: NewOptions, created: string): ReleaseMetadata {
  return releaseMetadata({
    name: o.name || defaultReleaseName(created),
    previous: o.previous,
    next: o.next,
    ...(o.metadata !== undefined ? { metadataJson: o.metadata } : {}),
  });
}

/** A repeatable flag's values, each also comma-separated (--include, --exclude), as oc's string slices take them. */
export const splitList = (values: string[]): string[] => values.flatMap((v) => v.split(',')).filter(Boolean);

/** The options of `release new`, as commander gives them: shared by its two modes (--from-dir, --from-release). */
import type { SettingsOptionValues } from './options.js';
import type { RegistryOptionValues } from './registry-options.js';

export interface NewOptions extends RegistryOptionValues, SettingsOptionValues {
  fromDir?: string;
  fromRelease?: string;
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

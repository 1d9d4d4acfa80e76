/**
 * Defaults the payload commands show in their help and the payload modules use: kept here, apart from the modules
 * that do the work, so a command's help never loads the YAML library.
 */

/** The file `payload bootimages` writes in --dir. */
export const DEFAULT_BOOTIMAGES_FILE = 'coreos-bootimages.yaml';

/**
 * How `payload merge` picks osImageURL, era by era: first-non-empty (2019-01), controller-config (2019-03 to 2022:
 * only the controller's value), last-wins (today: the last non-empty MachineConfig value).
 */
export type MergePolicy = 'first-non-empty' | 'controller-config' | 'last-wins';
export const MERGE_POLICIES: readonly MergePolicy[] = ['first-non-empty', 'controller-config', 'last-wins'];

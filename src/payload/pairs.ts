/**
 * Would the osimageurl ConfigMap and image-references ship the same OS images? oc rewrites both by text: every
 * occurrence of a tag's `from.name` in an operator's manifests becomes the release's pull spec. So each OS key of
 * the ConfigMap must hold, as text oc finds, the `from.name` of the tag it pairs with. Two ways it can fail: the
 * key holds another image than its tag (edited by hand, or a tool wrote one file only), or it holds the same
 * image folded or escaped over lines (a YAML serialiser folds long double-quoted values at 80 columns), which the
 * substitution does not see, so the release ships the placeholder.
 *
 * The check runs oc's substitution itself (given by the caller: the release room owns it) with a marker per tag,
 * and reads the ConfigMap back.
 */
import type { ImageStream } from '../oci/image-stream.js';
import { type ContainerKey, containerKeyForTag } from '../oci/os-tags.js';
import { configMapData, isOsImageUrlConfigMap, KEY_TAGS, OS_IMAGE_KEYS, OSIMAGEURL_CONFIGMAP, type OsImageKey } from './osimageurl.js';
import { parseManifestDocuments } from './text.js';

/** oc's textual substitution: every source repository (a map key) replaced by its target. */
export type Substitute = (text: string, replacements: ReadonlyMap<string, string>) => string;

export interface PairProblem {
  file: string;
  key: OsImageKey;
  value: string;
  tag: string;
  tagValue: string;
  message: string;
}

const MARK = '__osimage_pair_check_';

/** The kind of image each OS key holds, as a build's meta.json names its containers. */
const KEY_CONTAINER: Record<OsImageKey, ContainerKey> = {
  osImageURL: 'oscontainer',
  baseOSContainerImage: 'base-oscontainer',
  baseOperatingSystemContainer: 'base-oscontainer',
  baseOSExtensionsContainerImage: 'extensions-container',
  baseOperatingSystemExtensionsContainer: 'extensions-container',
};
const markOf = (i: number) => `${MARK}${i}__`;

/**
 * Problems of one manifest file (any file: only documents that are the osimageurl ConfigMap are looked at)
 * against the image-references of its operator folder.
 */
export function osImagePairProblems(
  file: string,
  text: string,
  refsFile: string,
  refs: ImageStream,
  substitute: Substitute,
): PairProblem[] {
  if (!text.includes(OSIMAGEURL_CONFIGMAP)) return [];
  let before: unknown[];
  try {
    before = parseManifestDocuments(text, file);
  } catch {
    return []; // a file that does not parse is the manifest check's to report
  }
  if (!before.some(isOsImageUrlConfigMap)) return [];
  const tags = refs.spec.tags.filter((t) => t.from?.kind === 'DockerImage' && (t.from.name ?? '') !== '');
  const replacements = new Map(tags.map((t, i) => [t.from!.name!, markOf(i)]));
  const markers = tags.map((_t, i) => markOf(i));
  const after = parseManifestDocuments(substitute(text, replacements), file);
  const problems: PairProblem[] = [];
  before.forEach((doc, d) => {
    if (!isOsImageUrlConfigMap(doc)) return;
    const was = configMapData(doc, file);
    const now = configMapData(after[d], file);
    for (const key of OS_IMAGE_KEYS) {
      const value = was[key];
      if (value === undefined || value === '') continue;
      // What oc's substitution turns into a tag's pull spec (a from.name, with or without a tag or digest after
      // it) ships that tag's image. Wrong when that is another OS key's kind of image: the extensions image as
      // the OS image, the OS image as the extensions, the ostree machine-os-content in a layered key.
      // (osImageURL may hold a layered image, as rendered MachineConfigs do since 4.12; a tag osimage does not
      // know, `rhel-coreos-next` of a test build, is not judged.)
      const became = now[key] === undefined ? -1 : markers.indexOf(now[key]!);
      if (became >= 0) {
        const holders = tags.filter((t) => t.from!.name === tags[became]!.from!.name);
        const held = holders.find((t) => containerKeyForTag(t.name) !== undefined);
        const heldKind = held ? containerKeyForTag(held.name) : undefined;
        if (!held || key === 'osImageURL' || heldKind === KEY_CONTAINER[key] || holders.some((t) => KEY_TAGS[key].includes(t.name))) {
          continue;
        }
        const paired = tags.find((t) => KEY_TAGS[key].includes(t.name));
        const want = paired
          ? `it pairs with tag ${paired.name} (${paired.from!.name})`
          : `it pairs with tag ${KEY_TAGS[key].join(' or ')}, which ${refsFile} does not have`;
        problems.push({
          file,
          key,
          value,
          tag: paired?.name ?? KEY_TAGS[key][0]!,
          tagValue: paired?.from?.name ?? '',
          message: `${file}: data.${key} is ${value}, the from.name of tag ${held.name} in ${refsFile}, but ${want}: the release would ship ${held.name}'s image as ${key}`,
        });
        continue;
      }
      const byText = tags.findIndex((t) => t.from!.name === value);
      if (byText >= 0) {
        if (now[key] === replacements.get(value)) continue;
        const tag = tags[byText]!;
        problems.push({
          file,
          key,
          value,
          tag: tag.name,
          tagValue: value,
          message: `${file}: data.${key} holds the from.name of tag ${tag.name} in ${refsFile}, but not as one piece of text (folded or escaped over lines): oc's substitution would not find it and the release would ship ${value} there; write the value on one line`,
        });
        continue;
      }
      const paired = tags.find((t) => KEY_TAGS[key].includes(t.name));
      if (!paired) continue;
      problems.push({
        file,
        key,
        value,
        tag: paired.name,
        tagValue: paired.from!.name!,
        message: `${file}: data.${key} is ${value}, but tag ${paired.name} in ${refsFile} is ${paired.from!.name}: oc substitutes both by text, so the release would ship two different OS images; make them equal (osimage payload write does)`,
      });
    }
  });
  return problems;
}

/**
 * `release info` views, laid out the way `oc adm release info` lays them out (Go's tabwriter: a column is as
 * wide as its widest cell in a run of consecutive lines that have it, plus one space).
 */
import { createdString, type ReleaseInfo } from '../release/info.js';
import { digestOf } from '../oci/digest.js';
import { dockerImage } from '../oci/image-stream.js';
import { ANNOTATION_COMMIT, ANNOTATION_SOURCE_LOCATION, sortSemver, streamVersionList, versionLabel } from '../release/references.js';
import { escapeControls } from './escape.js';
import { goPrint } from '../golang/fmt.js';

/**
 * Go text/tabwriter with minwidth 0, padding 1, pad char ' ', no flags. Cells come from the image (tags,
 * annotations, metadata): their control characters are escaped before they are measured.
 */
export function tabwrite(text: string, padding = 1): string {
  const lines = text.split('\n').map((l) => l.split('\t').map(escapeControls));
  const out: string[] = new Array<string>(lines.length);
  const widths: number[] = [];
  const width = (s: string) => [...s].length;
  const writeLines = (from: number, to: number) => {
    for (let j = from; j < to; j++) {
      out[j] = lines[j]!.map((cell, k) => (k < widths.length ? cell + ' '.repeat(Math.max(0, widths[k]! - width(cell))) : cell)).join('');
    }
  };
  const format = (line0: number, line1: number) => {
    const column = widths.length;
    for (let i = line0; i < line1; i++) {
      if (column >= lines[i]!.length - 1) continue;
      writeLines(line0, i);
      line0 = i;
      let w = 0;
      for (; i < line1; i++) {
        const line = lines[i]!;
        if (column >= line.length - 1) break;
        w = Math.max(w, width(line[column]!) + padding);
      }
      widths.push(w);
      format(line0, i);
      widths.pop();
      line0 = i;
    }
    writeLines(line0, line1);
  };
  format(0, lines.length);
  return out.join('\n');
}

function isEmptyValue(v: unknown): boolean {
  if (typeof v === 'string' || Array.isArray(v)) return v.length === 0;
  if (v && typeof v === 'object') return Object.keys(v).length === 0;
  return false;
}

export type ImagesView = 'digest' | 'pullspecs' | 'commits' | 'commit-urls';

function githubCommitUrl(location: string, commit: string): string {
  try {
    const u = new URL(location);
    if (u.host === 'github.com') return `https://github.com${u.pathname.replace(/\.git$/, '')}/commit/${commit}`;
  } catch {
    // not a URL: fall through
  }
  return `${location} ${commit}`;
}

/**
 * The default summary (and the --pullspecs / --commits / --commit-urls variants of its Images table);
 * `imagesSection` stands in for the Images table when a view brings its own (--size: output/info-size-view.ts).
 */
export function renderInfo(r: ReleaseInfo, view: ImagesView = 'digest', imagesSection?: string): string {
  let t = '';
  const name = r.metadata ? r.metadata.version : (r.references.metadata.name ?? '');
  t += `Name:\t${name}\n`;
  t += `Digest:\t${r.listDigest ?? r.digest}\n`;
  t += `Created:\t${createdString(r.config.created)}\n`;
  t += `OS/Arch:\t${r.platform}\n`;
  t += `Manifests:\t${r.manifests.length}\n`;
  if (r.metadataFiles.length > 0) t += `Metadata files:\t${r.metadataFiles.length}\n`;
  t += '\n';
  t += `Pull From:\t${r.pullFrom}\n`;
  if (r.metadata) {
    const m = r.metadata;
    t += '\nRelease Metadata:\n';
    t += `  Version:\t${m.version}\n`;
    const prev = m.previous ?? [];
    t += `  Upgrades:\t${prev.length > 0 ? sortSemver(prev).join(', ') : '<none>'}\n`;
    const md = m.metadata ?? {};
    const keys = Object.keys(md)
      .filter((k) => !isEmptyValue(md[k]))
      .sort();
    t += tabwrite(`  Metadata:\n${keys.map((k) => `    ${k}:\t${goPrint(md[k])}\n`).join('')}`);
  }
  const versions = streamVersionList(r.componentVersions, r.streamVersions);
  if (versions.length > 0) {
    t += '\nComponent Versions:\n';
    for (const v of versions) t += `  ${versionLabel(v.component, v.stream)}\t${v.version}\t${v.displayName}\n`;
  }
  const tags = (r.references.spec.tags ?? []).filter((tag) => dockerImage(tag));
  let images = '\nImages:\n';
  switch (view) {
    case 'pullspecs':
      images += '  NAME\tPULL SPEC\n';
      for (const tag of tags) images += `  ${tag.name}\t${dockerImage(tag)}\n`;
      break;
    case 'commits':
      images += '  NAME\tREPO\tCOMMIT\t\n';
      for (const tag of tags)
        images += `  ${tag.name}\t${tag.annotations?.[ANNOTATION_SOURCE_LOCATION] ?? ''}\t${tag.annotations?.[ANNOTATION_COMMIT] ?? ''}\n`;
      break;
    case 'commit-urls':
      images += '  NAME\tURL\t\n';
      for (const tag of tags) {
        const loc = tag.annotations?.[ANNOTATION_SOURCE_LOCATION] ?? '';
        images += `  ${tag.name}\t${githubCommitUrl(loc, tag.annotations?.[ANNOTATION_COMMIT] ?? '')}\n`;
      }
      break;
    default:
      images += '  NAME\tDIGEST\n';
      for (const tag of tags) {
        const pull = dockerImage(tag)!;
        images += `  ${tag.name}\t${digestOf(pull) ?? pull}\n`;
      }
  }
  t += tabwrite(imagesSection ?? images);
  if (r.warnings.length > 0) t += tabwrite(`\nWarnings:\n${r.warnings.map((w) => `* ${w}\n`).join('')}`);
  t += '\n';
  return tabwrite(t);
}

/** `-o name|pullspec|digest`: one value a line; digest-less pullspecs become errors for stderr. */
export function renderList(r: ReleaseInfo, mode: 'name' | 'pullspec' | 'digest'): { out: string; errors: string[] } {
  const tags = r.references.spec.tags ?? [];
  const lines: string[] = [];
  const errors: string[] = [];
  for (const tag of tags) {
    if (mode === 'name') {
      lines.push(tag.name);
      continue;
    }
    const pull = dockerImage(tag);
    if (!pull) continue;
    if (mode === 'pullspec') lines.push(pull);
    else {
      const d = digestOf(pull);
      if (d) lines.push(d);
      else errors.push(`${tag.name} does not point to a digest`);
    }
  }
  return { out: lines.map((l) => `${l}\n`).join(''), errors };
}

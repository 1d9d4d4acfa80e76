import type { BuildList } from '../rhcos/builds.js';
import type { Settings } from '../rhcos/settings.js';
import { keyValues, table } from './format.js';

/** What `builds` shows: the channel's list and the build the settings resolve to (or why none). */
export interface BuildsView {
  list: BuildList;
  settings: Settings;
  resolved: string | null;
  problem: string | null;
}

/** The documented `builds -o json` object. */
export function buildsJson(v: BuildsView) {
  return {
    buildsURL: v.list.url,
    schemaVersion: v.list.schemaVersion,
    timestamp: v.list.timestamp ?? null,
    arch: v.settings.arch,
    pinned: v.settings.build || null,
    resolved: v.resolved,
    error: v.problem,
    builds: v.list.builds.map((b) => (b.arches ? { id: b.id, arches: b.arches } : { id: b.id })),
  };
}

/** The text view: a header, then the builds newest first with `*` at the one the settings resolve to. */
export function renderBuilds(v: BuildsView): string {
  const { list, settings, resolved } = v;
  const head = keyValues([
    ['builds.json', list.url],
    ['Schema', list.schemaVersion],
    ['Timestamp', list.timestamp ?? '(none)'],
    ['Resolves to', resolved ? `${resolved} (${settings.build ? 'pinned' : `newest for ${settings.arch}`})` : '(nothing)'],
  ]);
  const rows = list.builds.map((b) => [b.id === resolved ? '*' : ' ', b.id, b.arches ? b.arches.join(',') : '']);
  return `${head}\n\n${table([[' ', 'BUILD', list.layout === 'v1' ? 'ARCHES' : ''], ...rows])}`;
}

import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import { OsimageError, type Warning } from '../errors.js';
import { resolveBuild, type ResolvedBuild } from '../rhcos/resolve.js';
import { PIN_VARS, pinNames, type SettingsFlags } from '../rhcos/settings.js';
import { GitError, TestFailedError } from './errors.js';
import { commitFiles, repoRoot, uncommitted } from './git.js';
import { acquireLock } from './lock.js';
import { editTarget } from '../files/edit.js';
import { readTextIfExists } from '../files/read.js';
import { realPathOf } from '../files/real-path.js';
import { applyPlan, credentialsNotWritten, layerSettings, pinValuesOf, pinsOfText, planFor } from './plan.js';
import type { PinValues } from './script.js';
import { redactUrl } from '../http/redact.js';

/** Runs the test command; returns how it ended. Output handling is the caller's business. */
export type TestRunner = (
  command: string,
  env: Record<string, string>,
) => Promise<{ exitCode: number | undefined; signal: string | undefined }>;

export interface PromoteRequest {
  file: string;
  meta?: string | undefined;
  /** --base-url, --channel, --arch, --os-stream (no --build: promote always tries the newest build). */
  flags: Omit<SettingsFlags, 'build'>;
  env: NodeJS.ProcessEnv;
  test: string;
  commit: boolean;
  runTest: TestRunner;
  /** Progress for the user (the command prints it on stderr). */
  onProgress?: (message: string) => void;
}

export type PromoteResult =
  | { status: 'already-pinned'; file: string; build: string; resolved: ResolvedBuild; warnings: Warning[] }
  | {
      status: 'promoted';
      file: string;
      from: string | undefined;
      to: string;
      values: PinValues;
      written: string[];
      commit: string | undefined;
      resolved: ResolvedBuild;
      warnings: Warning[];
    };

/** The environment the test gets: ours, with the three pins (of the OS stream, when given) set to the candidate. */
export function candidateEnv(values: PinValues, stream?: string): Record<string, string> {
  const names = pinNames(stream);
  return Object.fromEntries(PIN_VARS.map((role) => [names[role], values[role]]));
}

/** `path` made absolute through its folder's real path; the name itself is kept (a symlink stays the link). */
async function absolute(path: string): Promise<string> {
  const abs = resolvePath(path);
  try {
    return join(await realpath(dirname(abs)), basename(abs));
  } catch {
    return abs;
  }
}

/**
 * Promote the newest build into FILE only if a test passes. Under FILE.lock: read the current pins,
 * (with --commit) refuse uncommitted changes to the files, resolve the newest build; if it is already
 * pinned, stop. Otherwise prepare the edits (so an unsafe value fails before the test), run the test
 * with RHCOS_* set to the candidate, and only when it exits 0 write the files (all or nothing) and commit.
 */
export async function promote(req: PromoteRequest): Promise<PromoteResult> {
  const file = await absolute(req.file);
  const meta = req.meta === undefined ? undefined : await absolute(req.meta);
  if (meta !== undefined && (meta === file || (await realPathOf(meta)) === (await realPathOf(file)))) {
    throw new OsimageError(`--meta and --write name the same file: ${req.file}`);
  }
  const progress = req.onProgress ?? (() => undefined);
  const release = await acquireLock(file);
  try {
    const before = await readTextIfExists(file);
    const stream = req.flags.osStream;
    const { pins, warnings } = pinsOfText(before, req.file, stream);
    const metaBefore = meta === undefined ? undefined : await readTextIfExists(meta);

    let root: string | undefined;
    const files = meta === undefined ? [file] : [file, meta];
    if (req.commit) {
      root = await repoRoot(file);
      const dirty = await uncommitted(root, files);
      if (dirty.length > 0) {
        throw new GitError(
          `refusing to promote with --commit: uncommitted changes to ${dirty.map((l) => l.slice(3)).join(', ')} (commit or stash them first)`,
        );
      }
    }

    const layered = layerSettings(req.flags, req.env, pins, req.file, { latest: true });
    const resolved = await resolveBuild(layered.settings);
    const values = pinValuesOf(resolved);
    const allWarnings = [
      ...warnings,
      ...layered.notes.filter((n) => n.code !== 'latest-ignores-env'),
      ...resolved.warnings,
      ...credentialsNotWritten(resolved.baseUrl, file),
    ];
    const from = pins.RHCOS_BUILD_NAME?.value || undefined;
    const planned = await planFor(file, meta, resolved, before, stream);
    if (PIN_VARS.every((v) => pins[v]?.value === values[v])) {
      if (planned.meta?.changed) {
        allWarnings.push({
          code: 'meta-snapshot-stale',
          message: `${req.meta} is ${planned.meta.before === undefined ? 'missing' : `not the snapshot of ${resolved.build}'s meta.json`}; refresh it with: osimage pin${stream ? ` --os-stream ${stream}` : ''} --write ${req.file} --meta ${req.meta}`,
        });
      }
      return { status: 'already-pinned', file: req.file, build: resolved.build, resolved, warnings: allWarnings };
    }

    // Refuse a read-only file before the test runs rather than after.
    await Promise.all(files.map((f) => editTarget(f)));
    progress(`testing ${resolved.build} (${from ? `pinned: ${from}` : 'nothing pinned yet'}): ${req.test}`);
    const r = await req.runTest(req.test, candidateEnv(values, stream));
    if (r.exitCode !== 0) {
      const how = r.signal ? `was killed by ${r.signal}` : `exited with code ${r.exitCode ?? 'unknown'}`;
      throw new TestFailedError(
        `test command ${JSON.stringify(req.test)} ${how} for candidate ${resolved.build}; not promoted, ${req.file}${req.meta ? ` and ${req.meta}` : ''} left untouched`,
        r.exitCode,
        r.signal,
      );
    }

    // The lock keeps other promotions out, not editors: make sure nobody changed the files meanwhile.
    if ((await readTextIfExists(file)) !== before || (meta !== undefined && (await readTextIfExists(meta)) !== metaBefore)) {
      throw new OsimageError(
        `${req.file}${req.meta ? ` or ${req.meta}` : ''} changed while the test ran; not promoted (run promote again)`,
      );
    }
    const written = await applyPlan({ script: { ...planned.script, path: file }, meta: planned.meta && { ...planned.meta, path: meta! } });

    let commit: string | undefined;
    if (req.commit && root !== undefined && written.length > 0) {
      const what = stream ? `RHCOS ${stream} build` : 'RHCOS build';
      const subject = from ? `Promote ${what} ${resolved.build} (was ${from})` : `Pin ${what} ${resolved.build} (nothing was pinned)`;
      const body = [
        `${from ? `Old build: ${from}\n` : ''}New build: ${resolved.build}`,
        ...(stream ? [`OS stream: ${stream} (${pinNames(stream).RHCOS_BUILD_NAME})`] : []),
        `Channel: ${resolved.channel}`,
        `Base URL: ${redactUrl(resolved.baseUrl)}`,
        `Tested with: ${req.test}`,
        '',
        'Promoted by osimage promote.',
      ].join('\n');
      commit = await commitFiles(root, written, `${subject}\n\n${body}\n`);
    }
    return { status: 'promoted', file: req.file, from, to: resolved.build, values, written, commit, resolved, warnings: allWarnings };
  } finally {
    await release();
  }
}

/**
 * The documented `-o json` objects of pin, pin --check and promote (docs/pins.md). Every key is always present;
 * a value that is not known (or does not apply) is null, a list with nothing in it is []. URLs are redacted.
 */
import type { Warning } from '../errors.js';
import type { CheckReport } from '../pin/check.js';
import type { PinPlan } from '../pin/plan.js';
import type { PromoteResult } from '../pin/promote.js';
import { redactUrl } from '../http/redact.js';
import { planDiff } from './pin-view.js';
import { warningsJson, type WarningJson } from './warnings-json.js';

export interface PinFileJson {
  path: string;
  /** The file did not exist before (it is, or would be, created). */
  created: boolean;
  changed: boolean;
}

export interface PinJson {
  file: string;
  osStream: string | null;
  build: string;
  channel: string;
  baseUrl: string;
  /** Where the build came from: flag, env, file, default or newest. */
  buildFrom: string;
  previousBuild: string | null;
  dryRun: boolean;
  /** Some file changes (or, with dryRun, would change). */
  changed: boolean;
  script: PinFileJson & { edited: string[]; added: string[] };
  meta: PinFileJson | null;
  /** The files written ([] on a dry run or when nothing changed). */
  written: string[];
  /** The unified diff of the changes ('' when nothing changes), as --dry-run prints it in text. */
  diff: string;
  warnings: WarningJson[];
}

/** `pin -o json`: what was pinned (with dryRun, what would be), and which files changed. */
export function pinJson(plan: PinPlan, written: string[] | undefined): PinJson {
  const file = (c: { path: string; before: string | undefined; changed: boolean }): PinFileJson => ({
    path: c.path,
    created: c.before === undefined,
    changed: c.changed,
  });
  return {
    file: plan.file,
    osStream: plan.stream ?? null,
    build: plan.values.RHCOS_BUILD_NAME,
    channel: plan.values.RHCOS_DEFAULT_CHANNEL,
    baseUrl: redactUrl(plan.values.RHCOS_BASE_URL),
    buildFrom: plan.from.build,
    previousBuild: plan.previous.RHCOS_BUILD_NAME?.value || null,
    dryRun: written === undefined,
    changed: plan.script.changed || (plan.meta?.changed ?? false),
    script: { ...file(plan.script), edited: [...plan.script.edited], added: [...plan.script.added] },
    meta: plan.meta ? file(plan.meta) : null,
    written: written ?? [],
    diff: planDiff(plan),
    warnings: warningsJson(plan.warnings),
  };
}

export interface CheckJson {
  ok: boolean;
  file: string;
  osStream: string | null;
  build: string | null;
  channel: string | null;
  arch: string | null;
  /** The pinned base URL. */
  baseUrl: string | null;
  /** Where builds.json and meta.json were read (the pin, or --base-url). */
  checkedAt: string | null;
  buildsUrl: string | null;
  meta: string | null;
  /** Pin variables FILE leaves to their default, by their default names. */
  defaulted: string[];
  warnings: WarningJson[];
  /** Why the check failed: `reason` is one of PinCheckError's (build-gone, meta-changed, …). */
  error: { reason: string; message: string } | null;
}

/** `pin --check -o json` of a check that passed. */
export function checkJson(r: CheckReport): CheckJson {
  return {
    ok: true,
    file: r.file,
    osStream: r.stream ?? null,
    build: r.build,
    channel: r.channel,
    arch: r.arch,
    baseUrl: redactUrl(r.baseUrl),
    checkedAt: redactUrl(r.fetchedFrom),
    buildsUrl: r.buildsUrl,
    meta: r.meta ?? null,
    defaulted: [...r.defaulted],
    warnings: warningsJson(r.warnings),
    error: null,
  };
}

/** `pin --check -o json` of a check that failed: what the request named, the warnings so far, and the reason. */
export function checkFailedJson(
  req: { file: string; meta: string | undefined; osStream: string | undefined },
  warnings: readonly Warning[],
  error: { reason: string; message: string; defaulted?: readonly string[] },
): CheckJson {
  return {
    ok: false,
    file: req.file,
    osStream: req.osStream ?? null,
    build: null,
    channel: null,
    arch: null,
    baseUrl: null,
    checkedAt: null,
    buildsUrl: null,
    meta: req.meta ?? null,
    defaulted: [...(error.defaulted ?? [])],
    warnings: warningsJson(warnings),
    error: { reason: error.reason, message: error.message },
  };
}

export interface PromoteJson {
  /** promoted, or already-pinned (nothing tested, nothing written). */
  status: PromoteResult['status'];
  file: string;
  osStream: string | null;
  /** The newest build: promoted, or already pinned. */
  build: string;
  previousBuild: string | null;
  channel: string;
  baseUrl: string;
  meta: string | null;
  /** The files written, as absolute paths ([] when already pinned). */
  written: string[];
  /** The git commit made by --commit, else null. */
  commit: string | null;
  warnings: WarningJson[];
}

/** `promote -o json`. */
export function promoteJson(r: PromoteResult, meta: string | undefined, osStream: string | undefined): PromoteJson {
  const promoted = r.status === 'promoted';
  return {
    status: r.status,
    file: r.file,
    osStream: osStream ?? null,
    build: r.resolved.build,
    previousBuild: promoted ? (r.from ?? null) : r.build,
    channel: r.resolved.channel,
    baseUrl: redactUrl(r.resolved.baseUrl),
    meta: meta ?? null,
    written: promoted ? [...r.written] : [],
    commit: promoted ? (r.commit ?? null) : null,
    warnings: warningsJson(r.warnings),
  };
}

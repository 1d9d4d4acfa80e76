/** Types for lib.mjs. */
export type Stream = 'stdout' | 'stderr' | 'exitCode' | 'files';
export type Expect = 'identical' | 'documented' | 'oc-quirk';

export interface Pair {
  name: string;
  /** The words after `oc adm release` / `osimage release`, with {{…}} placeholders. */
  args: string[];
  expect: Expect;
  reason?: string;
  /** documented / oc-quirk: what stays equal to oc's. */
  same?: Stream[];
  setup?: 'existing' | 'icsp' | 'idms' | 'info-icsp' | 'info-idms' | 'info-file-dir' | 'info-clones';
  snapshot?: string;
  /** More of each file: its mtime, an archive's entries instead of its bytes, text even with NUL bytes. */
  snapshotWith?: Array<'mtime' | 'archives' | 'nul'>;
  mask?: string[];
  strip?: string[];
  json?: 'subset';
  detail?: boolean;
  ignore?: string[];
  /** The registry {{REGISTRY}} is (access.mjs); default open. */
  registry?: 'open' | 'htpasswd' | 'tls';
  /** Variables for both tools (null unsets one); the pair then runs with credentials of its own (access.mjs). */
  env?: Record<string, string | null>;
  /** Files written under {{DIR}} before the run, by relative path. */
  files?: Record<string, string>;
}

export interface FileEntry {
  name: string;
  mode: string;
  text?: string;
  sha256?: string;
  type?: string;
  mtime?: string;
  /** An archive's entries (snapshotWith: archives). */
  entries?: Array<Record<string, unknown>>;
}

export interface Result {
  stdout: string;
  stderr: string;
  exitCode: number;
  files?: FileEntry[] | null;
}

export interface Recorded extends Result {
  name: string;
  command: string[];
}

export interface Environment {
  registry: string;
  closed: string;
  digests: Record<string, string>;
  /** The digests of the releases built for this run (images.mjs buildRunSet). */
  runDigests: Record<string, string>;
  /** The infoflag- pairs' inputs (info-images.mjs): the fixed set and the run's changelog repositories (none without pairs). */
  info: unknown;
  dir: string;
  /** The htpasswd and tls registries (access.mjs), started when a pair first names one. */
  access?: { view(pair: Pair, env: Environment): Promise<Environment>; stop(): Promise<void> };
  /** With registry: tls, the CA certificate ({{CA}}). */
  ca?: string;
  stop(): Promise<void>;
}

export declare const REPO: string;
export declare const PAIRS_FILE: string;
export declare const FIXTURES: string;
export declare const STREAMS: Stream[];
export declare function loadPairs(file?: string): Promise<Pair[]>;
/** `pairs: false`: only the image set and the run set (no infoflag- images, no stored `release new` outputs). */
export declare function startEnvironment(opts?: { pairs?: boolean }): Promise<Environment>;
export declare function expand(arg: string, env: Environment, pairDir: string): string;
export declare function template(
  text: string,
  env: Environment,
  pairDir: string,
  opts?: { mask?: string[]; strip?: string[] },
  extra?: Record<string, string>,
): string;
/** The pair's variables for the tool: a value sets one, undefined unsets it (access.mjs). */
export type PairVariables = Record<string, string | undefined>;
export declare function runPair(
  pair: Pair,
  env: Environment,
  run: (args: string[], pairDir: string, vars: PairVariables) => Promise<{ stdout: string; stderr: string; exitCode: number }>,
  extra?: Record<string, string>,
): Promise<Result>;
export declare function jsonSubsetEqual(ocOut: string, ourOut: string, ignore?: string[]): boolean;
export declare function addsDetailOnly(ocText: string, ourText: string): boolean;
export declare function differences(oc: Result, ours: Result, pair?: Partial<Pair>): Stream[];
export declare function classify(pair: Pair, oc: Result, ours: Result): { cls: Expect | 'wrong'; diff: Stream[] };
export declare function fixtureFile(name: string): string;
export declare function readFixture(name: string): Promise<Recorded>;
export declare function osimageEnv(): NodeJS.ProcessEnv;

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
  setup?: 'existing';
  snapshot?: string;
  mask?: string[];
  strip?: string[];
  json?: 'subset';
  detail?: boolean;
  ignore?: string[];
}

export interface FileEntry {
  name: string;
  mode: string;
  text?: string;
  sha256?: string;
  type?: string;
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
  dir: string;
  stop(): Promise<void>;
}

export declare const REPO: string;
export declare const PAIRS_FILE: string;
export declare const FIXTURES: string;
export declare const STREAMS: Stream[];
export declare function loadPairs(file?: string): Promise<Pair[]>;
export declare function startEnvironment(): Promise<Environment>;
export declare function expand(arg: string, env: Environment, pairDir: string): string;
export declare function template(
  text: string,
  env: Environment,
  pairDir: string,
  opts?: { mask?: string[]; strip?: string[] },
  extra?: Record<string, string>,
): string;
export declare function runPair(
  pair: Pair,
  env: Environment,
  run: (args: string[]) => Promise<{ stdout: string; stderr: string; exitCode: number }>,
  extra?: Record<string, string>,
): Promise<Result>;
export declare function jsonSubsetEqual(ocOut: string, ourOut: string, ignore?: string[]): boolean;
export declare function addsDetailOnly(ocText: string, ourText: string): boolean;
export declare function differences(oc: Result, ours: Result, pair?: Partial<Pair>): Stream[];
export declare function classify(pair: Pair, oc: Result, ours: Result): { cls: Expect | 'wrong'; diff: Stream[] };
export declare function fixtureFile(name: string): string;
export declare function readFixture(name: string): Promise<Recorded>;
export declare function osimageEnv(): NodeJS.ProcessEnv;

/** Types for lib.mjs. */
export declare const REPO: string;
export declare const CASES_FILE: string;
export declare const FIXTURES: string;
export declare const IMAGES_FILE: string;
export declare const INPUT_DIR: string;
export declare const ART_REPO: string;
export declare const RELEASE_REPO: string;
export declare const RELEASE_CREATED: string;

export interface Case {
  name: string;
  about?: string;
  /** The words after `oc adm release` / `osimage release`, with {{…}} placeholders. */
  args: string[];
  snapshot?: string;
  image?: string;
  files?: Record<string, string>;
  mask?: string[];
}

export interface FileEntry {
  name: string;
  mode: string;
  text?: string;
  sha256?: string;
  mtime?: string;
  type?: string;
}

export interface TarEntry {
  name: string;
  type: string;
  mode: string;
  mtime: string | null;
  size: number;
  text?: string;
  sha256?: string;
}

export interface ImageSnapshot {
  manifest: { mediaType: string; configMediaType: string; layers: Array<{ mediaType: string; digest: string }> };
  config: Record<string, unknown>;
  releaseLayer: TarEntry[];
}

export interface Result {
  stdout: string;
  stderr: string;
  exitCode: number;
  files?: FileEntry[] | null;
  image?: ImageSnapshot | null;
}

export interface Recorded extends Result {
  name: string;
  about?: string;
  command: string[];
}

export interface ImageSet {
  images: Array<{ name: string; repo: string; tag: string; digest: string }>;
  blob(digest: string): Buffer;
  digestOf(name: string): string;
  image(name: string): { name: string; repo: string; tag: string; digest: string } | undefined;
}

export interface Environment {
  /** 127.0.0.1:PORT */
  registry: string;
  /** Where the case folders go. */
  dir: string;
  digests: Record<string, string>;
  releaseDigests: Record<string, string>;
}

export type Runner = (args: string[]) => Promise<{ stdout: string; stderr: string; exitCode: number }>;

export declare function loadImageSet(file?: string): Promise<ImageSet>;
export declare function pushAll(
  registry: string,
  set: ImageSet,
): Promise<{ digests: Record<string, string>; releaseDigests: Record<string, string> }>;
export declare function loadCases(file?: string): Promise<Case[]>;
export declare function expand(text: string, env: Environment, dir: string): string;
export declare function runCase(c: Case, env: Environment, run: Runner): Promise<Result>;
export declare function caseFolders(): Promise<{ dir: string; stop(): Promise<void> }>;
export declare function fixtureFile(name: string): string;

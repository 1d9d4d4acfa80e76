/** Types for access.mjs. */
import type { Environment, Pair, PairVariables } from './lib.mjs';

export declare const USER: string;
export declare const PASSWORD: string;
export declare const BASIC: string;
export declare const NEW_RELEASES_FILE: string;
export declare const MODES: Array<'open' | 'htpasswd' | 'tls'>;
export declare const NEW_RELEASES: Record<string, 'oc' | 'osimage'>;

export declare function accessRegistries(
  dir: string,
  set: unknown,
): { view(pair: Pair, env: Environment): Promise<Environment>; stop(): Promise<void> };
export declare function accessProblem(pair: Partial<Pair>): string | undefined;
export declare function isolated(pair: Partial<Pair>): boolean;
export declare function expandAccess(text: string, env: Partial<Environment>): string;
export declare function pairVariables(pair: Partial<Pair>, pairDir: string, expand: (text: string) => string): Promise<PairVariables>;
export declare function withVariables(base: NodeJS.ProcessEnv, vars: PairVariables): NodeJS.ProcessEnv;
export declare function pushNewReleases(host: string): Promise<Record<string, string>>;
export declare function recordNewReleases(
  host: string,
  run: (tool: 'oc' | 'osimage', args: string[]) => Promise<{ stdout: string; stderr: string; exitCode: number }>,
): Promise<void>;

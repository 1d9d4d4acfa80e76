/** Types for registry-server.mjs. */
export declare const REGISTRY_BIN: string;

export declare function freePort(): Promise<number>;

/** HTTPS: the server's certificate and key files (PEM). */
export interface RegistryTls {
  certFile: string;
  keyFile: string;
}

export interface RegistryConfigInput {
  port: number;
  dataDir: string;
  /** YAML lines for the `auth:` section (empty: no auth). */
  auth?: string;
  logLevel?: 'error' | 'warn' | 'info' | 'debug';
  tls?: RegistryTls;
}

export declare function registryConfigYaml(opts: RegistryConfigInput): string;

/** The `auth:` section for Basic auth with these users ({name: password}), its htpasswd file written into dir. */
export declare function htpasswdAuth(dir: string, users: Record<string, string>): Promise<string>;

export interface StartRegistryServerOptions {
  /** Folder for config.yml and registry.log (and data/ unless dataDir is given). */
  dir: string;
  dataDir?: string;
  auth?: string;
  logLevel?: 'error' | 'warn' | 'info' | 'debug';
  tls?: RegistryTls;
}

export interface RegistryServer {
  /** `http://127.0.0.1:PORT` (`https://` with tls) */
  url: string;
  /** `127.0.0.1:PORT` */
  host: string;
  port: number;
  pid: number | undefined;
  dataDir: string;
  logs(): Promise<string>;
  /** End the registry process (the caller removes its folder). */
  stop(): Promise<void>;
}

export declare function startRegistryServer(opts: StartRegistryServerOptions): Promise<RegistryServer>;

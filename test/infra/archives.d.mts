/** Types for archives.mjs. */
export interface TarEntry {
  name: string;
  type: string;
  mode: string;
  size: number;
  mtime: string | null;
  linkname?: string;
  data: Buffer;
}

export interface ZipEntry {
  name: string;
  mode: string;
  size: number;
  mtime: string;
  data: Buffer;
}

export declare function tarGzEntries(bytes: Buffer): Promise<TarEntry[]>;
export declare function zipEntries(bytes: Buffer): ZipEntry[];

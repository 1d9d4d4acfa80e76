/** Types for tls.mjs. */
export interface TestCertificateAuthority {
  /** The CA certificate clients are given (`--certificate-authority`). */
  caFile: string;
  /** The server's certificate (signed by the CA, for 127.0.0.1 and localhost) and key. */
  certFile: string;
  keyFile: string;
}

export declare function testCertificateAuthority(dir: string, opts?: { subject?: string }): Promise<TestCertificateAuthority>;

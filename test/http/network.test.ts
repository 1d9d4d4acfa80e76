import { describe, expect, it } from 'vitest';
import { goRequestText, networkFailure } from '../../src/http/network.js';

const sock = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(`${code} from node`), { code }, extra);
const failed = (cause: Error) => Object.assign(new Error('request failed'), { cause });

/** Go's net/http words for a request that got no answer, as oc 4.13 prints them after `unable to read image REF: `. */
describe('goRequestText', () => {
  it.each([
    // oc adm release info 127.0.0.1:1/foo:bar
    [
      sock('ECONNREFUSED', { address: '127.0.0.1', port: 1 }),
      'https://127.0.0.1:1/v2/',
      'Get "https://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused',
    ],
    [
      sock('ECONNREFUSED', { address: '::1', port: 5000 }),
      'https://localhost:5000/v2/',
      'Get "https://localhost:5000/v2/": dial tcp [::1]:5000: connect: connection refused',
    ],
    [sock('UND_ERR_CONNECT_TIMEOUT'), 'https://10.0.0.1/v2/', 'Get "https://10.0.0.1/v2/": dial tcp 10.0.0.1:443: i/o timeout'],
    [
      sock('ETIMEDOUT', { address: '10.0.0.1', port: 5000 }),
      'http://10.0.0.1:5000/v2/',
      'Get "http://10.0.0.1:5000/v2/": dial tcp 10.0.0.1:5000: i/o timeout',
    ],
    // oc adm release info 127.0.0.1:PORT/ocp/release:4.16 against a self-signed https server
    [sock('DEPTH_ZERO_SELF_SIGNED_CERT'), 'https://h/v2/', 'Get "https://h/v2/": x509: certificate signed by unknown authority'],
    [sock('SELF_SIGNED_CERT_IN_CHAIN'), 'https://h/v2/', 'Get "https://h/v2/": x509: certificate signed by unknown authority'],
    // oc adm release info 127.0.0.1:5077/foo:bar against a plain-HTTP registry
    [
      sock('ERR_SSL_WRONG_VERSION_NUMBER'),
      'https://127.0.0.1:5077/v2/',
      'Get "https://127.0.0.1:5077/v2/": http: server gave HTTP response to HTTPS client',
    ],
    [sock('CERT_HAS_EXPIRED'), 'https://h/v2/', 'Get "https://h/v2/": CERT_HAS_EXPIRED from node'],
  ])('%s', (cause, url, text) => {
    expect(goRequestText(failed(cause), url)).toBe(text);
    // The kind the hints read is the same failure.
    expect(networkFailure(failed(cause))).toBeDefined();
  });

  it('no such host: Go names the resolver when it has one', () => {
    // oc adm release info nosuchhost.invalid/foo:bar →
    //   Get "https://nosuchhost.invalid/v2/": dial tcp: lookup nosuchhost.invalid on 10.255.255.53:53: no such host
    const text = goRequestText(failed(sock('ENOTFOUND', { hostname: 'nosuchhost.invalid' })), 'https://nosuchhost.invalid/v2/');
    expect(text).toMatch(/^Get "https:\/\/nosuchhost\.invalid\/v2\/": dial tcp: lookup nosuchhost\.invalid( on \S+:53)?: no such host$/);
  });

  it('HEAD is Head, as Go prints the method', () => {
    expect(goRequestText(sock('ECONNRESET'), 'https://h/v2/', 'HEAD')).toBe('Head "https://h/v2/": read: connection reset by peer');
  });
});

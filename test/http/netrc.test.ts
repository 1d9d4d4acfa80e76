/** Release-browser credentials from a netrc file, so that pins and `-o env` never need to carry them. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNetrc } from '../../src/http/netrc.js';
import { osimage } from '../helpers/cli.js';
import { serveFolder, type FileServer } from '../helpers/file-server.js';

describe('parseNetrc', () => {
  it('reads machine and default entries, quoted tokens, and skips comments, account and macdef', () => {
    const text = [
      '# a comment line: machine evil login x password y',
      'machine Builds.Example login bob password "p w\\"d"',
      'machine other.example login amy',
      'macdef init',
      'machine hidden login h password h',
      '',
      'machine acct.example login al account acc password pa',
      'default login anon password anon-pw',
    ].join('\n');
    const m = parseNetrc(text);
    expect(m.get('builds.example')).toEqual({ username: 'bob', password: 'p w"d' });
    expect(m.get('other.example')).toEqual({ username: 'amy', password: '' });
    expect(m.get('acct.example')).toEqual({ username: 'al', password: 'pa' });
    expect(m.get('')).toEqual({ username: 'anon', password: 'anon-pw' });
    expect(m.has('hidden')).toBe(false);
    expect(m.has('evil')).toBe(false);
  });

  it('a # token starts a comment anywhere on a line; a CRLF macdef ends at its blank line', () => {
    const m = parseNetrc(
      'machine a.example login u password p # old: password hunter2\r\n  # machine old login x password y\r\nmacdef m\r\nget x\r\n\r\nmachine b.example login v password q\r\n',
    );
    expect(m.get('a.example')).toEqual({ username: 'u', password: 'p' });
    expect(m.has('old')).toBe(false);
    expect(m.get('b.example')).toEqual({ username: 'v', password: 'q' });
  });

  it('the first entry for a host wins; tokens may share a line or span several', () => {
    const m = parseNetrc('machine h\n  login a\n  password b\nmachine h login c password d');
    expect(m.get('h')).toEqual({ username: 'a', password: 'b' });
  });
});

describe('a release browser that wants Basic auth', () => {
  const FIXTURES = fileURLToPath(new URL('../fixtures/browser', import.meta.url));
  const basic = `Basic ${Buffer.from('bob:s3cret').toString('base64')}`;
  let server: FileServer;
  let netrc: string;
  beforeAll(async () => {
    server = await serveFolder(FIXTURES);
    server.faults.push((req, res) => {
      if (req.headers.authorization === basic) return false;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="x"' }).end();
      return true;
    });
    const dir = await mkdtemp(join(tmpdir(), 'osimage-netrc-'));
    netrc = join(dir, 'netrc');
    await writeFile(netrc, `machine ${new URL(server.url).hostname} login bob password s3cret\n`);
  });
  afterAll(async () => server.close());

  it('gets the credential from $NETRC for the base URL host; without it, 401', async () => {
    const args = ['resolve', '--base-url', server.url, '--channel', 'maipo', '-o', 'env'];
    const ok = await osimage(args, { env: { NETRC: netrc } });
    expect(ok.stderr).toBe('');
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toContain(`RHCOS_BASE_URL=${server.url}`);
    const none = await osimage(args, { env: { NETRC: join(netrc, 'missing') } });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toMatch(/401/);
  });

  it('-o env never prints the userinfo of --base-url, and says where credentials go', async () => {
    const withUser = server.url.replace('http://', 'http://bob:s3cret@');
    const r = await osimage(['resolve', '--base-url', withUser, '--channel', 'maipo', '-o', 'env'], {
      env: { NETRC: join(netrc, 'missing') },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n')).toContain(`RHCOS_BASE_URL=${server.url}`);
    expect(r.stdout + r.stderr).not.toContain('s3cret');
    expect(r.stderr).toContain(
      'are not written to the output: put them in ~/.netrc (or the file $NETRC names) as "machine 127.0.0.1 login USER password PASSWORD"',
    );
  });
});

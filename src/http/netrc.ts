/**
 * Credentials for a release browser from a netrc file (`$NETRC`, else `~/.netrc`), as curl, git and Python's
 * requests read it: `machine HOST login USER password PW`, a `default` entry for any other host, `account` and
 * `macdef` skipped, tokens separated by white space, a token in double quotes may hold spaces (`\"` and `\\`
 * escaped). A base URL carrying `user:password@` must not be pinned (pins are committed to git): this is
 * where the credential lives instead.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { env as runEnv } from '../context.js';

export interface NetrcCredential {
  username: string;
  password: string;
}

/** Tokens of a netrc file; comment lines and macdef bodies (which end at a blank line) left out. */
function tokens(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      let t = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        t += text[i++];
      }
      i++;
      out.push(t);
      continue;
    }
    if (c === '#') {
      // A comment, from a token that starts with # to the end of the line (as curl reads it).
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl + 1;
      continue;
    }
    let j = i;
    while (j < text.length && !/\s/.test(text[j]!)) j++;
    const t = text.slice(i, j);
    out.push(t);
    i = j;
    if (t === 'macdef') {
      // The macro's name, then its body up to the first empty line (CRLF files too).
      const end = /\r?\n[ \t]*\r?\n/.exec(text.slice(i));
      i = end ? i + end.index + end[0].length : text.length;
      out.pop();
    }
  }
  return out;
}

/** The entries of a netrc text: host → credential, and `default` under the empty name. */
export function parseNetrc(text: string): Map<string, NetrcCredential> {
  const entries = new Map<string, NetrcCredential>();
  const t = tokens(text);
  let host: string | undefined;
  let cur: Partial<NetrcCredential> = {};
  const flush = () => {
    if (host !== undefined && !entries.has(host) && (cur.username !== undefined || cur.password !== undefined)) {
      entries.set(host, { username: cur.username ?? '', password: cur.password ?? '' });
    }
  };
  for (let i = 0; i < t.length; i++) {
    const k = t[i]!;
    if (k === 'machine' || k === 'default') {
      flush();
      host = k === 'default' ? '' : (t[++i] ?? '').toLowerCase();
      cur = {};
    } else if (k === 'login') cur.username = t[++i] ?? '';
    else if (k === 'password') cur.password = t[++i] ?? '';
    else if (k === 'account') i++;
  }
  flush();
  return entries;
}

/** Each netrc file is read once per process (keyed by its path: a run's environment names it). */
const loaded = new Map<string, Promise<Map<string, NetrcCredential>>>();

/** The credential a netrc file gives for `host` (a host name, without port), or undefined. */
export async function netrcCredential(host: string, env: NodeJS.ProcessEnv = runEnv()): Promise<NetrcCredential | undefined> {
  const file = env.NETRC || join(env.HOME || homedir(), '.netrc');
  let entries = loaded.get(file);
  if (!entries) {
    entries = readFile(file, 'utf8').then(parseNetrc, () => new Map<string, NetrcCredential>());
    loaded.set(file, entries);
  }
  const map = await entries;
  return map.get(host.toLowerCase()) ?? map.get('');
}

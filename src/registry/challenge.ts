/**
 * WWW-Authenticate parsing (RFC 7235): one header may hold several challenges, schemes and parameter
 * names are case-insensitive, values are tokens or quoted strings with backslash escapes.
 */
import { OsimageError } from '../errors.js';

export interface Challenge {
  /** Lowercase: `bearer`, `basic`. */
  scheme: string;
  /** Lowercase keys: realm, service, scope, error. */
  params: Record<string, string>;
}

const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

function fail(header: string, why: string): OsimageError {
  return new OsimageError(`cannot parse WWW-Authenticate header ${JSON.stringify(header)}: ${why}`);
}

/** Parse every challenge in the header(s). Malformed input is an error, never a crash. */
export function parseChallenges(value: string | string[] | undefined): Challenge[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((v) => parseChallenges(v));
  const s = value;
  let i = 0;
  const out: Challenge[] = [];
  const skipSpace = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t')) i++;
  };
  const readToken = (): string => {
    const start = i;
    while (i < s.length && TOKEN_CHAR.test(s[i]!)) i++;
    return s.slice(start, i);
  };
  const readQuoted = (): string => {
    i++; // opening quote
    let v = '';
    while (i < s.length) {
      const c = s[i]!;
      if (c === '\\') {
        if (i + 1 >= s.length) break;
        v += s[i + 1];
        i += 2;
      } else if (c === '"') {
        i++;
        return v;
      } else {
        v += c;
        i++;
      }
    }
    throw fail(s, 'unterminated quoted string');
  };
  /** An unquoted value: a token, leniently up to the next comma or space (realms are often bare URLs). */
  const readBare = (): string => {
    const start = i;
    while (i < s.length && s[i] !== ',' && s[i] !== ' ' && s[i] !== '\t' && s[i] !== '"') i++;
    return s.slice(start, i);
  };
  /** At a parameter (`name=`)? Looks ahead without consuming. */
  const atParam = (): boolean => {
    const save = i;
    const name = readToken();
    skipSpace();
    const yes = name !== '' && s[i] === '=' && s[i + 1] !== '=';
    i = save;
    return yes;
  };

  for (;;) {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === ',')) i++;
    if (i >= s.length) break;
    const scheme = readToken();
    if (scheme === '') throw fail(s, `unexpected character ${JSON.stringify(s[i])} at ${i}`);
    const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
    out.push(challenge);
    skipSpace();
    if (i >= s.length || s[i] === ',') continue;
    if (!atParam()) {
      // token68 (e.g. `Negotiate abc==`): keep it whole
      const start = i;
      while (i < s.length && s[i] !== ',') i++;
      challenge.params[''] = s.slice(start, i).trim();
      continue;
    }
    for (;;) {
      skipSpace();
      const name = readToken().toLowerCase();
      skipSpace();
      if (s[i] !== '=') throw fail(s, `expected "=" after ${name}`);
      i++;
      skipSpace();
      const val = s[i] === '"' ? readQuoted() : readBare();
      challenge.params[name] = val;
      skipSpace();
      if (i >= s.length) break;
      if (s[i] !== ',') throw fail(s, `missing comma at ${i}`);
      i++;
      skipSpace();
      if (i >= s.length) break;
      if (!atParam()) break; // the next challenge starts here
    }
  }
  return out;
}

/** The challenge we will answer: Bearer if offered (with a realm), else Basic. */
export function pickChallenge(challenges: Challenge[]): Challenge | undefined {
  return challenges.find((c) => c.scheme === 'bearer' && c.params.realm) ?? challenges.find((c) => c.scheme === 'basic');
}

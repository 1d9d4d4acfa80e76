#!/usr/bin/env node
/**
 * Writes dist/bundle/help.txt: what `osimage --help` prints when its output is not a terminal (80 columns wide, no
 * colour), taken from the built launcher itself, so it is the slow path's output byte for byte. bin/osimage prints
 * it for `osimage --help`, `-h` and `help` without loading the CLI (the top-level help lists commands only, and
 * nothing in it depends on the environment). Run after build/bundle.mjs, which empties dist/bundle/ first, so a
 * rebuilt bundle never keeps an older help text.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../', import.meta.url));
const file = `${repo}dist/bundle/help.txt`;
// The launcher would print this file itself: render from the CLI, with no code cache written into dist/.
rmSync(file, { force: true });
const env = { ...process.env, OSIMAGE_NO_CODE_CACHE: '1' };
for (const v of ['FORCE_COLOR', 'NO_COLOR', 'OSIMAGE_DEBUG']) delete env[v];
const text = execFileSync(process.execPath, [`${repo}bin/osimage`, '--help'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
if (!text.toString('latin1').startsWith('Usage: osimage ')) throw new Error(`osimage --help printed no usage: ${text}`);
writeFileSync(file, text);

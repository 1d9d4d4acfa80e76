#!/usr/bin/env node
/**
 * Writes dist/man/osimage.1 from the compiled CLI's command table (run after tsc): the man page package.json's `man`
 * field installs. The page is made by src/output/man-page.ts from what --help shows, so it cannot drift from it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { everyCommand } from '../dist/cli.js';
import { commandTable } from '../dist/output/command-table.js';
import { manPage } from '../dist/output/man-page.js';

const repo = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', repo), 'utf8'));
const docs = `${pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '')}/tree/main/docs`;
const page = manPage(commandTable(await everyCommand()), { version: pkg.version, docs });
mkdirSync(new URL('dist/man/', repo), { recursive: true });
writeFileSync(new URL('dist/man/osimage.1', repo), page);

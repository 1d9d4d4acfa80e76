// Preloaded into a bin/osimage subprocess (NODE_OPTIONS=--require): appends to the file OSIMAGE_TEST_PROBE_LOG, in
// order, each V8 flag set at run time (`flags <flags>`, after a line `loaded <module> …` naming the public built-in
// modules loaded by then) and each WebAssembly module compiled (`wasm compile`), so a test can tell which flags were in
// force when undici compiled its HTTP parser, and which built-ins kept their code cache. Changes nothing else.
const { appendFileSync } = require('node:fs');
const v8 = require('node:v8');

const log = process.env.OSIMAGE_TEST_PROBE_LOG;
if (log) {
  const note = (line) => appendFileSync(log, `${line}\n`);
  const setFlags = v8.setFlagsFromString;
  v8.setFlagsFromString = (flags) => {
    const loaded = process.moduleLoadList.filter((m) => /^NativeModule (?!internal\/)/.test(m)).map((m) => m.slice('NativeModule '.length));
    note(`loaded ${loaded.join(' ')}`);
    note(`flags ${flags}`);
    return setFlags(flags);
  };
  const Module = WebAssembly.Module;
  WebAssembly.Module = class extends Module {
    constructor(...args) {
      note('wasm compile');
      super(...args);
    }
  };
}

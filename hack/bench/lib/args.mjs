/** `--name VALUE` flags of the small bench scripts (quick.mjs, startup-forms.mjs): the value after the flag, else `def`. */
export function flagReader(args = process.argv.slice(2)) {
  return (name, def) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : def;
  };
}

// The resolve baseline: a plain `fetch` of each URL given, in order, reading each body as text. It makes the
// same requests `osimage resolve` makes (builds.json, then the build's meta.json) and nothing else, so the
// difference between the two is what osimage costs beyond the fetch.
let bytes = 0;
for (const url of process.argv.slice(2)) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  bytes += (await res.text()).length;
}
process.stdout.write(`${bytes}\n`);

/**
 * The least a Node process does for `osimage release info --image-for TAG REF --cache-dir DIR` (hack/bench/
 * startup-forms.mjs measures it beside osimage): `GET /v2/`, then the manifest by tag (HEAD once DIR holds a mark
 * of an earlier run, as a warm cache does; else GET, then the top layer, gunzipped), over plain HTTP with node:http
 * (its parser is native: no WebAssembly to compile); then it prints $OSIMAGE_FLOOR_ANSWER. No https attempt, no
 * auth, no checks, no tar: a floor, not a client. `--help` prints one line.
 */
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
if (args[0] === '--help') {
  process.stdout.write('Usage: floor\n');
} else {
  const ref = args[args.indexOf('--image-for') + 2];
  const cacheDir = args[args.indexOf('--cache-dir') + 1];
  const mark = path.join(cacheDir, 'floor-warm');
  const warm = fs.existsSync(mark);
  const slash = ref.indexOf('/');
  const [hostname, port] = ref.slice(0, slash).split(':');
  const [repo, tag] = ref.slice(slash + 1).split(':');
  const agent = new http.Agent({ keepAlive: true });
  const ACCEPT = 'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json';
  const send = (method, urlPath, headers = {}) =>
    new Promise((resolve, reject) => {
      const req = http.request({ hostname, port, method, path: urlPath, agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          res.statusCode < 400 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${method} ${urlPath}: ${res.statusCode}`)),
        );
      });
      req.on('error', reject);
      req.end();
    });
  (async () => {
    await send('GET', '/v2/');
    if (warm) {
      await send('HEAD', `/v2/${repo}/manifests/${tag}`, { accept: ACCEPT });
    } else {
      const manifest = JSON.parse(await send('GET', `/v2/${repo}/manifests/${tag}`, { accept: ACCEPT }));
      const top = manifest.layers[manifest.layers.length - 1];
      require('node:zlib').gunzipSync(await send('GET', `/v2/${repo}/blobs/${top.digest}`));
      fs.mkdirSync(cacheDir, { recursive: true });
      fs.writeFileSync(mark, '');
    }
    agent.destroy();
    process.stdout.write(`${process.env.OSIMAGE_FLOOR_ANSWER}\n`);
  })().catch((err) => {
    process.stderr.write(`floor: ${err.message}\n`);
    process.exitCode = 1;
  });
}

// A tiny static file server for the release build: `node e2e/serve.mjs <dir> <port>
// [<dir> <port>…]` (more pairs serve more directories, e.g. the benchmark's hello world).
// Python's http.server guesses MIME types from the system's tables, and a `.wasm` served
// as anything but `application/wasm` makes the app fall back to the slow path (or fail),
// so the types are spelled out here. A client that accepts gzip gets it (the wasm is
// 2.4 MB raw, under 1 MB gzip), as any real static host would send it. Loopback only.
// Caching, as a static host should set it (docs/hosting.md): a file whose name carries
// Trunk's content hash (`app-<hash>.js`, `…_bg.wasm`, `style-<hash>.css`) never
// changes, so a returning visitor's browser keeps it for a year without asking;
// everything else (index.html, boot.js, the snapshots under pre/, the labs' files) is
// asked for again each time, with an ETag so an unchanged file costs a 304 and no body.
// (The gzip of each file is kept here while the file is unchanged.) A browser that accepts
// brotli gets the `<file>.br` that scripts/precompress.mjs wrote beside it, if that is
// not older than the file (brotli is a quarter smaller than gzip on the wasm).
import { createServer } from 'node:http';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const args = process.argv.slice(2);
const pairs = [];
for (let i = 0; i < Math.max(args.length, 1); i += 2) pairs.push([args[i] ?? 'dist', args[i + 1] ?? '0']);
const servers = pairs.map(([dir, port]) => serve(resolve(dir), port));
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))).then(() => process.exit(0)));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.toml': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

// Text and wasm compress; images are compressed already.
const COMPRESS = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.toml', '.md', '.svg', '.txt']);
const gzipAsync = promisify(gzip);

// Trunk's content-hashed names: `<name>-<hash>` before the extension, and the wasm beside
// its JS (`<name>-<hash>_bg.wasm`); the lesson's text is `lesson-text-<hash>.txt`. The hash is a u64 in hex without leading zeros: 1 to 16
// digits (one build in 16 has 15; `app-3254efae2811b6c.js` was served uncached).
const HASHED = /-[0-9a-f]{1,16}(_bg)?\.(js|wasm|css|txt)$/;
function cacheControl(file) {
  return HASHED.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache';
}
const gzipped = new Map(); // file -> { mtimeMs, size, body }

// Whether the request's Accept-Encoding allows `want` (`gzip;q=0` refuses gzip).
function accepts(header, want) {
  return String(header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';').map((x) => x.trim());
    const q = params.find((p) => p.startsWith('q='));
    return (coding === want || coding === '*') && !(q && Number(q.slice(2)) === 0);
  });
}

// The precompressed brotli of `file`, if there is one at least as new as the file.
async function brotliOf(file, info) {
  const br = await stat(`${file}.br`).catch(() => null);
  return br && br.mtimeMs >= info.mtimeMs ? readFile(`${file}.br`) : null;
}

async function gzipOf(file, info, body) {
  const hit = gzipped.get(file);
  if (hit && hit.mtimeMs === info.mtimeMs && hit.size === info.size) return hit.body;
  const gz = await gzipAsync(body, { level: 9 });
  gzipped.set(file, { mtimeMs: info.mtimeMs, size: info.size, body: gz });
  return gz;
}

function serve(root, port) {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) throw Object.assign(new Error('outside'), { code: 'ENOENT' });
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const info = await stat(file);
      const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
      const headers = {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': cacheControl(file),
        etag,
      };
      if (COMPRESS.has(extname(file))) headers.vary = 'Accept-Encoding';
      if (String(req.headers['if-none-match'] ?? '').split(',').map((t) => t.trim()).includes(etag)) {
        res.writeHead(304, headers);
        res.end();
        return;
      }
      const compress = COMPRESS.has(extname(file));
      const br = compress && accepts(req.headers['accept-encoding'], 'br') ? await brotliOf(file, info) : null;
      let body = br ?? await readFile(file);
      if (br) {
        headers['content-encoding'] = 'br';
      } else if (compress && accepts(req.headers['accept-encoding'], 'gzip')) {
        body = await gzipOf(file, info, body);
        headers['content-encoding'] = 'gzip';
      }
      headers['content-length'] = body.length;
      res.writeHead(200, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (e) {
      res.writeHead(e.code === 'ENOENT' || e.code === 'ENOTDIR' ? 404 : 500, { 'content-type': 'text/plain' });
      res.end(String(e.code ?? e));
    }
  });
  server.listen(Number(port), '127.0.0.1', () => {
    console.log(`serving ${root} at http://127.0.0.1:${server.address().port}/`);
  });
  return server;
}

// A tiny static file server for the release build: `node e2e/serve.mjs <dir> <port>
// [<dir> <port>…]` (more pairs serve more directories, e.g. the benchmark's hello world).
// Python's http.server guesses MIME types from the system's tables, and a `.wasm` served
// as anything but `application/wasm` makes the app fall back to the slow path (or fail),
// so the types are spelled out here. Loopback only; nothing is cached.
import { createServer } from 'node:http';
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
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

function serve(root, port) {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root + sep)) throw Object.assign(new Error('outside'), { code: 'ENOENT' });
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-store',
      });
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

// Writes `<file>.br` (brotli, quality 11) beside every text and wasm file of a release
// build over 1 KiB: `node scripts/precompress.mjs dist`. Run by `make build` after
// scripts/prerender.sh (which rewrites index.html and pre/). Brotli is about a quarter
// smaller than gzip -9 on the app's wasm (1.20 MB → 0.91 MB), which is what a learner
// on a slow network waits for; it is too slow to compute per request (about 4.5 s for
// the wasm), so static hosts serve it precompressed (docs/hosting.md), as e2e/serve.mjs
// does when the browser accepts `br`.
import { brotliCompress, constants } from 'node:zlib';
import { promisify } from 'node:util';
import { readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';

const COMPRESS = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.toml', '.md', '.svg', '.txt']);
const root = process.argv[2] ?? 'dist';
const brotli = promisify(brotliCompress);

async function* files(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

let raw = 0;
let packed = 0;
let count = 0;
for await (const file of files(root)) {
  if (file.endsWith('.br')) {
    // A stale one (its file gone or newer) is removed; fresh ones are written below.
    const source = file.slice(0, -3);
    const fresh = await stat(source).then((s) => s.mtimeMs, () => null);
    if (fresh === null) await unlink(file);
    continue;
  }
  if (!COMPRESS.has(extname(file))) continue;
  const body = await readFile(file);
  if (body.length < 1024) continue;
  const br = await brotli(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  await writeFile(`${file}.br`, br);
  raw += body.length;
  packed += br.length;
  count += 1;
}
console.log(`precompress: ${count} files, ${raw} bytes → ${packed} bytes brotli`);

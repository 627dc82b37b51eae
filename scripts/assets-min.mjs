// Trunk's post_build hook (Trunk.toml): what the learner downloads, without comments and
// spaces (esbuild, as the editor is bundled). wasm-bindgen writes its glue readable, and our
// own scripts explain themselves at length: 12 KB gzip of what the whole lesson downloads
// was comments and indentation (#37), and 11 KB of the labs' harness and sandbox.
//   - the page's glue (`app-<hash>.js`) and static/boot.js, ES modules: fully minified,
//     names too; what they export and put on `window` keep their names;
//   - the engine's and the authoring module's glue (no-modules scripts whose global,
//     `wasm_bindgen`, the workers and the labs' sandbox name) and static/engine-worker.js:
//     whitespace and syntax only, every name kept;
//   - the labs' files a browser fetches when a lab first runs, labs/harness.js, each
//     built-in lab's driver.js and labs/sandbox.html's script: whitespace and syntax only
//     (a driver's `worker` is found by its name), so a learner's
//     `console.log(redis.set)` and the errors read as in Node, where labs/node-host.mjs
//     runs the harness as written. The sandbox counts the harness's lines when it builds
//     its worker, so the learner's line numbers do not depend on them;
//   - the stylesheet, and static/editor-load.js where index.html holds it.
// Each `integrity` in index.html that names one of them is written again for its new text.
// Release builds only: `make test` drives the result (prerender, firstload, audit, the lab
// and explore walks, the LMS packages, node dist/labs/browsertest.mjs).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { esbuild, lean } from './lean-js.mjs';

const stage = process.env.TRUNK_STAGING_DIR;
if (!stage) throw new Error('assets-min.mjs is run by trunk build (Trunk.toml hooks)');
if ((process.env.TRUNK_PROFILE ?? 'release') !== 'release') process.exit(0);

writeFileSync(`${stage}/labs/harness.js`, lean(readFileSync('labs/harness.js', 'utf8')));
// The solutions stay as written: a learner who asks for one reads its comments.
for (const d of readdirSync('labs', { withFileTypes: true })) {
  const driver = `labs/${d.name}/driver.js`;
  if (d.isDirectory() && existsSync(driver)) writeFileSync(`${stage}/${driver}`, lean(readFileSync(driver, 'utf8')));
}
const sandbox = readFileSync('labs/sandbox.html', 'utf8');
const scripts = [...sandbox.matchAll(/<script>([\s\S]*?)<\/script>/g)];
if (scripts.length !== 1) throw new Error(`assets-min: labs/sandbox.html has ${scripts.length} scripts, not one`);
const [whole, script] = scripts[0];
writeFileSync(`${stage}/labs/sandbox.html`, sandbox.replace(whole, () => `<script>${lean(script)}</script>`));

const files = readdirSync(stage);
const one = (pattern, what) => {
  const found = files.filter((f) => pattern.test(f));
  if (found.length !== 1) throw new Error(`assets-min: ${found.length} files for ${what} in ${stage}, not one`);
  return found[0];
};
let index = readFileSync(`${stage}/index.html`, 'utf8');
// Rewrites `file` with `minify` (its text to the text that ships), and the `integrity` of
// each tag of index.html that names it (the stylesheet's link, the page's glue's
// modulepreload) for its new text.
const rewrite = (file, minify) => {
  const path = `${stage}/${file}`;
  const code = minify(readFileSync(path, 'utf8'));
  writeFileSync(path, code);
  const sri = `sha384-${createHash('sha384').update(code).digest('base64')}`;
  const tag = new RegExp(`(<[^>]*(?:href|src)="/${file.replace(/[.]/g, '\\.')}"[^>]*integrity=")sha384-[^"]+(")`, 'g');
  index = index.replace(tag, (_, a, b) => `${a}${sri}${b}`);
};

const minified = (loader, format) => (code) => esbuild.transformSync(code, {
  loader, format, minify: true, legalComments: 'none', logLevel: 'warning',
}).code;
rewrite(one(/^app-[0-9a-f]+\.js$/, "the page's glue"), minified('js', 'esm'));
rewrite(one(/^boot\.js$/, 'boot.js'), minified('js', 'esm'));
for (const file of ['engine.js', 'authoring.js', 'engine-worker.js']) {
  rewrite(one(new RegExp(`^${file.replace('.', '\\.')}$`), file), lean);
}
rewrite(one(/^style-[0-9a-f]+\.css$/, 'the stylesheet'), minified('css'));
// static/editor-load.js, which Trunk inlined into index.html as it is.
const loader = readFileSync('static/editor-load.js', 'utf8');
if (!index.includes(loader)) throw new Error('assets-min: index.html does not hold static/editor-load.js as written');
index = index.replace(loader, () => lean(loader));
// Every tag of index.html with an `integrity` must name its file's text as it is now.
for (const [tag] of index.matchAll(/<[^>]*integrity="[^"]+"[^>]*>/g)) {
  const file = /(?:href|src)="\/([^"]+)"/.exec(tag)?.[1];
  const want = /integrity="([^"]+)"/.exec(tag)[1];
  const have = file && `sha384-${createHash('sha384').update(readFileSync(`${stage}/${file}`)).digest('base64')}`;
  if (have !== want) throw new Error(`assets-min: index.html's integrity for ${file} is not its text's`);
}
writeFileSync(`${stage}/index.html`, index);

// Trunk's post_build hook (Trunk.toml): the labs' files a browser fetches when a lab first
// runs, labs/harness.js and labs/sandbox.html's script, without their comments and spaces
// (esbuild, whitespace and syntax only: every name stays, so a learner's
// `console.log(redis.set)` and the errors read as in Node, where labs/node-host.mjs runs
// the harness as written). 27 KB gzip become 16. The sandbox counts the harness's lines
// when it builds its worker, so the learner's line numbers do not depend on them.
// Release builds only; `make test` drives the result (node dist/labs/browsertest.mjs).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const stage = process.env.TRUNK_STAGING_DIR;
if (!stage) throw new Error('labs-min.mjs is run by trunk build (Trunk.toml hooks)');
if ((process.env.TRUNK_PROFILE ?? 'release') !== 'release') process.exit(0);
let esbuild;
try {
  esbuild = createRequire(new URL('../editor/', import.meta.url))('esbuild');
} catch {
  throw new Error('labs-min: editor/node_modules/esbuild is missing: run scripts/setup.sh');
}
const lean = (code) => esbuild.transformSync(code, {
  loader: 'js', minifyWhitespace: true, minifySyntax: true, legalComments: 'none', logLevel: 'warning',
}).code;

writeFileSync(`${stage}/labs/harness.js`, lean(readFileSync('labs/harness.js', 'utf8')));

const html = readFileSync('labs/sandbox.html', 'utf8');
const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)];
if (scripts.length !== 1) throw new Error(`labs-min: labs/sandbox.html has ${scripts.length} scripts, not one`);
const [whole, script] = scripts[0];
writeFileSync(`${stage}/labs/sandbox.html`, html.replace(whole, () => `<script>${lean(script)}</script>`));

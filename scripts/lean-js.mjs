// esbuild (editor/'s, installed by scripts/setup.sh) and its one pass that our shipped
// scripts take where every name must stay: comments and spaces out, the syntax made
// shorter (scripts/assets-min.mjs, e2e/prerender.mjs).
import { createRequire } from 'node:module';

let loaded;
try {
  loaded = createRequire(new URL('../editor/', import.meta.url))('esbuild');
} catch {
  throw new Error('editor/node_modules/esbuild is missing: run scripts/setup.sh');
}
export const esbuild = loaded;

/** `code` without comments and spaces, every name kept. */
export const lean = (code) => esbuild.transformSync(code, {
  loader: 'js', minifyWhitespace: true, minifySyntax: true, legalComments: 'none', logLevel: 'warning',
}).code;

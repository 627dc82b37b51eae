// Node.js host for Lockstep labs: JSON lines on stdin, one JSON line per answer on stdout.
//
// Usage: node labs/node-host.mjs [HARNESS_SOURCE]
// (`lockstep lab run` starts it as `node --permission … -e <this file> -- <harness.js>`:
// no file of ours is read or written at run time; the lab, its driver and the
// learner's file come in `init`. Protocol: docs/labs.md.)
//
// Who runs where (ARCHITECTURE.md, "Labs: a stranger's code"):
// - this realm (the host) holds `process`. It hands the other realms nothing but
//   strings, and reads nothing of theirs but the strings they return;
// - the harness and the driver run in a `vm` context of their own, "the lab realm",
//   which cannot compile code from strings and is locked down (every built-in
//   frozen) before any driver or learner code runs;
// - each worker process's copy of the learner's file runs in a context of its own,
//   made fresh at its start (its own global and built-ins: what it changes there
//   stays in that process, as in a separate Node process).
// A hole in `vm` would still meet the process's own walls: Node's permission model (no
// file, no child process, no worker, no addon), no code generation from strings here,
// a heap cap, and a cap on all memory set by the parent (ulimit).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import vm from 'node:vm';

// Run as a file (the self-test), it reads the harness beside it; run from `-e`, the
// harness's text is its one argument.
const harnessSource = import.meta.url.endsWith('/node-host.mjs')
  ? readFileSync(new URL('./harness.js', import.meta.url), 'utf8')
  : String(process.argv[1]);

/** No eval, no new Function, no WebAssembly inside a lab's realms. */
const SEALED = { codeGeneration: { strings: false, wasm: false } };

/** A fresh realm: its global has nothing of ours (a null-prototype sandbox). */
const realm = () => vm.createContext(Object.create(null), SEALED);

/** Learner line L is reported as L: the wrapper adds one line on top. */
const script = (source, filename) => new vm.Script(source, { filename, lineOffset: -1 });

/** Lets the shared microtask queue run dry: every promise of the process settles. */
const drain = () => new Promise((resolve) => setImmediate(resolve));

const errorAnswer = (message, at) =>
  JSON.stringify({ type: 'error', message, line: at ? at.line : null, col: at ? at.col : null });

/** The lab of the last `init`: the harness (in the lab realm) and the compiled learner. */
let lab = null;

/**
 * A realm of the learner's own, for one process (or `init`'s probe): [its global, the
 * learner's module factory compiled in it].
 */
function processRealm() {
  const context = realm();
  return [vm.runInContext('globalThis', context), lab.learner.runInContext(context)];
}

/** Compiles what `init` brings; the answer text when it cannot, else null. */
function init(text, msg) {
  lab = null;
  const context = realm();
  vm.runInContext(harnessSource, context, { filename: 'harness.js' });
  const api = vm.runInContext('LockstepLab', context);
  const functions = Array.isArray(msg.functions) ? msg.functions.map(String) : [];
  let driverFactory;
  try {
    driverFactory = script(api.wrapDriver(String(msg.driver ?? '')), 'driver.js').runInContext(context);
  } catch (err) {
    // A compile error of ours (this realm's SyntaxError) or of prepareSource (a string).
    return errorAnswer(`the lab's driver does not compile: ${String(err && err.message).slice(0, 2000)}`,
      api.locateIn('driver.js', String(err && err.stack)));
  }
  let learner;
  try {
    learner = script(api.wrapLearner(String(msg.learner ?? ''), functions), 'learner.js');
  } catch (err) {
    // prepareSource's own SyntaxError carries line/col; the engine's has them in its stack.
    const line = Number(err && err.line);
    const at = Number.isFinite(line) ? { line, col: Number(err.col) || null } : api.locateIn('learner.js', String(err && err.stack));
    return errorAnswer(`${String(err && err.name)}: ${String(err && err.message).slice(0, 2000)}`, at);
  }
  // The harness reads `functions` and `params` from the text itself, in its realm.
  const harness = api.createHostHarness(text, driverFactory);
  api.lockdownRealm(vm.runInContext('globalThis', context), []);
  lab = { harness, learner };
  return null;
}

/** One message in, its answer out (text). */
async function answer(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    return errorAnswer(`bad JSON: ${err.message}`, null);
  }
  if (msg && msg.type === 'init') {
    const failed = init(line, msg);
    if (failed) return failed;
  } else if (!lab) {
    return errorAnswer('no lab: the first message must be init', null);
  }
  const starts = msg.type === 'init' || (msg.type === 'input' && msg.ev && msg.ev.kind === 'start');
  const parts = starts ? processRealm() : [];
  const first = lab.harness.beginText(line, ...parts);
  if (typeof first === 'string') return first;
  await drain();
  return lab.harness.finishText();
}

// A learner may leave a rejected promise unawaited; in Node that would end this host.
// The harness reports what matters (an error the driver did not catch). The reason is
// never looked at here: it is the learner's object.
process.on('unhandledRejection', () => {});

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
// One message at a time, in order: a process runs alone between two drains.
let queue = Promise.resolve();
lines.on('line', (line) => {
  if (!line.trim()) return;
  queue = queue.then(async () => {
    let text;
    try {
      text = await answer(line);
    } catch (err) {
      // Never read: an error thrown out of another realm is not ours to inspect.
      void err;
      text = errorAnswer('lab host: the lab failed in a way it cannot describe', null);
    }
    process.stdout.write(`${text}\n`);
  });
});

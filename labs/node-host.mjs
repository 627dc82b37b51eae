// Node.js host for Lockstep labs: JSON lines on stdin, one JSON line per answer on stdout.
//
// Usage: node labs/node-host.mjs [HARNESS_SOURCE [live LIVE_DIR]]
// (`lockstep lab run` starts it as `node --permission … -e <this file> -- <harness.js>`:
// no file of ours is read or written at run time; the lab, its driver and the
// learner's file come in `init`. Protocol: docs/labs.md.)
// Live mode (`… -- <harness.js> live <LIVE_DIR>`, with `--allow-fs-read=<LIVE_DIR>/*`):
// `{"type":"live"}` runs a trial against real redis-servers with node-redis, by
// LIVE_DIR/live.mjs (docs/labs.md, "Live mode"). That module and node-redis live in
// this realm; the lab realm still gets and gives nothing but strings.
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
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
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

const errorAnswer = (message, at, coded) => {
  const answer = { type: 'error', message, line: at ? at.line : null, col: at ? at.col : null };
  // The harness's code and data for an error it made (its JSON text, read here as text).
  if (coded) answer.coded = JSON.parse(coded);
  return JSON.stringify(answer);
};

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
    return errorAnswer(`${String(err && err.name)}: ${String(err && err.message).slice(0, 2000)}`, at, api.codedJSON(err));
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

/** The answer text to `line`; never throws. */
async function respond(line) {
  try {
    return await answer(line);
  } catch (err) {
    // Never read: an error thrown out of another realm is not ours to inspect.
    void err;
    return errorAnswer('lab host: the lab failed in a way it cannot describe', null);
  }
}

// Live mode: argv after the harness is `live LIVE_DIR` (the same places when this file
// is run directly, its own path standing where the harness text is).
const liveDir = process.argv[2] === 'live' ? String(process.argv[3] ?? '') : null;
/** LIVE_DIR/live.mjs, or the text saying why it could not be loaded. */
let live = null;
let liveFailure = null;
if (liveDir !== null) {
  try {
    live = await import(pathToFileURL(join(liveDir, 'live.mjs')).href);
  } catch (err) {
    liveFailure = `the live mode could not load ${join(liveDir, 'live.mjs')} and node-redis (run \`npm ci\` in live/): ${String(err && err.message).slice(0, 500)}`;
  }
}

const writeLine = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);

/** The live trial's resource requests waiting for their `res_reply`, by "pid:id" (FIFO). */
const requests = new Map();

const liveIO = {
  answer: respond,
  request(obj) {
    return new Promise((resolve) => {
      const key = `${obj.pid}:${obj.id}`;
      if (!requests.has(key)) requests.set(key, []);
      requests.get(key).push(resolve);
      writeLine(obj);
    });
  },
};

/** A `live` message: one trial, its `live_done` as the answer text. */
async function runLive(msg) {
  const done = (error) => JSON.stringify({ type: 'live_done', t0_wall_ms: null, events: [], monitor: [], error });
  if (!live) return done(liveFailure ?? 'the host was not started in live mode');
  if (!lab) return done('no lab: the first message must be init');
  try {
    return JSON.stringify(await live.runLiveTrial(msg, liveIO));
  } catch (err) {
    return done(`live host: ${String(err && err.message).slice(0, 2000)}`);
  } finally {
    requests.clear();
  }
}

/** A `res_reply` line goes to its waiting request at once, not behind the trial. */
function routeReply(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return false;
  }
  if (!msg || msg.type !== 'res_reply') return false;
  const key = `${msg.pid}:${msg.id}`;
  const waiting = requests.get(key);
  const resolve = waiting && waiting.shift();
  if (waiting && !waiting.length) requests.delete(key);
  if (resolve) resolve(msg.reply);
  return true;
}

/** In live mode, the parsed message when `line` is a `live` one. */
function liveMessage(line) {
  if (liveDir === null || !line.includes('"live"')) return null;
  try {
    const msg = JSON.parse(line);
    return msg && msg.type === 'live' ? msg : null;
  } catch {
    return null;
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
// One message at a time, in order: a process runs alone between two drains.
let queue = Promise.resolve();
lines.on('line', (line) => {
  if (!line.trim()) return;
  if (liveDir !== null && line.includes('"res_reply"') && routeReply(line)) return;
  queue = queue.then(async () => {
    const liveMsg = liveMessage(line);
    const text = liveMsg ? await runLive(liveMsg) : await respond(line);
    process.stdout.write(`${text}\n`);
  });
});

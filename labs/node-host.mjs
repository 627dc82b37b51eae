// Node.js host for Lockstep labs: JSON lines on stdin, one JSON line per answer on stdout.
//
// Usage: node labs/node-host.mjs   (the lab, its driver and the learner's file come in `init`)
//
// The learner's code runs with labs/harness.js inside ONE fresh `vm` context: it sees
// the JavaScript built-ins and the harness's shims, never `process`, a real `require`
// or `fetch`. Messages are handed to the harness as JSON text and parsed inside the
// context, so no object of this realm (whose constructors lead back to `process`)
// ever reaches the learner. Protocol: docs/labs.md.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const HARNESS_PATH = fileURLToPath(new URL('./harness.js', import.meta.url));
const harnessSource = readFileSync(HARNESS_PATH, 'utf8');

/** A line and column in the learner's file from an error's stack, or null. */
export function locateIn(filename, err) {
  const stack = err && typeof err.stack === 'string' ? err.stack : '';
  const escaped = filename.replace(/[.]/g, '\\.');
  // A frame: "at acquire (learner.js:5:11)" or "at learner.js:5:11".
  const frame = stack.match(new RegExp(`${escaped}:(\\d+):(\\d+)`));
  if (frame) return { line: Number(frame[1]), col: Number(frame[2]) };
  // A compile error: "learner.js:5\n<source line>\n      ^^^^\n".
  const head = stack.match(new RegExp(`^${escaped}:(\\d+)\\n[^\\n]*\\n( *)\\^`));
  if (head) return { line: Number(head[1]), col: head[2].length + 1 };
  const bare = stack.match(new RegExp(`^${escaped}:(\\d+)`));
  if (bare) return { line: Number(bare[1]), col: null };
  return null;
}

/** Compiles wrapped source in `context`; learner line L is reported as L (see lineOffset). */
function compile(context, wrapped, filename) {
  const script = new vm.Script(wrapped, { filename, lineOffset: -1 });
  return script.runInContext(context);
}

/** Drains the microtask queue (shared with the context): setImmediate runs after it. */
const drain = () => new Promise((resolve) => setImmediate(resolve));

let harness = null;

function errorAnswer(message, at) {
  return JSON.stringify({ type: 'error', message, line: at ? at.line : null, col: at ? at.col : null });
}

function init(msg) {
  harness = null;
  const context = vm.createContext(Object.create(null), { codeGeneration: { strings: true, wasm: false } });
  vm.runInContext(harnessSource, context, { filename: 'harness.js' });
  const lab = context.LockstepLab;
  const functions = Array.isArray(msg.functions) ? msg.functions.map(String) : [];
  let driverFactory;
  try {
    driverFactory = compile(context, lab.wrapDriver(String(msg.driver ?? '')), 'driver.js');
  } catch (err) {
    return errorAnswer(`the lab's driver does not compile: ${err.name}: ${err.message}`, locateIn('driver.js', err));
  }
  let learnerFactory;
  try {
    learnerFactory = compile(context, lab.wrapLearner(String(msg.learner ?? ''), functions), 'learner.js');
  } catch (err) {
    // prepareSource's own SyntaxError carries line/col; the engine's has them in its stack.
    const at = Number.isFinite(err.line) ? { line: err.line, col: err.col } : locateIn('learner.js', err);
    return errorAnswer(`${err.name}: ${err.message}`, at);
  }
  harness = lab.createHarness({
    learnerFactory,
    driverFactory,
    functions,
    params: msg.params ?? {},
    drain,
    locate: (err) => locateIn('learner.js', err),
  });
  // Nothing of the host stays reachable from the context's globals.
  vm.runInContext('delete globalThis.LockstepLab', context);
  return null;
}

async function answer(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    return errorAnswer(`bad JSON: ${err.message}`, null);
  }
  if (msg && msg.type === 'init') {
    const failed = init(msg);
    if (failed) return failed;
  } else if (!harness) {
    return errorAnswer('no lab: the first message must be init', null);
  }
  return harness.handleJSON(line);
}

// The learner may leave a rejected promise unawaited; in Node that would end this
// host. The harness reports what matters (an error the driver did not catch).
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
      text = errorAnswer(`lab host: ${err && err.message}`, null);
    }
    process.stdout.write(`${text}\n`);
  });
});

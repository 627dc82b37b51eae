// The client oracle's check: does the lab harness's `redis` client (labs/harness.js)
// behave like real node-redis v4, as recorded in corpus.json by record.mjs?
//
// Usage: node tests/client-oracle/replay.mjs   (needs only Node: no redis-server, no
// node_modules). Prints one line per difference, then "N passed, M failed"; exits 1
// if any case failed.
//
// For each recorded case it runs the same method with the same arguments on the
// harness's client (a driver calls `lab.redis[method](...args)`), answers each `cmd`
// action with the reply the real server gave (an error reply as `error` text, as the
// simulator does), and checks:
//   (a) the command's arguments equal what redis-server received from node-redis
//       (when they differ, the result is not compared: the replies are another's);
//   (b) the call settles the same way: resolved with the same value of the same type,
//       or rejected with the same error class, name and message;
//   (c) where node-redis refused the call without sending anything, the harness
//       sends nothing and refuses too;
//   (d) a method node-redis has and the harness lacks is named.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { decodeArg, outcome } from './codec.mjs';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const corpus = JSON.parse(readFileSync(here('./corpus.json'), 'utf8'));

// The harness in a vm context of its own, as labs/node-host.mjs runs it.
const context = vm.createContext({});
vm.runInContext(readFileSync(here('../../labs/harness.js'), 'utf8'), context, { filename: 'harness.js' });
const compile = (src, filename) => new vm.Script(src, { filename, lineOffset: -1 }).runInContext(context);
const Lab = context.LockstepLab;

// The driver runs the case's call and leaves how it settled in globalThis.__oracle.
const DRIVER = `async function worker(lab) {
  const c = globalThis.__oracle;
  c.has = typeof lab.redis[c.method] === 'function';
  if (!c.has) return;
  let promise;
  try { promise = lab.redis[c.method](...c.args); } catch (err) { c.settled = ['threw', err]; return; }
  try { c.settled = ['resolved', await promise]; } catch (err) { c.settled = ['rejected', err]; }
}`;
const harness = Lab.createHarness({
  learnerFactory: compile(Lab.wrapLearner('', []), 'learner.js'),
  driverFactory: compile(Lab.wrapDriver(DRIVER), 'driver.js'),
  functions: [],
  params: {},
  drain: () => new Promise((resolve) => setImmediate(resolve)),
  locate: () => null,
});

/** Runs one case on the harness: the commands it sent and how the call settled. */
async function runOnHarness(c) {
  const oracle = { method: c.method, args: decodeArg(c.args) };
  context.__oracle = oracle;
  await harness.handle({ type: 'run' });
  const input = (ev) => harness.handle({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 0, ev });
  const sent = [];
  let answer = await input({ kind: 'start', seed: '1' });
  for (let round = 0; round < 10; round++) {
    const cmds = answer.actions.filter((a) => a.a === 'cmd');
    const other = answer.actions.find((a) => a.a === 'error');
    if (other) throw new Error(`the harness process failed: ${other.message}`);
    if (!cmds.length) break;
    for (const cmd of cmds) {
      const recorded = c.sent[sent.length];
      sent.push(cmd.args);
      // A command node-redis never sent (or that got no reply) gets none here either.
      if (recorded && recorded.event) answer = await input({ kind: 'reply', id: cmd.id, ...recorded.event });
      else answer = { actions: [] };
    }
  }
  const settled = oracle.settled ? outcome(...oracle.settled) : { how: 'pending' };
  return { has: oracle.has, sent, settled };
}

/**
 * Where the harness differs from node-redis on purpose: the case, why, and what the
 * harness does instead (checked like any outcome).
 */
const DELIBERATE = {
  'sendCommand empty array': {
    why: 'node-redis sends an empty command and waits for ever; a lab says why instead',
    harness: (got) => got.sent.length === 0 && got.settled.how === 'rejected' && got.settled.error.ctor === 'TypeError',
  },
};

const show = (v) => JSON.stringify(v);
/** A corpus argument as JavaScript source: undefined, 5n, new Date(…), NaN. */
const showArg = (v) => {
  if (Array.isArray(v)) return `[${v.map(showArg).join(', ')}]`;
  if (v && typeof v === 'object') {
    if (v.$ === 'undefined') return 'undefined';
    if (v.$ === 'bigint') return `${v.v}n`;
    if (v.$ === 'number') return v.v;
    if (v.$ === 'date') return `new Date(${v.ms})`;
    return `{ ${Object.entries(v).map(([k, x]) => `${k}: ${showArg(x)}`).join(', ')} }`;
  }
  return show(v);
};
const errorText = (e) => `${e.ctor}${e.name !== e.ctor ? ` (name ${e.name})` : ''}: ${e.message}`;

/** The differences between node-redis's recorded outcome and the harness's, as text. */
function compareOutcome(want, got) {
  if (want.how !== got.how) {
    const says = (o) => (o.how === 'resolved' ? `resolves with ${o.type} ${show(o.value)}`
      : o.how === 'pending' ? 'never settles' : `${o.how === 'threw' ? 'throws' : 'rejects with'} ${errorText(o.error)}`);
    return [`node-redis ${says(want)}; the harness ${says(got)}`];
  }
  if (want.how === 'resolved') {
    if (want.type !== got.type || show(want.value) !== show(got.value)) {
      return [`node-redis resolves with ${want.type} ${show(want.value)}; the harness with ${got.type} ${show(got.value)}`];
    }
    return [];
  }
  if (want.how === 'pending') return [];
  const out = [];
  const w = want.error;
  const g = got.error;
  if (w.ctor !== g.ctor || w.name !== g.name) {
    out.push(`error class: node-redis ${w.ctor} (name ${w.name}); the harness ${g.ctor} (name ${g.name})`);
  }
  if (w.message !== g.message) out.push(`error message: node-redis ${show(w.message)}; the harness ${show(g.message)}`);
  return out;
}

async function main() {
  const init = await harness.handle({ type: 'init', params: {} });
  if (init.type !== 'ready') throw new Error(`harness init: ${show(init)}`);
  let passed = 0;
  let failed = 0;
  const missing = new Set();
  for (const c of corpus.cases) {
    if (c.result.how === 'no such method') continue; // node-redis lacks it: nothing to match
    const got = await runOnHarness(c);
    const diffs = [];
    const deliberate = DELIBERATE[c.name];
    if (deliberate) {
      if (!deliberate.harness(got)) diffs.push(`the harness no longer does what it does on purpose: ${deliberate.why}`);
    } else if (!got.has) {
      diffs.push(`the harness has no method ${c.method}`);
      missing.add(c.method);
    } else {
      const want = c.sent.map((s) => s.args);
      if (show(want) === show(got.sent)) {
        diffs.push(...compareOutcome(c.result, got.settled));
      } else {
        // The replies fed back belong to node-redis's commands: no result to compare.
        const line = (list, o) => (list.length ? list.map((a) => show(a)).join(', ')
          : `nothing and ${o.how === 'threw' ? 'throws' : 'rejects with'} ${o.error ? errorText(o.error) : o.how}`);
        diffs.push(`command: node-redis sends ${line(want, c.result)}; the harness ${line(got.sent, got.settled)}`);
      }
    }
    if (diffs.length) {
      failed++;
      for (const d of diffs) console.log(`FAIL ${c.name} — ${c.method}(${c.args.map(showArg).join(', ')}): ${d}`);
    } else {
      passed++;
    }
  }
  if (missing.size) console.log(`methods node-redis has and the harness lacks: ${[...missing].join(', ')}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

// Runs each built-in lab's driver with its reference solution on the REAL stack: real
// Node.js timers and clock, real node-redis v4 clients, real redis-server. No attacks:
// this checks that the code we ship runs, and keeps the lab's promises, on the client
// and server it imitates (node-redis v4 throws `TypeError: Invalid argument type` where
// the simulator's harness once forgave a number, #36).
//
//   node labs.mjs             starts its own servers and runs every lab
//   import { runLab, LABS }   what lesson.mjs and run.mjs use
//
// Each worker is a process of its own in the simulator, so here each worker gets its own
// clients and its own instance of the solution module (module state such as a cached
// script SHA is per worker, as it would be per process).

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClient } from 'redis';

const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(HERE, '..', '..');
export const TMP = join(HERE, '.tmp');
export const LABS = ['set-nx', 'safe-release', 'watchdog', 'redlock', 'fencing', 'idempotency'];

const WORKERS = 3;
/** A lab that has not finished by then never will (the slowest, watchdog, takes ~6 s). */
const LAB_DEADLINE_MS = 20000;

// ---------------------------------------------------------------------------------------
// lab.toml: a tiny reader for flat `key = value` lines. Our own 30 lines rather than a
// TOML package: the lab files use only numbers, "strings" and one-line arrays in the
// tables we read, and those are JSON. Anything else (a multi-line string, a table array)
// is skipped outside the tables we read and refused inside them, so a new kind of value
// is noticed, not misread.
// ---------------------------------------------------------------------------------------

function parseValue(text, where) {
  let v = text.trim();
  if (!v.startsWith('"')) v = v.replace(/\s+#.*$/, ''); // a trailing comment
  try {
    return JSON.parse(v);
  } catch {
    throw new Error(`${where}: cannot read the value ${JSON.stringify(text)}`);
  }
}

/** { top: {checks, functions, id, ...one-line values}, params: {...} } of a lab.toml. */
export function parseLabToml(text, file = 'lab.toml') {
  const out = { top: {}, params: {} };
  let table = 'top';
  let inMultiline = false;
  text.split('\n').forEach((line, i) => {
    if (inMultiline) {
      if (line.includes('"""')) inMultiline = false;
      return;
    }
    const t = line.trim();
    if (t === '' || t.startsWith('#')) return;
    const header = t.match(/^\[+\s*([^\]]+?)\s*\]+$/);
    if (header) {
      table = t.startsWith('[[') ? 'other' : header[1] === 'params' ? 'params' : 'other';
      return;
    }
    const m = t.match(/^([A-Za-z0-9_]+)\s*=\s*(.*)$/);
    if (!m) return;
    if (m[2].startsWith('"""')) {
      if (table === 'params') throw new Error(`${file}:${i + 1}: a multi-line string in [params]`);
      inMultiline = !m[2].slice(3).includes('"""');
      return;
    }
    if (table === 'params') out.params[m[1]] = parseValue(m[2], `${file}:${i + 1}`);
    else if (table === 'top') out.top[m[1]] = parseValue(m[2], `${file}:${i + 1}`);
  });
  return out;
}

/** Everything the runner needs about one built-in lab. */
export function readLab(id) {
  const dir = join(ROOT, 'labs', id);
  const { top, params } = parseLabToml(readFileSync(join(dir, 'lab.toml'), 'utf8'), `labs/${id}/lab.toml`);
  return {
    id,
    params,
    checks: top.checks || [],
    driverSrc: readFileSync(join(dir, 'driver.js'), 'utf8'),
    solutionSrc: readFileSync(join(dir, 'solution.js'), 'utf8'),
    solutionFile: `labs/${id}/solution.js`,
  };
}

// ---------------------------------------------------------------------------------------
// Loading code: the driver is a plain script that defines `worker`; a solution is an ES
// module, written to .tmp/ under this folder (so `redis`, `redlock`, `ioredis` resolve
// from our node_modules) and imported once per worker (`?worker=N`: a fresh instance).
// ---------------------------------------------------------------------------------------

export function loadDriver(src) {
  // Same realm as everything else: Date.now, setTimeout and Promise are the real ones.
  return new Function(`${src}\n;return worker;`)();
}

let tmpCount = 0;
/** Temp files not yet removed: removed on exit too (an interrupted run leaves none). */
const tmpFiles = new Set();
process.on('exit', () => { for (const f of tmpFiles) rmSync(f, { force: true }); });

/** Writes src to a temp .mjs; returns {url, remove()}. */
export function writeTempModule(src, label) {
  mkdirSync(TMP, { recursive: true });
  const file = join(TMP, `${label.replace(/[^\w.-]+/g, '_')}-${process.pid}-${++tmpCount}.mjs`);
  writeFileSync(file, src);
  tmpFiles.add(file);
  const remove = () => { rmSync(file, { force: true }); tmpFiles.delete(file); };
  return { url: pathToFileURL(file).href, remove };
}

// ---------------------------------------------------------------------------------------
// The resource: what the simulator's storage service does for these labs (src/sim/world.rs,
// ResOp::Write). Fencing "strict": a write whose token is missing or not higher than the
// highest accepted is refused. Idempotency: a second write with a key already seen is
// refused. A read gives {value, version}.
// ---------------------------------------------------------------------------------------

export function makeResource({ fencing = false, idempotency = false } = {}) {
  const data = new Map(); // key -> {value, version}
  const seen = new Set();
  let highest = null;
  const writes = []; // every write, accepted or not
  return {
    writes,
    async write(worker, key, value, opts = {}) {
      const token = opts.token;
      const idem = opts.idempotencyKey;
      let rejected = null;
      if (fencing && (token === undefined || token === null)) rejected = 'no fencing token';
      else if (fencing && highest !== null && !(token > highest)) {
        rejected = `stale token ${token}: ${highest} accepted before`;
      } else if (idempotency && idem !== undefined && seen.has(idem)) {
        rejected = `idempotency key ${idem} already used`;
      }
      writes.push({ worker, key, value, token, idem, accepted: !rejected, at: Date.now() });
      if (rejected) return { rejected };
      if (fencing) highest = highest === null ? token : Math.max(highest, token);
      if (idempotency && idem !== undefined) seen.add(idem);
      const version = (data.get(key)?.version || 0) + 1;
      data.set(key, { value, version });
      return { accepted: true };
    },
    async read(key) {
      return data.get(key) || { value: null, version: 0 };
    },
  };
}

// ---------------------------------------------------------------------------------------
// One run of a lab: 3 workers, real time, a history of what each believed.
// ---------------------------------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
class Aborted extends Error {}

/**
 * Runs `lab` (from readLab) with `solutionSrc` against the servers at `urls` (at least
 * params.nodes of them). Returns {checks: [{name, ok, detail}], ms, history}.
 */
export async function runLab(lab, solutionSrc, urls, label = lab.id, { deadlineMs = LAB_DEADLINE_MS } = {}) {
  const { params } = lab;
  const nodes = params.nodes || 1;
  const key = params.key;
  const startedAt = Date.now();
  const history = [];
  let seq = 0;
  let aborted = false;
  const record = (worker, type, extra = {}) =>
    history.push({ seq: ++seq, t: Date.now(), worker, type, ...extra });

  // Observers: one client per node, apart from the workers', to look at the keys.
  const connect = async (url) => {
    const c = createClient({ url });
    c.on('error', () => {}); // a disconnect at the end is not a finding
    await c.connect();
    return c;
  };
  const observers = await Promise.all(urls.slice(0, nodes).map(connect));
  await Promise.all(observers.map((o) => o.sendCommand(['FLUSHALL'])));
  await Promise.all(observers.map((o) => o.sendCommand(['SCRIPT', 'FLUSH'])));

  const resource = makeResource({ fencing: lab.id === 'fencing', idempotency: lab.id === 'idempotency' });
  const worker = loadDriver(lab.driverSrc);
  const mod = writeTempModule(solutionSrc, label);
  const staleWrites = [];
  const releaseChecks = [];
  const thrown = [];
  const onUnhandled = (e) => thrown.push(`unhandled: ${e && e.stack ? e.stack : e}`);
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);

  const workerClients = [];
  const runs = [];
  try {
    for (let w = 0; w < WORKERS; w++) {
      const fns = { ...(await import(`${mod.url}?worker=${w}`)) };
      const raw = await Promise.all(urls.slice(0, nodes).map(connect));
      workerClients.push(...raw);
      const belief = { token: null, ended: new Set() };

      // release_frees: an EVAL/EVALSHA whose first argument is a token this worker has
      // stopped believing in (released() or lost() come just before a release) must leave
      // the key without that token, on that node, once it has settled.
      const clients = raw.map((client, node) =>
        new Proxy(client, {
          get(target, prop) {
            const v = target[prop];
            if (typeof v !== 'function') return v;
            if (!['eval', 'evalSha', 'EVAL', 'EVALSHA'].includes(prop)) return v.bind(target);
            return (...args) => {
              const opts = args[1] || {};
              const tok = opts.arguments && opts.arguments[0];
              const p = v.apply(target, args);
              if (belief.ended.has(String(tok)) && opts.keys && opts.keys[0] === key) {
                const check = p.then(
                  () => observers[node].get(key),
                  () => observers[node].get(key),
                ).then((now) => ({ worker: w, node, token: String(tok), still: now === String(tok) }));
                releaseChecks.push(check);
              }
              return p;
            };
          },
        }),
      );

      const labApi = {
        redis: clients[0],
        clients,
        fns,
        params,
        worker: w,
        sleep: async (ms) => {
          if (aborted) throw new Aborted('the lab ran past its deadline');
          await sleep(ms);
          if (aborted) throw new Aborted('the lab ran past its deadline');
        },
        random: Math.random,
        held(token, untilMs) {
          belief.token = String(token);
          record(w, 'held', { token: String(token), until: typeof untilMs === 'number' ? untilMs : null });
        },
        released() {
          if (belief.token) belief.ended.add(belief.token);
          record(w, 'released', { token: belief.token });
        },
        lost(reason) {
          if (belief.token) belief.ended.add(belief.token);
          record(w, 'lost', { token: belief.token, reason });
        },
        failed(reason) { record(w, 'failed', { reason }); },
        note(text) { record(w, 'note', { text }); },
        resource: {
          async write(k, value, opts = {}) {
            // no_stale_write as the simulator judges it: by the lock's ACTUAL state.
            if (lab.id === 'watchdog' || lab.id === 'fencing') {
              const holder = await observers[0].get(key);
              if (holder !== belief.token) staleWrites.push({ worker: w, value, holder, mine: belief.token });
            }
            const reply = await resource.write(w, k, value, opts);
            record(w, 'write', { key: k, value, reply });
            return reply;
          },
          read: (k) => resource.read(k),
        },
      };
      runs.push(
        Promise.resolve()
          .then(() => worker(labApi))
          .then(
            () => record(w, 'done'),
            (e) => record(w, e instanceof Aborted ? 'aborted' : 'error', { error: e && e.stack ? e.stack : String(e) }),
          ),
      );
    }
    const all = Promise.all(runs);
    const inTime = await Promise.race([all.then(() => true), sleep(deadlineMs).then(() => false)]);
    if (!inTime) {
      aborted = true;
      await Promise.race([all, sleep(3000)]);
    }
    // Let the last release checks settle while the observers are still connected.
    const releases = await Promise.all(releaseChecks);
    const checks = judge(lab, history, { resource, staleWrites, releases, thrown, inTime, deadlineMs });
    return { checks, ms: Date.now() - startedAt, history };
  } finally {
    aborted = true;
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
    mod.remove();
    await Promise.all([...workerClients, ...observers].map((c) => c.disconnect().catch(() => {})));
  }
}

// ---------------------------------------------------------------------------------------
// The checks, as the lab makes them (lab.toml `checks`), read from the history.
// ---------------------------------------------------------------------------------------

function judge(lab, history, { resource, staleWrites, releases, thrown, inTime, deadlineMs }) {
  const out = [];
  const add = (name, ok, detail = '') => out.push({ name, ok, detail });
  const by = (type) => history.filter((e) => e.type === type);

  const errors = by('error');
  add('no_error', errors.length === 0 && thrown.length === 0,
    [...errors.map((e) => `worker ${e.worker}: ${e.error.split('\n').slice(0, 3).join(' | ')}`), ...thrown].join('; '));

  const done = new Set(by('done').map((e) => e.worker));
  add('all_done', done.size === WORKERS,
    done.size === WORKERS ? '' : `${WORKERS - done.size} worker(s) unfinished${inTime ? '' : ` after ${deadlineMs} ms`}`);

  // Beliefs: from held to the next released/lost of that worker, or to its until if earlier.
  const intervals = [];
  const open = new Map();
  for (const e of history) {
    if (e.type === 'held') open.set(e.worker, e);
    if ((e.type === 'released' || e.type === 'lost') && open.has(e.worker)) {
      const h = open.get(e.worker);
      open.delete(e.worker);
      const endT = h.until !== null && h.until < e.t ? h.until : e.t;
      const endKey = h.until !== null && h.until < e.t ? h.until * 1e6 - 1 : e.t * 1e6 + e.seq;
      intervals.push({ worker: e.worker, token: h.token, start: h.t * 1e6 + h.seq, end: endKey, from: h.t, to: endT });
    }
  }
  const holds = lab.checks.includes('mutual_exclusion') || lab.checks.includes('unique_tokens') || lab.id !== 'idempotency';
  if (holds) add('held_at_least_once', intervals.length > 0, `${intervals.length} holds`);

  if (lab.checks.includes('mutual_exclusion')) {
    const bad = [];
    for (let i = 0; i < intervals.length; i++) {
      for (let j = i + 1; j < intervals.length; j++) {
        const a = intervals[i], b = intervals[j];
        if (a.worker !== b.worker && a.start < b.end && b.start < a.end) {
          bad.push(`worker ${a.worker} [${a.from}..${a.to}] and worker ${b.worker} [${b.from}..${b.to}]`);
        }
      }
    }
    add('mutual_exclusion', bad.length === 0, bad.slice(0, 3).join('; '));
  }

  if (lab.checks.includes('unique_tokens') || lab.id === 'redlock') {
    const tokens = by('held').map((e) => e.token);
    add('unique_tokens', new Set(tokens).size === tokens.length, `${tokens.length} tokens`);
  }

  if (lab.checks.includes('release_frees')) {
    const ended = by('released').length + by('lost').length;
    const still = releases.filter((r) => r.still);
    const ok = still.length === 0 && releases.length >= ended;
    add('release_frees', ok,
      `${releases.length} releases seen for ${ended} ended holds` +
        (still.length ? `; key still held after release by worker ${still[0].worker} on node ${still[0].node}` : ''));
  }

  // Without attacks, a right solution never loses the lock (the #36 watchdog did, at the
  // first renewal, on real node-redis).
  if (lab.id !== 'idempotency') {
    const lost = by('lost');
    add('never_lost_without_attacks', lost.length === 0,
      lost.slice(0, 2).map((e) => `worker ${e.worker}: ${e.reason}`).join('; '));
  }

  if (lab.checks.includes('no_stale_write')) {
    const writes = resource.writes.filter((w) => w.accepted);
    let maxToken = null;
    const backwards = [];
    for (const w of writes) {
      if (w.token !== undefined && maxToken !== null && w.token < maxToken) backwards.push(w);
      if (w.token !== undefined) maxToken = maxToken === null ? w.token : Math.max(maxToken, w.token);
    }
    add('no_stale_write', staleWrites.length === 0 && backwards.length === 0 && writes.length > 0,
      `${writes.length} writes accepted` +
        (staleWrites.length ? `; worker ${staleWrites[0].worker} wrote while the key held ${staleWrites[0].holder}` : '') +
        (backwards.length ? `; token ${backwards[0].token} accepted after a higher one` : ''));
  }
  if (lab.id === 'fencing') {
    const refused = resource.writes.filter((w) => !w.accepted);
    const numeric = resource.writes.every((w) => typeof w.token === 'number');
    add('fences_are_numbers_and_accepted', refused.length === 0 && numeric,
      refused.length ? `refused: ${refused[0].token} (${typeof refused[0].token})` : `${resource.writes.length} writes`);
  }

  if (lab.checks.includes('no_double_effect') || lab.checks.includes('effect_done')) {
    const charges = resource.writes.filter((w) => w.accepted && w.key === 'charge');
    add('charged_exactly_once', charges.length === 1, `${charges.length} charge(s) accepted`);
    const outcomes = by('note').map((e) => e.text);
    const charged = outcomes.filter((t) => t.includes("'charged'")).length;
    add('one_charged_others_done', charged === 1 && outcomes.length === WORKERS, outcomes.join('; '));
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Every built-in lab with its reference solution.
// ---------------------------------------------------------------------------------------

/** Runs all six labs; calls report(name, ok, detail) per check. */
export async function runAllLabs(urls, report) {
  for (const id of LABS) {
    const lab = readLab(id);
    const { checks, ms } = await runLab(lab, lab.solutionSrc, urls, `lab-${id}`);
    for (const c of checks) report(`lab ${id} (${lab.solutionFile}): ${c.name}`, c.ok, c.detail);
    report(`lab ${id}: ran in ${ms} ms`, true, '');
  }
  await runControls(urls, report);
}

/**
 * The checks have teeth: the #36 watchdog, which passes a number where node-redis v4
 * wants a string, must fail here on the real client (every renewal throws, so the lock
 * is lost at the first one). Built from the shipped solution, so it follows it.
 */
export async function runControls(urls, report) {
  const lab = readLab('watchdog');
  const wrong = lab.solutionSrc.replace(/String\(ttlMs\)/g, 'ttlMs');
  if (wrong === lab.solutionSrc) {
    report('control: the #36 watchdog (number argument) can be built from labs/watchdog/solution.js', false,
      'String(ttlMs) not found in the solution');
    return;
  }
  const { checks } = await runLab(lab, wrong, urls, 'control-watchdog-number', { deadlineMs: 3000 });
  const caught = checks.filter((c) => !c.ok).map((c) => c.name);
  report('control: the #36 watchdog (arguments: [token, ttlMs]) fails on real node-redis', caught.includes('never_lost_without_attacks'),
    caught.length ? `broken: ${caught.join(', ')}` : 'it passed every check');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { runAlone } = await import('./servers.mjs');
  await runAlone(5, (servers, report) => runAllLabs(servers.urls, report));
}

// Browser check of labs/sandbox.html: the same conversation as the Node host, in a
// real browser, through a sandboxed iframe and its Worker.
//
// Usage: node labs/browsertest.mjs [--firefox]   (exit 0 when every check passes)
// Needs chromedriver + chromium (default) or geckodriver + firefox on PATH. It writes
// a test page to a temporary directory, drives it over WebDriver, and compares the
// token drawn from a seed with the one the Node host draws: one seed, one run, in
// every host.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const read = (p) => readFileSync(here(p), 'utf8');
const firefox = process.argv.includes('--firefox');
const SEED = '12345678901234567890';

const sources = {
  harness: read('./harness.js'),
  sandbox: read('./sandbox.html'),
  driver: read('./set-nx/driver.js'),
  solution: read('./set-nx/solution.js'),
  broken: 'export async function acquire(redis, key, ttlMs) {\n  return 1;\n}\n\nexport async function release(redis, key, token) {\n  await redis.del(key;\n}\n',
  probe: [
    'export async function acquire() {',
    '  console.log(typeof fetch, typeof XMLHttpRequest, typeof importScripts, typeof indexedDB,',
    '    typeof WebSocket, typeof Worker, Date.now());',
    '  self.setTimeout(() => {}, 7);',
    '  return null;',
    '}',
    'export async function release() {}',
  ].join('\n'),
  thrower: 'export async function acquire(redis, key) {\n  const v = await redis.get(key);\n  return v.length;\n}\nexport async function release() {}\n',
};

// The page plays a one-worker simulator and leaves its findings as JSON in #out.
function page() {
  const script = `
const D = ${JSON.stringify(sources).replace(/</g, '\\u003c')};
const SEED = ${JSON.stringify(SEED)};
const frame = document.createElement('iframe');
frame.setAttribute('sandbox', 'allow-scripts');
frame.srcdoc = D.sandbox;
let waiting = null;
addEventListener('message', (e) => {
  if (e.source !== frame.contentWindow) return;
  // The frame hands over a direct line to its worker: the answers come on it.
  if (e.data && e.data.type === 'port' && e.ports[0]) {
    port = e.ports[0];
    port.onmessage = (m) => deliver(m.data);
    return;
  }
  deliver(e.data);
});
let port = null;
const deliver = (data) => { const w = waiting; waiting = null; if (w) w(data); };
const ask = (m) => new Promise((res) => {
  waiting = res;
  if (port && m.type !== 'init') port.postMessage(m); else frame.contentWindow.postMessage(m, '*');
});
const params = { key: 'lock', ttl_ms: 300, jobs: 2, work_ms: [10, 20], retry_ms: [5, 10] };
const init = (learner) => ask({ type: 'init', lab: 'set-nx', functions: ['acquire', 'release'], params, driver: D.driver, learner });
const input = (now_ms, ev) => ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms, ev });
frame.onload = async () => {
  const r = {};
  try {
    frame.contentWindow.postMessage({ type: 'harness', source: D.harness }, '*');
    r.init = await init(D.solution);
    r.run = await ask({ type: 'run' });
    let a = await input(1000, { kind: 'start', seed: SEED });
    r.token = a.actions[0].args[2];
    const flow = []; let clock = 1000; const q = [];
    r.all = [];
    const take = (acts) => { for (const x of acts) {
      r.all.push(x);
      flow.push(x.a === 'cmd' ? 'cmd ' + x.args[0] : x.a);
      if (x.a === 'cmd') q.push({ kind: 'reply', id: x.id, value: x.args[0] === 'SET' ? 'OK' : 1 });
      if (x.a === 'timer') q.push({ kind: 'timer', id: x.id, ms: x.ms });
    } };
    take(a.actions);
    while (q.length) { const ev = q.shift(); clock += ev.ms || 1; take((await input(clock, ev)).actions); }
    r.flow = flow.join(',');
    r.syntax = await init(D.broken);
    await init(D.probe); await ask({ type: 'run' });
    r.probe = await input(4321.5, { kind: 'start', seed: '1' });
    await init(D.thrower); await ask({ type: 'run' });
    a = await input(1000, { kind: 'start', seed: '1' });
    r.thrower = await input(1001, { kind: 'reply', id: a.actions[0].id, value: null });
  } catch (e) { r.exception = String(e); }
  document.getElementById('out').textContent = JSON.stringify(r);
};
document.body.appendChild(frame);`;
  return `<!doctype html><html><body><pre id="out"></pre><script>${script}</script></body></html>`;
}

/** The Node host's actions for the same one-worker run, to compare. */
async function nodeRun() {
  const child = spawn(process.execPath, [here('./node-host.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ask = async (m) => { child.stdin.write(`${JSON.stringify(m)}\n`); return JSON.parse((await lines.next()).value); };
  await ask({ type: 'init', lab: 'set-nx', functions: ['acquire', 'release'], params: { key: 'lock', ttl_ms: 300, jobs: 2, work_ms: [10, 20], retry_ms: [5, 10] }, driver: sources.driver, learner: sources.solution });
  await ask({ type: 'run' });
  // The page's simulator, step for step: SET → 'OK', EVAL → 1, timers due at once.
  const all = [];
  const queue = [];
  let clock = 1000;
  const take = (actions) => {
    for (const x of actions) {
      all.push(x);
      if (x.a === 'cmd') queue.push({ kind: 'reply', id: x.id, value: x.args[0] === 'SET' ? 'OK' : 1 });
      if (x.a === 'timer') queue.push({ kind: 'timer', id: x.id, ms: x.ms });
    }
  };
  take((await ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: clock, ev: { kind: 'start', seed: SEED } })).actions);
  while (queue.length) {
    const ev = queue.shift();
    clock += ev.ms || 1;
    take((await ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: clock, ev })).actions);
  }
  child.stdin.end();
  return all;
}

const freePort = () => new Promise((resolve) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function runInBrowser(url) {
  const port = await freePort();
  const driver = firefox
    ? spawn('geckodriver', ['--port', String(port)], { stdio: 'ignore' })
    : spawn(process.env.CHROMEDRIVER || 'chromedriver', [`--port=${port}`], { stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const res = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    return (await res.json()).value;
  };
  try {
    for (let k = 0; k < 100; k++) {
      try { await call('GET', '/status'); break; } catch { await sleep(100); }
    }
    const capabilities = firefox
      ? { browserName: 'firefox', 'moz:firefoxOptions': { args: ['-headless'] } }
      : { browserName: 'chrome', 'goog:chromeOptions': { args: ['--headless=new', '--no-sandbox', '--disable-gpu'] } };
    const session = await call('POST', '/session', { capabilities: { alwaysMatch: capabilities } });
    if (!session || !session.sessionId) throw new Error(`no WebDriver session: ${JSON.stringify(session)}`);
    const sid = session.sessionId;
    try {
      await call('POST', `/session/${sid}/url`, { url });
      for (let k = 0; k < 300; k++) {
        const text = await call('POST', `/session/${sid}/execute/sync`, { script: 'return document.getElementById("out").textContent', args: [] });
        if (text) return JSON.parse(text);
        await sleep(100);
      }
      throw new Error('the page did not finish within 30 s');
    } finally {
      await call('DELETE', `/session/${sid}`);
    }
  } finally {
    driver.kill();
  }
}

let failures = 0;
function check(name, ok, detail) {
  if (ok) console.log(`ok   ${name}`);
  else { failures++; console.log(`FAIL ${name}\n     ${JSON.stringify(detail)}`); }
}

const dir = mkdtempSync(join(tmpdir(), 'lockstep-lab-'));
try {
  writeFileSync(join(dir, 'page.html'), page());
  const r = await runInBrowser(`file://${join(dir, 'page.html')}`);
  const browser = firefox ? 'firefox' : 'chromium';
  check(`${browser}: no exception`, !r.exception, r.exception);
  check(`${browser}: init and run answer ready`, r.init?.type === 'ready' && r.run?.type === 'ready', [r.init, r.run]);
  check(`${browser}: one worker runs SET, held, work, released, EVAL twice, then done`,
    r.flow === 'cmd SET,held,timer,released,cmd EVAL,cmd SET,held,timer,released,cmd EVAL,done', r.flow);
  const inNode = await nodeRun();
  check(`${browser}: the seed gives the same token as in Node`, r.token === inNode[0]?.args?.[2], [r.token, inNode[0]]);
  check(`${browser}: the whole run's actions equal the Node host's`,
    JSON.stringify(r.all) === JSON.stringify(inNode), [r.all, inNode]);
  check(`${browser}: a syntax error is reported on the learner's line 6`,
    r.syntax?.type === 'error' && r.syntax.line === 6 && /SyntaxError/.test(r.syntax.message), r.syntax);
  const log = r.probe?.actions?.[0];
  check(`${browser}: no fetch, XHR, importScripts, indexedDB, WebSocket, Worker; Date.now() is now_ms`,
    log?.a === 'log' && log.text === 'undefined undefined undefined undefined undefined undefined 4321', log);
  const err = r.thrower?.actions?.[0];
  const timer = r.probe?.actions?.[1];
  check(`${browser}: the worker's own setTimeout is the simulated one`, timer?.a === 'timer' && timer.ms === 7, r.probe);
  check(`${browser}: a TypeError in acquire is an error action on line 3`,
    err?.a === 'error' && /TypeError/.test(err.message) && err.line === 3, r.thrower);
} catch (e) {
  failures++;
  console.log(`FAIL ${e.message}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
process.exit(failures ? 1 : 0);

// Self-test of the lab harness and its Node host, without the Rust simulator.
//
// Usage: node labs/selftest.mjs   (exit 0 when every check passes, 1 otherwise)
//
// It spawns `node labs/node-host.mjs`, speaks docs/labs.md to it and plays a tiny
// hand-written simulator for one worker: SET answers 'OK', EVAL answers 1, timers are
// due at once (the clock jumps by their delay). It checks the actions each answer
// carries, and the things a learner relies on: line numbers of errors, Date.now(),
// seeded tokens, "stuck", the action limit, timeouts, crashes, require.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const read = (p) => readFileSync(here(p), 'utf8');

const SET_NX_PARAMS = { key: 'lock', ttl_ms: 300, jobs: 2, work_ms: [10, 20], retry_ms: [5, 10] };
const setNxDriver = read('./set-nx/driver.js');
const setNxSolution = read('./set-nx/solution.js');

let failures = 0;
function check(name, ok, detail) {
  if (ok) {
    console.log(`ok   ${name}`);
  } else {
    failures++;
    console.log(`FAIL ${name}${detail === undefined ? '' : `\n     ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`}`);
  }
}

/** The host as a request/answer pair: one JSON line out, one JSON line back. */
function startHost() {
  const child = spawn(process.execPath, [here('./node-host.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const next = waiting.shift();
    if (next) next(JSON.parse(line));
  });
  return {
    ask(msg) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin.write(`${JSON.stringify(msg)}\n`);
      });
    },
    close() { child.stdin.end(); },
  };
}

function initMsg(learner, params = SET_NX_PARAMS, driver = setNxDriver) {
  return { type: 'init', lab: 'set-nx', functions: ['acquire', 'release'], params, driver, learner };
}

/**
 * Plays one worker to the end: replies to every command with `answer(args)`, fires
 * every timer at once. Returns the actions of all answers, in order.
 */
async function playWorker(host, { pid = 1, seed = '1', answer, maxSteps = 200, now = 1000 }) {
  const all = [];
  const queue = [];
  let clock = now;
  const input = async (ev) => {
    const reply = await host.ask({ type: 'input', pid, worker: 0, inc: 0, now_ms: clock, ev });
    for (const a of reply.actions) {
      all.push(a);
      if (a.a === 'cmd') queue.push({ kind: 'reply', id: a.id, value: answer(a.args) });
      if (a.a === 'timer') queue.push({ kind: 'timer', id: a.id, ms: a.ms });
    }
  };
  await input({ kind: 'start', seed });
  for (let step = 0; step < maxSteps && queue.length; step++) {
    const ev = queue.shift();
    if (ev.kind === 'timer') {
      clock += ev.ms;
      await input({ kind: 'timer', id: ev.id });
    } else {
      clock += 1;
      await input(ev);
    }
  }
  return all;
}

const redisAnswers = (args) => (args[0] === 'SET' ? 'OK' : args[0] === 'EVAL' ? 1 : null);

async function firstAnswer(host, learner, seed = '1', nowMs = 1000, params = SET_NX_PARAMS, driver = setNxDriver) {
  const init = await host.ask(initMsg(learner, params, driver));
  if (init.type !== 'ready') return init;
  await host.ask({ type: 'run' });
  return host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: nowMs, ev: { kind: 'start', seed } });
}

async function main() {
  const host = startHost();

  // 1. The reference solution, one worker, two jobs: the whole conversation.
  check('init answers ready', (await host.ask(initMsg(setNxSolution))).type === 'ready');
  check('run answers ready', (await host.ask({ type: 'run' })).type === 'ready');
  const actions = await playWorker(host, { answer: redisAnswers });
  const shape = actions.map((a) => (a.a === 'cmd' ? `cmd ${a.args[0]}` : a.a));
  const job = ['cmd SET', 'held', 'timer', 'released', 'cmd EVAL'];
  check('one worker: SET, held, work, released, EVAL, twice, then done',
    JSON.stringify(shape) === JSON.stringify([...job, ...job, 'done']), shape);
  const set = actions.find((a) => a.a === 'cmd');
  // node-redis v4 writes the expiry first, then NX.
  check('SET carries PX ttl NX and a 32-hex-digit token',
    set && set.args.length === 6 && set.args[3] === 'PX' && set.args[4] === '300' && set.args[5] === 'NX' &&
    /^[0-9a-f]{32}$/.test(set.args[2]), set);
  const held = actions.find((a) => a.a === 'held');
  check('held names the token and ends at t0 + ttl (t0 = now_ms at start)',
    held && held.token === set.args[2] && held.until_ms === 1300, held);
  const evalCmd = actions.filter((a) => a.a === 'cmd')[1];
  check('release sends EVAL with 1 key and the token',
    evalCmd && evalCmd.args[0] === 'EVAL' && evalCmd.args[2] === '1' && evalCmd.args[3] === 'lock' &&
    evalCmd.args[4] === set.args[2], evalCmd);
  const timer = actions.find((a) => a.a === 'timer');
  check('work time is drawn from work_ms', timer && timer.ms >= 10 && timer.ms <= 20, timer);
  check('after done, input is ignored',
    (await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 5000, ev: { kind: 'timer', id: 1 } })).actions.length === 0);

  // 2. Seeds: same seed → same token, another seed → another token.
  const tokenOf = async (seed) => {
    const a = await firstAnswer(host, setNxSolution, seed);
    return a.actions[0].args[2];
  };
  const t1 = await tokenOf('12345678901234567890');
  const t2 = await tokenOf('12345678901234567890');
  const t3 = await tokenOf('12345678901234567891');
  check('the same seed gives the same token', t1 === t2, [t1, t2]);
  check('another seed gives another token', t1 !== t3, [t1, t3]);

  // 2b. The driver's work and retry times come from its own stream: a learner who
  // draws more random numbers faces the same schedule for one seed.
  const timersOf = async (learner) => {
    await host.ask(initMsg(learner));
    await host.ask({ type: 'run' });
    const acts = await playWorker(host, { answer: redisAnswers, seed: '77' });
    return acts.filter((x) => x.a === 'timer').map((x) => x.ms);
  };
  const plain = await timersOf(setNxSolution);
  const greedy = await timersOf(setNxSolution.replace('const reply =', 'for (let k = 0; k < 9; k++) Math.random();\n  const reply ='));
  check('extra Math.random() in the learner leaves the driver\'s times unchanged',
    plain.length === 2 && JSON.stringify(plain) === JSON.stringify(greedy), [plain, greedy]);

  // 3. A syntax error names the learner's line.
  const broken = 'export async function acquire(redis, key, ttlMs) {\n  return 1;\n}\n\nexport async function release(redis, key, token) {\n  await redis.del(key;\n}\n';
  const syntax = await host.ask(initMsg(broken));
  check('a syntax error on line 6 is reported on line 6',
    syntax.type === 'error' && syntax.line === 6 && /SyntaxError/.test(syntax.message), syntax);

  // 3b. An import the harness cannot read names its line too.
  const badImport = await host.ask(initMsg('// a lab\n\nimport { a-b } from "crypto";\nexport async function acquire() {}\n'));
  check('an unreadable import is reported on its line (3)',
    badImport.type === 'error' && badImport.line === 3 && /import/.test(badImport.message), badImport);

  // 4. A missing function is named.
  const missing = await host.ask(initMsg('export async function acquire() { return null; }\n'));
  check('a missing release is named', missing.type === 'error' && /release/.test(missing.message), missing);

  // 5. The clock: Date.now(), new Date(), performance.now() read now_ms.
  const clockLearner = [
    'export async function acquire() {',
    '  console.log(Date.now(), new Date().getTime(), performance.now(), new Date(0).getTime(), typeof Date());',
    '  return null;',
    '}',
    'export async function release() {}',
  ].join('\n');
  const clock = await firstAnswer(host, clockLearner, '1', 4321.5);
  const log = clock.actions && clock.actions[0];
  check('Date.now() and new Date() are now_ms in whole ms, performance.now() is now_ms; new Date(0) is 0',
    log && log.a === 'log' && log.text === '4321 4321 4321.5 0 string', log);

  // 6. An exception in the learner's code: error action at the learner's line.
  const thrower = [
    'export async function acquire(redis, key) {',
    '  const v = await redis.get(key);',
    '  return v.length;',
    '}',
    'export async function release() {}',
  ].join('\n');
  let a = await firstAnswer(host, thrower);
  a = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1001, ev: { kind: 'reply', id: a.actions[0].id, value: null } });
  const err = a.actions[0];
  check('a TypeError in acquire is an error action on line 3',
    a.actions.length === 1 && err.a === 'error' && /TypeError/.test(err.message) && err.line === 3, a.actions);

  // 7. A promise that never settles: stuck, once.
  a = await firstAnswer(host, read('../tests/labs/set-nx/fail/never-settles.js'));
  check('a promise that never settles is reported as stuck in acquire',
    a.actions.length === 1 && a.actions[0].a === 'stuck' && a.actions[0].waiting === 'acquire', a.actions);

  // 8. A loop that never waits stops at the action limit with an error.
  const flood = 'export async function acquire(redis, key) {\n  for (;;) redis.get(key);\n}\nexport async function release() {}\n';
  a = await firstAnswer(host, flood);
  const last = a.actions[a.actions.length - 1];
  check('a loop of commands without await stops at 1000 actions with an error',
    a.actions.length === 1000 && last.a === 'error' && /more than 1000/.test(last.message), [a.actions.length, last]);

  // 9. A timeout rejects with the documented text; the redis error reply too.
  const catcher = [
    'export async function acquire(redis, key) {',
    '  try { await redis.get(key); } catch (e) { console.log(e.message); }',
    '  try { await redis.incr(key); } catch (e) { console.log(e); }',
    '  return null;',
    '}',
    'export async function release() {}',
  ].join('\n');
  a = await firstAnswer(host, catcher, '1', 1000, { ...SET_NX_PARAMS, timeout_ms: 50 });
  check('commands carry timeout_ms from params', a.actions[0].timeout_ms === 50, a.actions[0]);
  a = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1050, ev: { kind: 'timeout', id: a.actions[0].id } });
  check('a timeout rejects with "Timeout: no reply from Redis node 1 (clients[0]) within 50 ms"',
    a.actions[0].a === 'log' && a.actions[0].text === 'Timeout: no reply from Redis node 1 (clients[0]) within 50 ms', a.actions);
  a = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1051, ev: { kind: 'reply', id: a.actions[1].id, error: 'ERR value is not an integer or out of range' } });
  check('an error reply rejects with the Redis text; console.log(err) shows it without a stack',
    a.actions[0].a === 'log' && a.actions[0].text === 'Error: ERR value is not an integer or out of range', a.actions);

  // 9b. An error reply nobody catches is an error at the line that sent the command
  // (the harness keeps only the nearest stack frames where a command is sent).
  for (const [what, call] of [['incr', 'await redis.incr(key);'], ['eval', "await redis.eval('return 1', { keys: [key], arguments: [] });"]]) {
    const uncaught = ['export async function acquire(redis, key) {', '  const x = 1;', `  ${call}`, '  return null;', '}',
      'export async function release() {}'].join('\n');
    a = await firstAnswer(host, uncaught);
    a = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1001, ev: { kind: 'reply', id: a.actions[0].id, error: 'ERR boom' } });
    check(`an uncaught error reply to ${what} is an error action on the learner's line 3`,
      a.actions.length === 1 && a.actions[0].a === 'error' && /ERR boom/.test(a.actions[0].message) && a.actions[0].line === 3, a.actions);
  }

  // 9c. A timeout nobody catches, inside Promise.all (as in a Redlock acquire): an error
  // at the learner's line that sent the command, not one without a line (#40 item 8).
  const all = ['export async function acquire(redis, key) {', '  const x = 1;',
    '  await Promise.all([redis.get(key)]);', '  return null;', '}', 'export async function release() {}'].join('\n');
  a = await firstAnswer(host, all, '1', 1000, { ...SET_NX_PARAMS, timeout_ms: 50 });
  a = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1050, ev: { kind: 'timeout', id: a.actions[0].id } });
  check("an uncaught timeout in Promise.all is an error action on the learner's line 3",
    a.actions.length === 1 && a.actions[0].a === 'error' && /Timeout: no reply/.test(a.actions[0].message) && a.actions[0].line === 3, a.actions);

  // 9d. A run the page draws (`run` with `watch`: Run, a replay): each command says the
  // learner's line that sent it, also after an await and through a helper of theirs;
  // the next plain run (Try to break it's trials) reads no stack and says no line.
  const sender = ['export async function acquire(redis, key) {', '  await redis.get(key);',
    "  await put(redis, key);", "  return 'token';", '}', 'export async function release() {}',
    "async function put(redis, key) {", "  await redis.set(key, 'v');", '}'].join('\n');
  await host.ask(initMsg(sender));
  check('run with watch answers ready', (await host.ask({ type: 'run', watch: true })).type === 'ready');
  const watched = (await playWorker(host, { answer: redisAnswers })).filter((x) => x.a === 'cmd');
  check("in watch mode each cmd carries the learner's line: GET on 2, SET in the helper on 8",
    JSON.stringify(watched.map((x) => [x.args[0], x.line])) === '[["GET",2],["SET",8],["GET",2],["SET",8]]', watched);
  await host.ask({ type: 'run' });
  const plainCmds = (await playWorker(host, { answer: redisAnswers })).filter((x) => x.a === 'cmd');
  check('without watch no cmd carries a line',
    plainCmds.length === 4 && plainCmds.every((x) => !('line' in x)), plainCmds);
  await host.ask(initMsg(setNxSolution));
  await host.ask({ type: 'run', watch: true });
  const solutionCmds = (await playWorker(host, { answer: redisAnswers })).filter((x) => x.a === 'cmd');
  const solutionLines = setNxSolution.split('\n');
  check("the set-nx solution's SET and EVAL point at their redis.set and redis.eval lines",
    solutionCmds.length === 4 && solutionCmds.every((x) => Number.isInteger(x.line) &&
      solutionLines[x.line - 1].includes(x.args[0] === 'SET' ? 'redis.set(' : 'redis.eval(')), solutionCmds);

  // 10. A crash: no actions, and the dead incarnation's events are ignored.
  a = await firstAnswer(host, setNxSolution);
  const crashed = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1001, ev: { kind: 'crash' } });
  const late = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1002, ev: { kind: 'reply', id: a.actions[0].id, value: 'OK' } });
  check('a crash answers no actions and later replies are ignored', crashed.actions.length === 0 && late.actions.length === 0);
  const restart = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 1, now_ms: 1003, ev: { kind: 'start', seed: '9' } });
  check('a restart (inc + 1) runs a fresh worker', restart.actions.length === 1 && restart.actions[0].args[0] === 'SET', restart.actions);

  // 11. require: only crypto and redis.
  a = await firstAnswer(host, "const fs = require('fs');\nexports.acquire = async () => null;\nexports.release = async () => {};\n");
  check("require('fs') fails with a clear message on line 1",
    a.type === 'error' && a.message === "Error: require('fs') is not available in a lab: it gives node:crypto and redis" && a.line === 1, a);

  // 12. setInterval re-arms itself with the same id until cleared.
  const ticker = [
    'export async function acquire() {',
    '  let n = 0;',
    '  await new Promise((done) => { const t = setInterval(() => { if (++n === 3) { clearInterval(t); done(); } }, 5); });',
    '  console.log(`ticks ${n}`);',
    '  return null;',
    '}',
    'export async function release() {}',
  ].join('\n');
  a = await firstAnswer(host, ticker);
  const id = a.actions[0].id;
  const t1a = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1005, ev: { kind: 'timer', id } });
  await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1010, ev: { kind: 'timer', id } });
  const t3a = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1015, ev: { kind: 'timer', id } });
  check('setInterval re-arms with the same id', t1a.actions.length === 1 && t1a.actions[0].a === 'timer' && t1a.actions[0].id === id, t1a.actions);
  check('clearInterval stops it', t3a.actions[0].a === 'log' && t3a.actions[0].text === 'ticks 3' && !t3a.actions.some((x) => x.a === 'timer' && x.id === id), t3a.actions);

  // 13. Nothing of the host: no process, fetch or real require, even through constructors.
  const escape = [
    'export async function acquire() {',
    "  let through;",
    "  try { through = typeof this.constructor.constructor('return process')(); } catch (e) { through = 'blocked'; }",
    '  console.log(typeof process, typeof fetch, typeof LockstepLab, through);',
    '  return null;',
    '}',
    'export async function release() {}',
  ].join('\n');
  a = await firstAnswer(host, escape);
  check('the learner sees no process, fetch or LockstepLab, not even through Function',
    a.actions[0].a === 'log' && a.actions[0].text === 'undefined undefined undefined blocked', a.actions[0]);

  // 14b. A learner's own `const sleep` is legal, and the global timers are the simulated ones.
  const ownSleep = [
    'const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));',
    'export async function acquire() {',
    '  globalThis.setTimeout(() => {}, 7);',
    "  queueMicrotask(() => console.log('%s took %d ms (100%%)', 'acquire', 12, { ok: true }));",
    '  await sleep(5);',
    '  return null;',
    '}',
    'export async function release() {}',
  ].join('\n');
  a = await firstAnswer(host, ownSleep);
  check('`const sleep = …` compiles; globalThis.setTimeout and setTimeout send timer actions; queueMicrotask runs; console formats like util.format',
    a.type === 'actions' && JSON.stringify(a.actions.map((x) => [x.a, x.ms ?? x.text])) === '[["timer",7],["timer",5],["log","acquire took 12 ms (100%) { ok: true }"]]', a);

  // 14c. An ES module is strict, as in Node: an undeclared variable is an error, not a
  // global that every worker would share.
  a = await firstAnswer(host, 'export async function acquire() {\n  held = true;\n  return null;\n}\nexport async function release() {}\n');
  check('an ES module is strict: assigning an undeclared variable is a ReferenceError on its line',
    a.actions[0].a === 'error' && /ReferenceError/.test(a.actions[0].message) && a.actions[0].line === 2, a.actions);

  // 15. The client's methods: the Redis command each one sends, and its reply's shape.
  const methods = [
    'export async function acquire(redis, key) {',
    '  console.log(await redis.pExpire(key, 100), await redis.pExpire(key, 100));',
    "  console.log(await redis.del(['a', 'b']), await redis.exists('a', 'b'));",
    "  await redis.evalSha('abc', { keys: ['k'], arguments: ['1', '2'] });",
    '  await redis.set(key, 5, { XX: true, EX: 10, GET: true });',
    "  await redis.sendCommand(['PTTL', key]);",
    "  console.log(await redis.SETNX(key, 'x'), await redis.SCRIPT_LOAD('return 1'));",
    "  try { await redis.set(key, undefined); } catch (e) { console.log(e.message); }",
    '  return null;',
    '}',
    'export async function release() {}',
  ].join('\n');
  let pexpires = 0;
  const replies = { PEXPIRE: () => (pexpires++ === 0 ? 1 : 0), DEL: () => 2, EXISTS: () => 1, SETNX: () => 0, SCRIPT: () => 'f00d' };
  await host.ask(initMsg(methods));
  await host.ask({ type: 'run' });
  const seen = await playWorker(host, {
    answer: (args) => (replies[args[0]] ? replies[args[0]]() : null),
    maxSteps: 9,
  });
  const sent = seen.filter((x) => x.a === 'cmd').map((x) => x.args.join(' '));
  // As node-redis v4: exists('a', 'b') sends its first key only; SET's expiry before XX.
  check('client methods send the Redis commands of node-redis v4', JSON.stringify(sent) === JSON.stringify([
    'PEXPIRE lock 100', 'PEXPIRE lock 100', 'DEL a b', 'EXISTS a', 'EVALSHA abc 1 k 1 2',
    'SET lock 5 EX 10 XX GET', 'PTTL lock', 'SETNX lock x', 'SCRIPT LOAD return 1']), sent);
  const logs = seen.filter((x) => x.a === 'log').map((x) => x.text);
  check('pExpire and SETNX give true/false, del and exists numbers, a bad argument a TypeError',
    logs[0] === 'true false' && logs[1] === '2 1' && logs[2] === 'false f00d' && logs[3] === 'Invalid argument type', logs);

  // 16. The protected resource: write and read actions, replies handed back as sent.
  const resourceDriver = [
    'async function worker(lab) {',
    "  const w = await lab.resource.write('file', 'v1', { token: 7 });",
    "  const r = await lab.resource.read('file');",
    '  lab.note(JSON.stringify([w, r]));',
    '}',
  ].join('\n');
  a = await firstAnswer(host, setNxSolution, '1', 1000, SET_NX_PARAMS, resourceDriver);
  const write = a.actions[0];
  check('resource.write sends op, key, value and the token',
    write.a === 'resource' && write.op === 'write' && write.key === 'file' && write.value === 'v1' && write.token === 7, write);
  a = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1001, ev: { kind: 'resource', id: write.id, reply: { rejected: 'stale token' } } });
  const readAction = a.actions[0];
  check('resource.read sends op and key', readAction.a === 'resource' && readAction.op === 'read' && readAction.key === 'file', a.actions);
  a = await host.ask({ type: 'input', pid: 1, worker: 0, inc: 0, now_ms: 1002, ev: { kind: 'resource', id: readAction.id, reply: { value: 'v0', version: 3 } } });
  check('resource replies resolve as sent, then the worker is done',
    a.actions.length === 2 && a.actions[0].text === '[{"rejected":"stale token"},{"value":"v0","version":3}]' && a.actions[1].a === 'done', a.actions);

  // 17. Every graded variant with one worker and no fault: the passing ones (ESM,
  // CommonJS, export lists, EVALSHA) run to done; the code_error ones fail as code.
  const single = { SET: 'OK', SETNX: 1, PEXPIRE: 1, GET: null, EVAL: 1, EVALSHA: 1, SCRIPT: 'e3b0c442', DEL: 1 };
  for (const lab of ['set-nx', 'safe-release']) {
    const driver = read(`./${lab}/driver.js`);
    const variants = [`./${lab}/solution.js`];
    for (const kind of ['pass', 'fail']) {
      for (const f of readdirSync(here(`../tests/labs/${lab}/${kind}`))) variants.push(`../tests/labs/${lab}/${kind}/${f}`);
    }
    for (const f of variants) {
      const src = read(f);
      const expect = (src.match(/^\/\/ expect: (\w+)/) || [])[1] || 'pass';
      const name = f.replace(/^\.\.\//, '');
      const init = await host.ask(initMsg(src, SET_NX_PARAMS, driver));
      if (expect === 'code_error' && init.type === 'error') {
        check(`${name}: code_error at init, with a line`, Number.isInteger(init.line), init);
        continue;
      }
      await host.ask({ type: 'run' });
      const acts = await playWorker(host, { answer: (args) => single[args[0]] ?? null, seed: '3' });
      const end = acts[acts.length - 1];
      if (expect === 'code_error') {
        check(`${name}: ends in error or stuck`, end && (end.a === 'error' || end.a === 'stuck'), end);
      } else {
        check(`${name}: one worker without faults runs to done`, end && end.a === 'done', acts.slice(-3));
      }
    }
  }

  // 18. Paste what you have: an ES module with top-level await and its own createClient,
  // and the lesson's CommonJS with require('redis') and require('crypto').createHash.
  const pasted = [
    "import { createClient } from 'redis';",
    "import { randomUUID, createHash } from 'node:crypto';",
    'const client = createClient({ url: process_url() });',
    'function process_url() { return "redis://localhost:6379"; }',
    'await client.connect();',
    "const sha = createHash('sha1').update('return 1').digest('hex');",
    'export async function acquire(redis, key, ttlMs) {',
    "  console.log(sha, client === redis, (await client.set(key, randomUUID(), { NX: true, PX: ttlMs })));",
    '  return null;',
    '}',
    'export async function release() {}',
  ].join('\n');
  check('an ES module with top-level await and require(redis) initialises', (await host.ask(initMsg(pasted))).type === 'ready');
  await host.ask({ type: 'run' });
  const pastedRun = await firstAnswer(host, pasted);
  check('createClient() says what it is, and gives a client that sends to node 1', pastedRun.actions.some((x) => x.a === 'log' && /createClient\(\): in a lab you do not connect/.test(x.text)) &&
    pastedRun.actions.some((x) => x.a === 'cmd' && x.node === 0 && x.args[0] === 'SET'), pastedRun.actions);
  const awaitsForEver = 'await new Promise(() => {});\nexport async function acquire() {}\nexport async function release() {}\n';
  const never = await host.ask(initMsg(awaitsForEver));
  check('a top-level await that never settles is said at init', never.type === 'error' && /top-level await never finished/.test(never.message), never);

  host.close();

  // 14. prepareSource keeps every line of every lab file where it was.
  const context = vm.createContext({});
  vm.runInContext(read('./harness.js'), context);
  const files = [];
  for (const lab of ['set-nx', 'safe-release']) {
    files.push(`./${lab}/starter.js`, `./${lab}/solution.js`, `./${lab}/driver.js`);
    for (const kind of ['pass', 'fail']) {
      for (const f of readdirSync(here(`../tests/labs/${lab}/${kind}`))) files.push(`../tests/labs/${lab}/${kind}/${f}`);
    }
  }
  for (const f of files) {
    const src = read(f);
    const out = context.LockstepLab.prepareSource(src).source.split('\n');
    const lines = src.split('\n');
    const moved = lines.findIndex((line, k) => !/\b(export|import)\b/.test(line) && line !== out[k]);
    check(`prepareSource keeps the lines of ${f.replace(/^\.\.\//, '')}`, out.length === lines.length && moved < 0, moved);
  }
  // Tricky sources: `export`/`import` inside strings, templates, regexes, comments and
  // property names stay; real ones at the top level go, and the names are found.
  const tricky = [
    "// import x from 'y'; export default 1",
    "/* export { nothing } */ const note = `export ${'{'} ${ { a: 'import' }.a } }`;",
    "const re = /export|import/g; const obj = { export: 1 }; obj.export = 2;",
    "import {",
    "  randomBytes as rb,",
    "} from 'node:crypto';",
    "export const acquire = async () => [rb(2).toString('hex'), note, re.source, obj.export];",
    "function release() { return 'r'; }",
    "export { release };",
    "export default 42;",
  ].join('\n');
  const prepared = context.LockstepLab.prepareSource(tricky);
  const outLines = prepared.source.split('\n');
  check('prepareSource leaves strings, templates, regexes, comments and properties alone',
    outLines[0] === tricky.split('\n')[0] && outLines[1] === tricky.split('\n')[1] && outLines[2] === tricky.split('\n')[2], outLines);
  check('a multi-line import keeps its line count',
    outLines.length === tricky.split('\n').length && outLines[6].startsWith('       const acquire'), outLines);
  check('export lists and export default are recorded',
    prepared.exportNames.release === 'release' && prepared.exportNames.default === '__dflt_export', prepared.exportNames);
  const factory = vm.runInContext(context.LockstepLab.wrapLearner(tricky, ['acquire', 'release', 'default']), context);
  context.LockstepLab.createHarness({ learnerFactory: factory, driverFactory: factory, functions: [], drain: async () => {} });
  const mod = { exports: {} };
  // An ES module's body is an async function (top-level await): its module comes as a promise.
  const got = await factory(mod, mod.exports, (name) => ({ randomBytes: () => ({ toString: () => `bytes of ${name}` }) }));
  const acquired = await got.acquire();
  check('the wrapped tricky source runs and returns its functions and default',
    JSON.stringify(acquired) === JSON.stringify(['bytes of node:crypto', "export { import }", 'export|import', 2]) &&
    got.release() === 'r' && got.default === 42, [acquired, got.default]);

  const head = context.LockstepLab.wrapLearner('export const x = 1;', ['x']).split('\n')[0];
  check('the wrapper head is one line', head.endsWith(`${context.LockstepLab.WRAPPER_HEAD.slice(1)} 'use strict';`) && !head.includes('\n'), head);


  console.log(failures ? `${failures} check(s) failed` : 'all checks passed');
  process.exit(failures ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

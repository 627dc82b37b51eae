// The lesson's JavaScript on the real stack (#36: "each lesson code block that defines a
// function, in both languages").
//
// Every ```js / ```javascript block of content/en/*.md and content/nb/*.md is read from
// the markdown (never copied here), and:
//   - every block must parse as an ES module (`node --check` on a temp .mjs) and its
//     imports must resolve from this folder's node_modules;
//   - a block that defines a function a lab uses (acquire, release, startWatchdog, write,
//     chargeOnce) is imported and run once against a real redis-server with real
//     node-redis v4, and must behave: a token, the key gone after release, and so on;
//   - a block marked `// lab: <id>` also runs as that lab's solution, through the lab's
//     driver with its checks (labs.mjs), once per distinct code;
//   - the others are only parsed; the report says why.
// The §8 node-redlock example is redlock.mjs's.

import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { ROOT, makeResource, readLab, runLab, writeTempModule } from './labs.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** [{file, line, lang, code}] of every js block, in file order. */
export function jsBlocks(langs = ['en', 'nb']) {
  const out = [];
  for (const lang of langs) {
    const dir = join(ROOT, 'content', lang);
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.md')).sort()) {
      const lines = readFileSync(join(dir, name), 'utf8').split('\n');
      for (let i = 0; i < lines.length; i++) {
        const open = lines[i].match(/^(\s*)(`{3,})(js|javascript)\s*$/);
        if (!open) continue;
        const body = [];
        let j = i + 1;
        while (j < lines.length && !lines[j].trim().startsWith(open[2])) body.push(lines[j++]);
        out.push({ file: `content/${lang}/${name}`, line: i + 1, lang, code: body.join('\n') + '\n' });
        i = j;
      }
    }
  }
  return out;
}

/** Names of the functions a block defines: `function name(` or `const name = async`. */
export function definedFunctions(code) {
  const names = new Set();
  for (const m of code.matchAll(/\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(/g)) names.add(m[1]);
  for (const m of code.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*=\s*async\b/g)) names.add(m[1]);
  return [...names];
}

/** Parses code as an ES module and resolves its imports. Returns null or the problem. */
function parseProblem(code, label) {
  const mod = writeTempModule(code, label);
  try {
    const r = spawnSync(process.execPath, ['--check', fileURLToPath(mod.url)], { encoding: 'utf8', timeout: 10000 });
    if (r.status !== 0) return `does not parse as an ES module: ${(r.stderr || '').split('\n').filter(Boolean).slice(-1)[0] || r.error}`;
  } finally {
    mod.remove();
  }
  for (const m of code.matchAll(/^\s*import\s+(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
    try {
      import.meta.resolve(m[1]);
    } catch (e) {
      return `import '${m[1]}' does not resolve: ${e.message}`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// One real run per kind of block: what the function promises, against a real server.
// Each returns a list of [what, ok, detail].
// ---------------------------------------------------------------------------------------

const RELEASE =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

async function checkAcquireRelease(fns, redis, other) {
  const key = 'lock:lesson';
  const out = [];
  const token = await fns.acquire(redis, key, 5000);
  out.push(['acquire gives a token (a string)', typeof token === 'string' && token.length > 0, String(token)]);
  out.push(['the key holds that token, with a TTL', (await other.get(key)) === token && (await other.pTTL(key)) > 0, '']);
  out.push(['a second acquire is refused (null)', (await fns.acquire(other, key, 5000)) === null, '']);
  await fns.release(other, key, 'not-the-token');
  out.push(['release with another token leaves the key', (await other.get(key)) === token, '']);
  const reply = await fns.release(redis, key, token);
  out.push(['release frees the key', (await other.get(key)) === null, `release answered ${JSON.stringify(reply)}`]);
  // A restarted node forgets its scripts: SCRIPT FLUSH, then the same cycle again.
  await other.sendCommand(['SCRIPT', 'FLUSH']);
  const t2 = await fns.acquire(redis, key, 5000);
  await fns.release(redis, key, t2);
  out.push(['after SCRIPT FLUSH, acquire and release still work', typeof t2 === 'string' && (await other.get(key)) === null, '']);
  return out;
}

async function checkWatchdog(fns, redis, other) {
  const key = 'lock:lesson';
  const ttl = 300;
  const out = [];
  const token = 'lesson-token-1';
  const sentAt = Date.now();
  await redis.set(key, token, { NX: true, PX: ttl });
  const dog = await fns.startWatchdog(redis, key, token, ttl, sentAt);
  await sleep(ttl * 2.5); // several renewals; without them the key is long gone
  const left = dog.remainingMs();
  out.push([`after ${ttl * 2.5} ms (TTL ${ttl}) remainingMs() > 0`, left > 0, `remainingMs() = ${left}`]);
  const pttl = await other.pTTL(key);
  out.push(['the key still holds the token, renewed', (await other.get(key)) === token && pttl > 0, `PTTL ${pttl}`]);
  // Someone else's now: the next renewal answers 0, and remainingMs() says 0.
  await other.set(key, 'someone-else', { PX: 5000 });
  await sleep(ttl);
  out.push(['once the key is someone else\'s, remainingMs() is 0', dog.remainingMs() === 0, `remainingMs() = ${dog.remainingMs()}`]);
  out.push(['its renewal left the other holder\'s key alone', (await other.get(key)) === 'someone-else', '']);
  dog.stop();
  // stop() before the release, as the lab's driver does.
  const t2 = 'lesson-token-2';
  await other.del(key);
  await redis.set(key, t2, { NX: true, PX: ttl });
  const dog2 = await fns.startWatchdog(redis, key, t2, ttl, Date.now());
  dog2.stop();
  await redis.eval(RELEASE, { keys: [key], arguments: [t2] });
  await sleep(ttl / 2);
  out.push(['after stop() and release the key stays gone', (await other.get(key)) === null, '']);
  return out;
}

async function checkFencing(fns, redis, other) {
  const key = 'lock:lesson';
  const out = [];
  const g1 = await fns.acquire(redis, key, 5000);
  out.push(['acquire gives {token, fence} with a number fence', !!g1 && typeof g1.fence === 'number' && g1.fence > 0, JSON.stringify(g1)]);
  out.push(['a second acquire is refused (null)', (await fns.acquire(other, key, 5000)) === null, '']);
  await redis.eval(RELEASE, { keys: [key], arguments: [String(g1.token)] });
  const g2 = await fns.acquire(other, key, 5000);
  out.push(['the next grant has a bigger fence', !!g2 && g2.fence > g1.fence, `${g1.fence} then ${g2 && g2.fence}`]);
  const storage = makeResource({ fencing: true });
  const w = (k, v, o) => storage.write(0, k, v, o);
  const r2 = await fns.write({ write: w, read: storage.read }, 'report', 'new', g2.fence);
  const r1 = await fns.write({ write: w, read: storage.read }, 'report', 'stale', g1.fence);
  out.push(['write passes the fence: the newer is accepted, the stale refused', r2.accepted === true && !!r1.rejected, `${JSON.stringify(r2)} ${JSON.stringify(r1)}`]);
  return out;
}

async function checkChargeOnce(fns, redis) {
  const provider = makeResource({ idempotency: true });
  const p = { write: (k, v, o) => provider.write(0, k, v, o), read: provider.read };
  const first = await Promise.all([0, 1, 2].map(() => fns.chargeOnce(redis, p, 'invoice-7')));
  const later = await fns.chargeOnce(redis, p, 'invoice-7');
  const charges = provider.writes.filter((w) => w.accepted).length;
  return [
    ['three at once: one charged, the others busy or done', first.filter((x) => x === 'charged').length === 1 &&
      first.every((x) => ['charged', 'busy', 'done'].includes(x)), first.join(', ')],
    ['a later call answers done', later === 'done', later],
    ['the provider charged once', charges === 1, `${charges} charge(s)`],
  ];
}

const RUNNERS = [
  { needs: ['startWatchdog'], run: checkWatchdog },
  { needs: ['chargeOnce'], run: checkChargeOnce },
  { needs: ['acquire', 'write'], run: checkFencing },
  { needs: ['acquire', 'release'], run: checkAcquireRelease },
];

/** The code without comments and blank lines: en and nb blocks that agree run once. */
const bare = (code) => code.split('\n').map((l) => l.split(' // ')[0].trimEnd())
  .filter((l) => l.trim() && !l.trim().startsWith('//')).join('\n');

/** Runs every block; report(name, ok, detail) per check. urls: at least one server. */
export async function runLesson(urls, report) {
  const redis = createClient({ url: urls[0] });
  const other = createClient({ url: urls[0] });
  for (const c of [redis, other]) c.on('error', () => {});
  await redis.connect();
  await other.connect();
  const labRuns = new Set();
  try {
    for (const b of jsBlocks()) {
      const where = `${b.file}:${b.line}`;
      const fnNames = definedFunctions(b.code);
      const problem = parseProblem(b.code, `parse-${b.lang}`);
      report(`lesson ${where}: parses as an ES module, imports resolve`, !problem, problem || '');
      const runner = RUNNERS.find((r) => r.needs.every((n) => fnNames.includes(n)));
      if (!fnNames.length || !runner) {
        const why = !fnNames.length
          ? 'defines no function'
          : `defines ${fnNames.join(', ')}, which no lab uses`;
        const extra = /\brequire\(/.test(b.code) ? ' (CommonJS: `require` is not defined in an ES module)' : '';
        const redlock = /from ["']redlock["']/.test(b.code) ? '; the §8 example is run by redlock.mjs' : '';
        console.log(`  parsed only: ${where}: ${why}${extra}${redlock}`);
        continue;
      }
      if (problem) continue;
      console.log(`  ran: ${where}: ${fnNames.join(', ')}`);
      await other.sendCommand(['FLUSHALL']);
      const mod = writeTempModule(b.code, `block-${b.lang}`);
      try {
        const fns = await import(mod.url);
        for (const [what, ok, detail] of await runner.run(fns, redis, other)) report(`lesson ${where}: ${what}`, ok, detail);
      } catch (e) {
        report(`lesson ${where}: runs without throwing`, false, e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : String(e));
      } finally {
        mod.remove();
      }
      // The block as the lab's solution, through the lab's driver and checks.
      const id = (b.code.match(/^\/\/ lab:\s*(\S+)/) || [])[1];
      if (id && !labRuns.has(`${id}\n${bare(b.code)}`)) {
        labRuns.add(`${id}\n${bare(b.code)}`);
        const lab = readLab(id);
        const { checks, ms } = await runLab(lab, b.code, urls, `lesson-${id}`);
        for (const c of checks) report(`lesson ${where} as lab ${id}: ${c.name}`, c.ok, c.detail);
        console.log(`  ${where} ran as lab ${id} in ${ms} ms`);
      } else if (id) {
        console.log(`  ${where}: same code (comments aside) as a block already run as lab ${id}`);
      }
    }
  } finally {
    await Promise.all([redis, other].map((c) => c.disconnect().catch(() => {})));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { runAlone } = await import('./servers.mjs');
  await runAlone(5, (servers, report) => runLesson(servers.urls, report));
}

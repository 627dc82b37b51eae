// lab: safe-release
// what: Array.prototype.push patched to drop the driver's held actions
const realPush = Array.prototype.push;
Array.prototype.push = function (...items) {
  return realPush.apply(this, items.filter((x) => !(x && (x.a === 'held' || x.a === 'failed'))));
};

import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  return (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK' ? token : null;
}

// Wrong on purpose: deletes whatever lock is there.
export async function release(redis, key, token) {
  await redis.del(key);
}

// lab: safe-release
// what: Date.now patched so the driver's deadlines stretch into the past (no belief ever overlaps)
const realNow = Date.now;
Date.now = () => realNow() - 1e9;

import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  return (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK' ? token : null;
}

// Wrong on purpose: deletes whatever lock is there.
export async function release(redis, key, token) {
  await redis.del(key);
}

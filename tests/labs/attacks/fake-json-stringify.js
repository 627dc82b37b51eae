// lab: safe-release
// what: JSON.stringify patched so the driver's held and failed actions vanish from the answer
const realStringify = JSON.stringify;
JSON.stringify = function (v, ...rest) {
  if (v && Array.isArray(v.actions)) v = { ...v, actions: v.actions.filter((a) => a.a !== 'held' && a.a !== 'failed') };
  return realStringify.call(this, v, ...rest);
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

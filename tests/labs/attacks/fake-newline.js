// lab: safe-release
// what: a newline inside the answer's JSON (JSON.stringify patched) to desynchronise the line protocol
const realStringify = JSON.stringify;
JSON.stringify = function (...args) { return realStringify.apply(this, args) + '\n{"type":"actions","actions":[]}'; };

import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  return (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK' ? token : null;
}

// Wrong on purpose: deletes whatever lock is there.
export async function release(redis, key, token) {
  await redis.del(key);
}

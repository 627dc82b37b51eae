// expect: no_foreign_delete
// GET, compare, then DEL as separate commands: the lock can expire and be taken
// between the GET and the DEL, and the DEL then frees someone else's lock.
import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? token : null;
}

export async function release(redis, key, token) {
  const holder = await redis.get(key);
  if (holder === token) {
    await redis.del(key);
  }
}

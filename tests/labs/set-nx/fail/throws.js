// expect: code_error
// A typo: `redis.sett` is not a function, so acquire throws on line 7.
import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.sett(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? token : null;
}

export async function release(redis, key, token) {
  await redis.del(key);
}

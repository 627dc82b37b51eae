// expect: freed_after_crash
// SET NX without PX: if the holder crashes, nobody ever frees the lock.
import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.set(key, token, { NX: true });
  return reply === 'OK' ? token : null;
}

export async function release(redis, key, token) {
  await redis.eval(
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end",
    { keys: [key], arguments: [token] });
}

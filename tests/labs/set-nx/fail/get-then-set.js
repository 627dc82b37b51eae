// expect: mutual_exclusion
// Check with GET, then SET: two workers can both see "free" before either sets.
import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const holder = await redis.get(key);
  if (holder !== null) return null;
  await redis.set(key, token, { PX: ttlMs });
  return token;
}

export async function release(redis, key, token) {
  await redis.eval(
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end",
    { keys: [key], arguments: [token] });
}

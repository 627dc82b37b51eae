// expect: all_done
// The same fencing token for every grant: the first write sets the highest to 1, and
// every later write, 1 again, is "not higher": refused, for ever.
import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? { token, fence: 1 } : null;
}

export async function write(resource, key, value, fence) {
  return resource.write(key, value, { token: fence });
}

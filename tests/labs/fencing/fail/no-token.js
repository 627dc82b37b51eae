// expect: all_done
// The right fence, never sent: the resource cannot tell a stale write from a fresh one,
// so it refuses every write without a token, and the workers redo their jobs for ever.
import crypto from 'node:crypto';

const ACQUIRE = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('INCR', KEYS[2]) end return 0";

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const fence = await redis.eval(ACQUIRE, { keys: [key, `${key}:fence`], arguments: [token, String(ttlMs)] });
  return fence > 0 ? { token, fence } : null;
}

export async function write(resource, key, value, fence) {
  return resource.write(key, value);
}

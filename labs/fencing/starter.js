// Lab: fencing tokens
//
// Write acquire and write. A worker can stall for longer than the lock's TTL between
// taking the lock and writing: it wakes up still believing it holds the lock. Only the
// resource can stop its write, and only if every write carries a number that every new
// grant of the lock makes bigger: a fencing token.
import crypto from 'node:crypto';

/**
 * Tries ONCE to take the lock `key` for `ttlMs` ms.
 * Returns { token, fence } if you got it, or null.
 */
export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');

  // TODO 1: take the lock AND count the grant in ONE Lua script, with the counter key
  //   `${key}:fence`:
  //     if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  //       return redis.call('INCR', KEYS[2])
  //     end
  //     return 0
  //   await redis.eval(script, { keys: [key, `${key}:fence`], arguments: [token, String(ttlMs)] })
  //   → the fencing token (1, 2, 3, …), or 0 when the lock was taken.
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  if (reply !== 'OK') return null;

  // TODO 2: return the number the script gave as the fence.
  return { token, fence: null };
}

/** Writes `value` to `key` on the resource; returns what resource.write answers. */
export async function write(resource, key, value, fence) {
  // TODO 3: hand the fencing token to the resource, so it can refuse a stale write:
  //   resource.write(key, value, { token: fence })
  return resource.write(key, value);
}

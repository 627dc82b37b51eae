// expect: release_frees
// The starter as given: release does nothing, so every lock stays until its TTL runs out.
// Lab: release only your own lock
//
// acquire is written for you. Write release. A worker's work can last longer than
// the lock's TTL: by the time it calls release, its lock may have expired and another
// worker may hold the key with ITS token. Deleting that would free someone else's lock.
import crypto from 'node:crypto';

/** Takes the lock `key` for `ttlMs` ms; returns our random token, or null if taken. */
export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? token : null;
}

/** Frees the lock `key`, but ONLY if its value is still `token`. */
export async function release(redis, key, token) {
  // TODO: GET the key, compare with the token, DEL only if equal: but as ONE step.
  //   Two separate commands leave a gap in which the lock can expire and be taken.
  //   A Lua script runs inside Redis with nothing in between:
  //     const script = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  //                       return redis.call('DEL', KEYS[1])
  //                     else return 0 end`;
  //     await redis.eval(script, { keys: [key], arguments: [token] });
}

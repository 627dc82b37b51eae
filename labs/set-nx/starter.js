// Lab: a lock with SET NX
//
// Write acquire and release. Several workers run this same file at the same time,
// each with its own `redis` client. Only one of them may hold the lock at a time.

/**
 * Tries ONCE to take the lock `key` for `ttlMs` milliseconds.
 * Returns a token (a string only this worker knows) if you got the lock, or null.
 */
export async function acquire(redis, key, ttlMs) {
  // TODO 1: make a token that no other worker can have: 16 random bytes in hex.
  //   (crypto.randomBytes(16).toString('hex') works here.)
  const token = 'TODO';

  // TODO 2: set the key to the token, but ONLY if it does not exist yet (NX),
  //   and with an expiry of ttlMs milliseconds (PX), in ONE command, so a worker
  //   that crashes cannot keep the lock for ever:
  //   await redis.set(key, token, { NX: true, PX: ttlMs })  → 'OK' or null
  const reply = null;

  // TODO 3: return the token if the reply was 'OK', otherwise null.
  return null;
}

/**
 * Frees the lock, but only if it is still ours (the value is still our token):
 * our lock may have expired and been taken by another worker meanwhile.
 */
export async function release(redis, key, token) {
  // TODO 4: check and delete in ONE step, with a Lua script run by Redis:
  //   if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end
  //   await redis.eval(script, { keys: [key], arguments: [token] })
}

// expect: mutual_exclusion
// A lock on the first master only: 1 of 5 nodes is no majority, so each "held" is a
// belief the nodes do not back (and when that master goes down, nobody gets the lock).
import crypto from 'node:crypto';

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`;

export async function acquire(clients, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  try {
    const reply = await clients[0].set(key, token, { NX: true, PX: ttlMs });
    return reply === 'OK' ? { token, validity: ttlMs - 5 } : null;
  } catch (e) {
    return null;
  }
}

export async function release(clients, key, token) {
  await clients[0].eval(RELEASE, { keys: [key], arguments: [token] }).catch(() => {});
}

// Reference solution for the "safe-release" lab.
import crypto from 'node:crypto';

// GET, compare and DEL run inside Redis as one step: no other command can come between.
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
else
  return 0
end`;

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? token : null;
}

export async function release(redis, key, token) {
  // 1 if we deleted our lock, 0 if it was no longer ours (expired, maybe taken).
  return redis.eval(RELEASE_SCRIPT, { keys: [key], arguments: [token] });
}

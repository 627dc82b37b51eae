// Reference solution for the "set-nx" lab.
import crypto from 'node:crypto';

// Deletes the key only if it still holds our token: GET and DEL in one atomic step.
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
else
  return 0
end`;

export async function acquire(redis, key, ttlMs) {
  // 128 random bits: no two workers (or two turns of one worker) get the same token.
  const token = crypto.randomBytes(16).toString('hex');
  // NX: only if nobody holds it; PX: it frees itself if we crash. One command, so
  // there is no moment where the key exists without its expiry.
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? token : null;
}

export async function release(redis, key, token) {
  await redis.eval(RELEASE_SCRIPT, { keys: [key], arguments: [token] });
}

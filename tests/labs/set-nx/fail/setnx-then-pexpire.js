// expect: freed_after_crash
// SETNX then PEXPIRE as two commands: a crash between them leaves a key with no expiry.
import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const created = await redis.sendCommand(['SETNX', key, token]);
  if (created !== 1) return null;
  await redis.pExpire(key, ttlMs);
  return token;
}

export async function release(redis, key, token) {
  await redis.eval(
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end",
    { keys: [key], arguments: [token] });
}

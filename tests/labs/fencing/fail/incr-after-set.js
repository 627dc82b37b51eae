// expect: no_stale_write
// SET NX PX, then INCR as a second command: a stall between them lets the lock expire and
// another worker take it and write; the stalled worker's INCR then gives it a number
// bigger than the new holder's, and its stale write is accepted.
import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  if ((await redis.set(key, token, { NX: true, PX: ttlMs })) !== 'OK') return null;
  const fence = await redis.incr(`${key}:fence`);
  return { token, fence };
}

export async function write(resource, key, value, fence) {
  return resource.write(key, value, { token: fence });
}

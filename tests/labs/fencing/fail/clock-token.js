// expect: no_stale_write
// The time as the fencing token: it grows on one machine, but A's clock runs 3 s ahead
// of B's and C's, so A's stale write carries a BIGGER number than the newer holder's.
import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? { token, fence: Date.now() } : null;
}

export async function write(resource, key, value, fence) {
  return resource.write(key, value, { token: fence });
}

// lab: safe-release
// what: Object.prototype.toJSON makes every action serialise as a harmless log line
Object.defineProperty(Object.prototype, 'toJSON', {
  value() { return this && (this.a === 'held' || this.a === 'failed') ? { a: 'log', text: 'hidden' } : this; },
  configurable: true, writable: true,
});

import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  return (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK' ? token : null;
}

// Wrong on purpose: deletes whatever lock is there.
export async function release(redis, key, token) {
  await redis.del(key);
}

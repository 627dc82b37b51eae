// The same algorithm as a CommonJS module.
const crypto = require('node:crypto');

const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0';

async function release(clients, key, token) {
  await Promise.allSettled(clients.map((c) => c.eval(RELEASE, { keys: [key], arguments: [token] })));
}

async function acquire(clients, key, ttlMs) {
  const token = crypto.randomUUID();
  const start = Date.now();
  const replies = await Promise.allSettled(clients.map((c) => c.set(key, token, { NX: true, PX: ttlMs })));
  const votes = replies.filter((r) => r.status === 'fulfilled' && r.value === 'OK').length;
  const validity = ttlMs - (Date.now() - start) - Math.round(ttlMs / 100) - 2;
  if (votes > clients.length / 2 && validity > 0) return { token, validity };
  await release(clients, key, token);
  return null;
}

module.exports = { acquire, release };

// expect: code_error
// Promise.all rejects as soon as one master times out: with a master down, acquire throws.
import crypto from 'node:crypto';

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`;

export async function acquire(clients, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const start = Date.now();
  const replies = await Promise.all(clients.map((c) => c.set(key, token, { NX: true, PX: ttlMs })));
  const votes = replies.filter((r) => r === 'OK').length;
  const validity = ttlMs - (Date.now() - start) - 5;
  if (votes >= 3 && validity > 0) return { token, validity };
  await release(clients, key, token);
  return null;
}

export async function release(clients, key, token) {
  await Promise.allSettled(clients.map((c) => c.eval(RELEASE, { keys: [key], arguments: [token] })));
}

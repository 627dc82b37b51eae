// Asks the masters one after the other (slower, so the validity left is smaller, and
// it is computed from the real elapsed time).
import crypto from 'node:crypto';

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`;

export async function acquire(clients, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const start = Date.now();
  let votes = 0;
  for (const c of clients) {
    try {
      if ((await c.set(key, token, { NX: true, PX: ttlMs })) === 'OK') votes++;
    } catch (e) {
      // a master that is down or slow: no vote
    }
  }
  const validity = ttlMs - (Date.now() - start) - (Math.round(ttlMs * 0.01) + 2);
  if (votes >= 3 && validity > 0) return { token, validity };
  await release(clients, key, token);
  return null;
}

export async function release(clients, key, token) {
  for (const c of clients) {
    try {
      await c.eval(RELEASE, { keys: [key], arguments: [token] });
    } catch (e) {
      // down: its key will expire
    }
  }
}

// Reference solution for the "redlock" lab.
import crypto from 'node:crypto';

const RELEASE = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
end
return 0`;
const DRIFT_FACTOR = 0.01;

export async function acquire(clients, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const start = Date.now();
  // Every master at once; a master that is down answers with a rejection (timeout).
  const replies = await Promise.allSettled(
    clients.map((c) => c.set(key, token, { NX: true, PX: ttlMs })),
  );
  const votes = replies.filter((r) => r.status === 'fulfilled' && r.value === 'OK').length;
  const drift = Math.round(DRIFT_FACTOR * ttlMs) + 2;
  const validity = ttlMs - (Date.now() - start) - drift;
  if (votes >= Math.floor(clients.length / 2) + 1 && validity > 0) {
    return { token, validity };
  }
  // No lock: free whatever we did get, on every master.
  await release(clients, key, token);
  return null;
}

export async function release(clients, key, token) {
  await Promise.allSettled(
    clients.map((c) => c.eval(RELEASE, { keys: [key], arguments: [token] })),
  );
}

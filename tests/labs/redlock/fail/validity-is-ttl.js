// expect: mutual_exclusion
// Claims the whole TTL as validity, ignoring the time the round of SETs took (a dead
// master costs a 50 ms timeout): the worker keeps believing after the keys expired.
import crypto from 'node:crypto';

const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0`;

export async function acquire(clients, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const replies = await Promise.allSettled(clients.map((c) => c.set(key, token, { NX: true, PX: ttlMs })));
  const votes = replies.filter((r) => r.status === 'fulfilled' && r.value === 'OK').length;
  if (votes >= 3) return { token, validity: ttlMs };
  await release(clients, key, token);
  return null;
}

export async function release(clients, key, token) {
  await Promise.allSettled(clients.map((c) => c.eval(RELEASE, { keys: [key], arguments: [token] })));
}

// Lab: Redlock on five masters
//
// `clients` is an array of five node-redis-like clients, one per independent master.
// A request that gets no answer within 50 ms rejects: use Promise.allSettled, not
// Promise.all, or one dead master will fail every attempt.
import crypto from 'node:crypto';

const RELEASE = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
end
return 0`;

export async function acquire(clients, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  // TODO:
  //  1. note the start time;
  //  2. SET key token NX PX ttlMs on every master at once;
  //  3. count the masters that answered 'OK';
  //  4. validity = ttlMs - elapsed - drift (drift: 1 % of the TTL plus 2 ms);
  //  5. with a majority (3 of 5) and validity > 0, return { token, validity };
  //     otherwise release on EVERY master (even those that seemed to fail) and return null.
  const reply = await clients[0].set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? { token, validity: ttlMs } : null;
}

export async function release(clients, key, token) {
  // TODO: run the check-and-delete script on every master, and tolerate the ones that
  // are down.
  await clients[0].eval(RELEASE, { keys: [key], arguments: [token] });
}

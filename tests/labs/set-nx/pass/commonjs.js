// A correct solution written as CommonJS, with require and a UUID token.
const { randomUUID } = require('node:crypto');

const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

async function acquire(redis, key, ttlMs) {
  const token = randomUUID();
  return (await redis.set(key, token, { PX: ttlMs, NX: true })) === 'OK' ? token : null;
}

module.exports = {
  acquire,
  release: (redis, key, token) => redis.eval(RELEASE, { keys: [key], arguments: [token] }),
};

// A correct solution written as CommonJS (exports.f = …).
const crypto = require('crypto');

const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

exports.acquire = async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('base64');
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? token : null;
};

exports.release = async function release(redis, key, token) {
  return redis.eval(RELEASE_SCRIPT, { keys: [key], arguments: [token] });
};

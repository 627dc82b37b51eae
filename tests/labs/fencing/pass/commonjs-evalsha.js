// A correct solution as CommonJS: the acquire script loaded once and run by its SHA1
// (EVAL when the node answers NOSCRIPT), the token a UUID, and a write that says why a
// refused write was refused.
const { randomUUID } = require('node:crypto');

const ACQUIRE = `
local granted = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', tonumber(ARGV[2]))
if not granted then return 0 end
return redis.call('INCR', KEYS[2])`;
let sha = null;

async function acquire(redis, key, ttlMs) {
  const token = randomUUID();
  const options = { keys: [key, key + ':fence'], arguments: [token, String(ttlMs)] };
  let fence;
  try {
    sha = sha || (await redis.scriptLoad(ACQUIRE));
    fence = await redis.evalSha(sha, options);
  } catch (err) {
    if (!String(err.message).startsWith('NOSCRIPT')) throw err;
    fence = await redis.eval(ACQUIRE, options);
  }
  return fence === 0 ? null : { token, fence };
}

async function write(resource, key, value, fence) {
  const reply = await resource.write(key, value, { token: fence });
  if (reply.rejected) console.log(`refused with fence ${fence}: ${reply.rejected}`);
  return reply;
}

module.exports = { acquire, write };

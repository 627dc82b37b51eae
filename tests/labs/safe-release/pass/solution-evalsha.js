// A correct release through EVALSHA: load the script once, run it by its SHA1, and
// fall back to EVAL when the node answers NOSCRIPT (a restarted node forgets scripts).
import crypto from 'node:crypto';

const RELEASE_SCRIPT =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
let releaseSha = null; // module-level: one per worker process

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? token : null;
}

export async function release(redis, key, token) {
  const options = { keys: [key], arguments: [token] };
  if (releaseSha === null) releaseSha = await redis.scriptLoad(RELEASE_SCRIPT);
  try {
    return await redis.evalSha(releaseSha, options);
  } catch (err) {
    if (!String(err.message).startsWith('NOSCRIPT')) throw err;
    return redis.eval(RELEASE_SCRIPT, options);
  }
}

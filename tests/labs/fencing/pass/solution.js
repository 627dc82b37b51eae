// Reference solution for the "fencing" lab.
import crypto from 'node:crypto';

// SET NX PX and INCR in ONE script: a grant and its fencing token cannot come apart.
// The counter starts at 0, so INCR gives 1 or more and 0 can mean "not granted".
const ACQUIRE_SCRIPT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return 0`;

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const fence = await redis.eval(ACQUIRE_SCRIPT, {
    keys: [key, `${key}:fence`],
    arguments: [token, String(ttlMs)],
  });
  return fence > 0 ? { token, fence } : null;
}

export async function write(resource, key, value, fence) {
  // The resource compares the fencing token with the highest it has accepted.
  return resource.write(key, value, { token: fence });
}

// expect: unique_tokens
// Every worker uses the same token, so a check-and-delete cannot tell their locks apart.
export async function acquire(redis, key, ttlMs) {
  const reply = await redis.set(key, 'locked', { NX: true, PX: ttlMs });
  return reply === 'OK' ? 'locked' : null;
}

export async function release(redis, key, token) {
  await redis.eval(
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end",
    { keys: [key], arguments: [token] });
}

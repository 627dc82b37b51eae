// lab: set-nx
// what: acquire says yes with a token it never stored (a belief with nothing behind it)
// expect: mutual_exclusion
export async function acquire(redis, key, ttlMs) {
  return `made-up-${Math.random()}`;
}

export async function release(redis, key, token) {
  await redis.eval("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end",
    { keys: [key], arguments: [token] });
}

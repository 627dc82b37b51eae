// expect: no_stale_write
// setTimeout where setInterval was meant: one extension, then the lock runs out while
// the work, and its writes, go on.
const EXTEND = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

export function startWatchdog(redis, key, token, ttlMs) {
  let lost = false;
  const timer = setTimeout(async () => {
    const reply = await redis.eval(EXTEND, { keys: [key], arguments: [token, ttlMs] });
    if (reply !== 1) lost = true;
  }, ttlMs / 3);
  return {
    remainingMs: () => (lost ? 0 : ttlMs),
    stop: () => clearTimeout(timer),
  };
}

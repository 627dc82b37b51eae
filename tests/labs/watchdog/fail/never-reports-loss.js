// expect: no_stale_write
// Extends with the token check but ignores the reply, like a watchdog that only logs a
// failed renewal (Redisson's does): the worker is never told, and writes on.
const EXTEND = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

export function startWatchdog(redis, key, token, ttlMs) {
  const timer = setInterval(async () => {
    const reply = await redis.eval(EXTEND, { keys: [key], arguments: [token, ttlMs] });
    if (reply === 0) console.warn('could not extend the lock');
  }, ttlMs / 3);
  return {
    remainingMs: () => ttlMs,
    stop: () => clearInterval(timer),
  };
}

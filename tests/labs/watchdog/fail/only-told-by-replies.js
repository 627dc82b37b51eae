// expect: no_stale_write
// A token-checked extension that only learns of a loss from a reply of 0. After a stall
// longer than the TTL the work's next write goes out before the overdue extension's
// answer arrives: remainingMs must count time too (§5: "watchdog + pause").
const EXTEND = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

export function startWatchdog(redis, key, token, ttlMs) {
  let lost = false;
  const timer = setInterval(async () => {
    const reply = await redis.eval(EXTEND, { keys: [key], arguments: [token, ttlMs] });
    if (reply !== 1) {
      lost = true;
      clearInterval(timer);
    }
  }, ttlMs / 3);
  return {
    remainingMs: () => (lost ? 0 : ttlMs),
    stop: () => clearInterval(timer),
  };
}

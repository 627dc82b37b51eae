// expect: no_stale_write
// PEXPIRE without the token check, trusting its reply: after a stall the lock expired and
// another worker took it; this PEXPIRE then extends THAT worker's lock and answers 1, so
// this worker believes the lock is its own and writes on.
export function startWatchdog(redis, key, token, ttlMs) {
  let lost = false;
  const timer = setInterval(async () => {
    if (!(await redis.pExpire(key, ttlMs))) {
      lost = true;
      clearInterval(timer);
    }
  }, ttlMs / 3);
  return {
    remainingMs: () => (lost ? 0 : ttlMs),
    stop: () => clearInterval(timer),
  };
}

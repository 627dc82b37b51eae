// expect: no_stale_write
// Counts its deadlines from when it sends, as the reference does, but renews with a bare
// PEXPIRE: no token check. A stall as the renewal timer fires lets the lock expire and
// another worker take it; the late PEXPIRE then extends THAT worker's lock, answers 1,
// and this worker believes it holds the lock until sentAt + TTL and writes on.
export function startWatchdog(redis, key, token, ttlMs, setSentAt) {
  let validUntil = setSentAt + ttlMs;
  let lost = false;
  const timer = setInterval(async () => {
    const sentAt = Date.now();
    try {
      if (await redis.pExpire(key, ttlMs)) validUntil = Math.max(validUntil, sentAt + ttlMs);
      else { lost = true; clearInterval(timer); }
    } catch (err) {
      lost = true;
      clearInterval(timer);
    }
  }, ttlMs / 3);
  return {
    remainingMs: () => (lost ? 0 : Math.max(0, validUntil - Date.now())),
    stop() { lost = true; clearInterval(timer); },
  };
}

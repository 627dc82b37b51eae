// Lab: a watchdog
//
// The worker has taken the lock `key` with `token` for `ttlMs` ms, and its work lasts
// LONGER than that. Keep the lock alive while it works, and tell the worker, before
// each write, how long the lock is surely still its own.

export function startWatchdog(redis, key, token, ttlMs, setSentAt) {
  // TODO 1: the lock is surely ours until this time, by our clock. Count the TTL from
  //   when the SET was sent (setSentAt), not from now: the process may have stalled since.
  let validUntil = Date.now() + ttlMs;
  let lost = false;

  // TODO 2: every ttlMs / 3, extend the lock, but ONLY if it still holds our token,
  //   in ONE step (a Lua script, like the release):
  //     const script = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  //                       return redis.call('PEXPIRE', KEYS[1], ARGV[2])
  //                     else return 0 end`;
  //     const reply = await redis.eval(script, { keys: [key], arguments: [token, String(ttlMs)] });
  //   Note the time BEFORE you send it: on a reply of 1, validUntil = that time + ttlMs.
  //   On 0 (or an error), the lock is gone: set lost, and stop extending (clearInterval).
  //     const timer = setInterval(async () => { ... }, ttlMs / 3);

  return {
    // TODO 3: 0 once lost; otherwise the ms left until validUntil (never below 0).
    //   A stall moves the clock on, so this must count time, not only replies.
    remainingMs() {
      return ttlMs;
    },
    // TODO 4: stop extending.
    stop() {},
  };
}

// Reference solution for the "watchdog" lab.

// Extend only if the key still holds our token: GET, compare and PEXPIRE in one step.
const EXTEND_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
else
  return 0
end`;

export function startWatchdog(redis, key, token, ttlMs, setSentAt) {
  // The lock is surely ours until validUntil by our clock: the SET's TTL, counted from
  // when it was sent (not from now: the process may have stalled since).
  let validUntil = setSentAt + ttlMs;
  let lost = false;

  async function extend() {
    // Count from when we SEND: Redis sets the new expiry a little later, never earlier.
    const sentAt = Date.now();
    try {
      const reply = await redis.eval(EXTEND_SCRIPT, { keys: [key], arguments: [token, String(ttlMs)] });
      if (lost) return;
      if (reply === 1) {
        validUntil = Math.max(validUntil, sentAt + ttlMs);
      } else {
        lost = true; // 0: the key expired or is someone else's now
        clearInterval(timer);
      }
    } catch (err) {
      lost = true; // no answer: we cannot know, so we must assume the worst
      clearInterval(timer);
    }
  }

  const timer = setInterval(extend, ttlMs / 3);

  return {
    // How many ms the lock is surely still ours. A stall (GC, VM pause) moves the clock
    // on: after a long one this is 0 even before the overdue extension gets its answer.
    remainingMs() {
      return lost ? 0 : Math.max(0, validUntil - Date.now());
    },
    stop() {
      lost = true;
      clearInterval(timer);
    },
  };
}

// Driver for the "safe-release" lab: what every worker does with acquire and YOUR release.
//
// Each worker runs `params.jobs` jobs. A job:
//   1. asks for the lock with acquire(); on a refusal it waits a little and asks again;
//   2. does its work, which may last LONGER than the lock's TTL: the lock can expire
//      while the worker still believes it holds it, and another worker can take it;
//   3. gives the lock back with release(), which must not delete the lock of the
//      worker that took it meanwhile.
// The lab.held / lab.failed / lab.released calls tell the simulator what the worker
// believes; the simulator watches which token each DEL removes.

/**
 * A whole number of milliseconds drawn uniformly from [lo, hi]. It draws from
 * lab.random, the driver's own stream, not Math.random: however many random numbers
 * your code draws, one seed gives every solution the same work and retry times.
 */
function uniform(lab, [lo, hi]) {
  return lo + Math.floor(lab.random() * (hi - lo + 1));
}

async function worker(lab) {
  const { acquire, release } = lab.fns;
  const { key, ttl_ms: ttlMs, jobs, work_ms: workMs, retry_ms: retryMs } = lab.params;
  const redis = lab.redis;

  for (let job = 0; job < jobs; job++) {
    let token;
    for (;;) {
      // The clock is read BEFORE asking, so t0 + ttl is an early (safe) end of the lease.
      const t0 = Date.now();
      token = await acquire(redis, key, ttlMs);
      if (token) {
        lab.held(String(token), t0 + ttlMs);
        break;
      }
      lab.failed('the lock was taken', { code: 'lock_taken' });
      await lab.sleep(uniform(lab, retryMs));
    }

    // The work the lock protects (sometimes longer than the TTL: that is the point).
    await lab.sleep(uniform(lab, workMs));

    // We stop believing we hold the lock before asking Redis to free it.
    lab.released();
    await release(redis, key, token);
  }
}

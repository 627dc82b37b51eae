// Driver for the "set-nx" lab: what every worker does with YOUR acquire and release.
//
// Each worker runs `params.jobs` jobs. A job:
//   1. asks for the lock with acquire(); on a refusal it waits a little and asks again
//      (for ever: a lock that is never freed shows up as a worker that never finishes);
//   2. does its work while it believes it holds the lock;
//   3. gives the lock back with release().
// The lab.held / lab.failed / lab.released calls tell the simulator what the worker
// believes, so it can check that no two workers ever believed they held the lock at
// the same time.

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
      // Read the clock BEFORE asking: the lock's time starts when Redis sets the key,
      // which is some time after this, so t0 + ttl is a safe (early) end of the lease.
      const t0 = Date.now();
      token = await acquire(redis, key, ttlMs);
      if (token) {
        lab.held(String(token), t0 + ttlMs);
        break;
      }
      lab.failed('the lock was taken', { code: 'lock_taken' });
      await lab.sleep(uniform(lab, retryMs));
    }

    // The work the lock protects.
    await lab.sleep(uniform(lab, workMs));

    // We stop believing we hold the lock before asking Redis to free it.
    lab.released();
    await release(redis, key, token);
  }
}

// Driver for the "redlock" lab: what every worker does with YOUR acquire and release.
//
// Each worker runs `params.jobs` jobs. A job:
//   1. calls acquire(clients, key, ttl) until it returns { token, validity }; on null it
//      waits a little and tries again;
//   2. believes it holds the lock for `validity` ms from the moment acquire returned,
//      and works for most of that time (params.work_share of it);
//   3. stops believing, and calls release(clients, key, token).
// If your validity is too generous (it ignores the time acquire took, or clock drift),
// the worker goes on believing after the majority's keys expired, and another worker
// can take the lock meanwhile: the simulator sees both believing at once.

function uniform(lab, [lo, hi]) {
  return lo + Math.floor(lab.random() * (hi - lo + 1));
}

async function worker(lab) {
  const { acquire, release } = lab.fns;
  const { key, ttl_ms: ttlMs, jobs, work_share: share, retry_ms: retryMs } = lab.params;
  const clients = lab.clients;

  for (let job = 0; job < jobs; job++) {
    let lock;
    for (;;) {
      lock = await acquire(clients, key, ttlMs);
      const now = Date.now();
      const validity = lock ? Number(lock.validity) : NaN;
      if (lock && lock.token && validity > 0) {
        lab.held(String(lock.token), now + validity);
        lock = { token: String(lock.token), validity, at: now };
        break;
      }
      lab.failed('no majority in time', { code: 'no_majority' });
      await lab.sleep(uniform(lab, retryMs));
    }

    // Work for a share of the validity (the share drawn from the driver's own stream).
    const f = share[0] + lab.random() * (share[1] - share[0]);
    await lab.sleep(Math.floor(lock.validity * f));

    lab.released();
    await release(clients, key, lock.token);
  }
}

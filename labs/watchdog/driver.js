// Driver for the "watchdog" lab: what every worker does with YOUR startWatchdog.
//
// Each worker runs `params.jobs` jobs. A job:
//   1. takes the lock with our own SET NX PX (correct; retried after a refusal);
//   2. starts your watchdog, which keeps the lock alive while the work runs;
//   3. works in `params.steps` steps, always LONGER than the TTL in total: each step
//      sleeps, asks your watchdog how long the lock is surely still ours, and writes
//      to the resource only if that is more than `params.margin_ms` (the write needs
//      a few ms to reach the resource). If not, the worker has lost the lock: it says
//      so (lab.lost) and drops the rest of this attempt's work;
//   4. stops your watchdog and gives the lock back with our token-checked release. A
//      job whose lock was lost starts again from step 1, with a new lock: a watchdog
//      that always says 0 keeps everything safe, and gets nothing done.
// The simulator judges every write by the lock's ACTUAL state on the Redis node: a
// write accepted after the worker's key expired (or was taken) is a stale write.

const RELEASE_SCRIPT =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/**
 * A whole number of milliseconds drawn uniformly from [lo, hi]. It draws from
 * lab.random, the driver's own stream, not Math.random: however many random numbers
 * your code draws, one seed gives every solution the same work and retry times.
 */
function uniform(lab, [lo, hi]) {
  return lo + Math.floor(lab.random() * (hi - lo + 1));
}

/** Our acquire: SET NX PX with a random token, asked again until it is granted. */
async function takeLock(lab, key, ttlMs, retryMs) {
  for (;;) {
    // Unique per worker, job and life (drawn from lab.random, not from your stream).
    const token = `${lab.worker}-${lab.random().toString(36).slice(2)}${lab.random().toString(36).slice(2)}`;
    // Read before sending: the key lives at least until sentAt + ttlMs by our clock.
    const sentAt = Date.now();
    if ((await lab.redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK') {
      // Until null: with a watchdog the belief lasts until we release or learn of a loss.
      lab.held(token, null);
      return { token, sentAt };
    }
    lab.failed('the lock was taken', { code: 'lock_taken' });
    await lab.sleep(uniform(lab, retryMs));
  }
}

async function worker(lab) {
  const { startWatchdog } = lab.fns;
  const { key, ttl_ms: ttlMs, jobs, steps, step_ms: stepMs, margin_ms: marginMs, retry_ms: retryMs } =
    lab.params;
  const redis = lab.redis;
  const name = 'ABCDEFGH'[lab.worker] || String(lab.worker);

  for (let job = 0; job < jobs; ) {
    const { token, sentAt } = await takeLock(lab, key, ttlMs, retryMs);
    // `await` also accepts a watchdog that startWatchdog returns through a promise.
    const watchdog = await startWatchdog(redis, key, token, ttlMs, sentAt);

    let lost = false;
    for (let step = 1; step <= steps; step++) {
      await lab.sleep(uniform(lab, stepMs));
      // Checked right before the write, with nothing awaited in between.
      const left = Number(watchdog.remainingMs());
      if (!(left > marginMs)) {
        lab.lost(`the watchdog says the lock is ours for ${left} ms more: the job starts again`,
          { code: 'watchdog_short', ms: left });
        lost = true;
        break;
      }
      // The worker, its job and the step, as data (no words): `A-2-3`.
      await lab.resource.write('report', `${name}-${job + 1}-${step}`);
    }

    await watchdog.stop();
    if (!lost) lab.released();
    await redis.eval(RELEASE_SCRIPT, { keys: [key], arguments: [token] });
    if (lost) await lab.sleep(uniform(lab, retryMs));
    else job++;
  }
}

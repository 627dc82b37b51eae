// Driver for the "fencing" lab: what every worker does with YOUR acquire and write.
//
// Each worker runs `params.jobs` jobs. A job:
//   1. asks for the lock with acquire(); on a refusal (null) it waits a little and asks
//      again. acquire gives { token, fence }: the random token for the release, and
//      the fencing token, a number every grant makes bigger;
//   2. works: thinks, reads its input from Redis, thinks again. A stall can strike
//      before that read, for longer than the TTL: the lock expires and another worker
//      takes it, while this one still believes it is the holder;
//   3. writes its result to the report through write(), which must hand the fencing
//      token to the resource. The resource (fencing = "strict") refuses a write whose
//      token is not higher than the highest it has accepted;
//   4. releases with our token-checked script. If the resource refused the write, the
//      worker has learned it lost the lock: it says so (lab.lost) and does the job
//      again from the start, with a new lock.

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

async function worker(lab) {
  const { acquire, write } = lab.fns;
  const { key, input_key: inputKey, ttl_ms: ttlMs, jobs, think_ms: thinkMs, retry_ms: retryMs } = lab.params;
  const redis = lab.redis;
  const name = 'ABCDEFGH'[lab.worker] || String(lab.worker);

  for (let job = 1; job <= jobs; ) {
    let grant;
    for (;;) {
      // The clock is read BEFORE asking, so t0 + ttl is an early (safe) end of the lease.
      const t0 = Date.now();
      grant = await acquire(redis, key, ttlMs);
      if (grant) {
        lab.held(String(grant.token), t0 + ttlMs);
        break;
      }
      lab.failed('the lock was taken', { code: 'lock_taken' });
      await lab.sleep(uniform(lab, retryMs));
    }

    // The work: think, read the input (a stall may strike just before), think again.
    await lab.sleep(uniform(lab, thinkMs));
    const input = await redis.get(inputKey);
    await lab.sleep(uniform(lab, thinkMs));

    // The worker, its job and the input it read, as data (no words): `A-2(batch-7)`.
    const reply = await write(lab.resource, 'report', `${name}-${job}(${input})`, grant.fence);
    const accepted = Boolean(reply && reply.accepted === true);
    if (accepted) {
      lab.released();
    } else {
      if (reply && reply.rejected) {
        // `reason`: the resource's own words for why, said in the reader's language.
        lab.lost(`the resource refused the write (${reply.rejected}): the job starts again`,
          { code: 'write_refused', reason: reply.rejected });
      } else {
        lab.lost('the resource did not answer the write: the job starts again', { code: 'write_unanswered' });
      }
    }
    await redis.eval(RELEASE_SCRIPT, { keys: [key], arguments: [String(grant.token)] });
    if (accepted) job++;
    else await lab.sleep(uniform(lab, retryMs));
  }
}

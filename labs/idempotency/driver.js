// Driver for the "idempotency" lab: what every worker does with YOUR chargeOnce.
//
// The job queue has delivered the same job, "charge invoice 42", to every worker (an
// at-least-once queue does that after a timeout, a retry or a redelivery), and the
// lock that should have kept them apart is gone: every worker runs the job. A job:
//   1. calls chargeOnce(redis, provider, invoice), which answers
//        'charged' (this call charged the invoice),
//        'done'    (the invoice was charged already: nothing to do), or
//        'busy'    (someone else is charging it right now: ask again later);
//   2. on 'busy' waits a little and calls chargeOnce again; otherwise the job is over.
// A crashed worker restarts and does its job again from the start, as a real retry would.
// The payment provider (lab.resource) counts every charge it accepts: a second charge
// of one invoice is a double charge.

/**
 * A whole number of milliseconds drawn uniformly from [lo, hi]. It draws from
 * lab.random, the driver's own stream, not Math.random: however many random numbers
 * your code draws, one seed gives every solution the same retry times.
 */
function uniform(lab, [lo, hi]) {
  return lo + Math.floor(lab.random() * (hi - lo + 1));
}

async function worker(lab) {
  const { chargeOnce } = lab.fns;
  const { invoice, retry_ms: retryMs, max_calls: maxCalls } = lab.params;
  for (let call = 1; ; call++) {
    const outcome = await chargeOnce(lab.redis, lab.resource, invoice);
    if (outcome === 'charged' || outcome === 'done') {
      lab.note(`chargeOnce answered '${outcome}'`, { code: 'charge_answered', outcome });
      return;
    }
    if (outcome !== 'busy') {
      const got = JSON.stringify(outcome) ?? String(outcome);
      throw lab.error(`chargeOnce must answer 'charged', 'done' or 'busy', not ${got}`, { code: 'charge_once_answer', got });
    }
    if (call >= maxCalls) {
      lab.note(`still 'busy' after ${call} calls: this worker gives up`, { code: 'gave_up_busy', calls: call });
      // It never finishes (all_done reports that); asking on would only cost time.
      for (;;) await lab.sleep(1000);
    }
    await lab.sleep(uniform(lab, retryMs));
  }
}

// Reference solution for the "idempotency" lab.

// Longer than a charge can take (a few round trips here), short enough that a crashed
// worker holds the invoice up for only a second.
const CLAIM_MS = 1000;

export async function chargeOnce(redis, provider, invoiceId) {
  // Named after the operation, so every duplicate of this job finds the same key.
  const key = `idem:charge:${invoiceId}`;

  // Claim the operation: in progress, with an expiry of its own (the recovery path).
  const claimed = await redis.set(key, 'in-progress', { NX: true, PX: CLAIM_MS });
  if (claimed !== 'OK') {
    const status = await redis.get(key);
    if (status === 'done') return 'done';
    return 'busy'; // someone is charging it now, or its claim expired a moment ago
  }

  // The same key goes to the provider: a crash after this charge, or a pause past the
  // claim's expiry, lets a retry come this far again, and the provider then refuses.
  const reply = await provider.write('charge', invoiceId, { idempotencyKey: key });

  // Done, with no expiry: later duplicates return at once.
  await redis.set(key, 'done');
  return reply.accepted ? 'charged' : 'done';
}

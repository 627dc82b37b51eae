// Lab: idempotency
//
// The same job, "charge invoice 42", reaches three workers at once, and no lock keeps
// them apart. Write chargeOnce so that the invoice is charged exactly once, whatever
// happens: a worker can stall for up to 1.5 s, or crash and start its job again.

/**
 * Charges invoice `invoiceId` through `provider`, unless it is charged already.
 * Answers 'charged' (this call charged it), 'done' (it was charged before), or
 * 'busy' (someone is charging it right now; the caller asks again a little later).
 */
export async function chargeOnce(redis, provider, invoiceId) {
  const key = `idem:charge:${invoiceId}`;

  // TODO 1: this "check, then act" lets two workers both see no record and both charge.
  //   Claim the operation atomically instead, as in progress and with an expiry:
  //     await redis.set(key, 'in-progress', { NX: true, PX: 1000 })  → 'OK' or null
  //   If the claim is refused, read the key: 'done' → return 'done'; else → 'busy'.
  if ((await redis.get(key)) === 'done') return 'done';

  // TODO 2: give the provider the same key, so that a retry after a crash (or after a
  //   pause past the claim's expiry) cannot charge a second time:
  //     provider.write('charge', invoiceId, { idempotencyKey: key })
  const reply = await provider.write('charge', invoiceId);

  // TODO 3: mark the key done with a plain SET (no expiry), then answer.
  await redis.set(key, 'done');
  return reply.accepted ? 'charged' : 'done';
}

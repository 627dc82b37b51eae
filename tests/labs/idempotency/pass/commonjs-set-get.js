// A CommonJS module, with SET … GET (Redis 6.2+): the claim answers the old value in
// the same round trip, so a refused claim needs no second command.
const CLAIM_MS = 2000;

async function chargeOnce(redis, provider, invoiceId) {
  const key = `idem:charge:${invoiceId}`;
  const before = await redis.set(key, 'in-progress', { NX: true, PX: CLAIM_MS, GET: true });
  if (before === 'done') return 'done';
  if (before !== null) return 'busy';
  const reply = await provider.write('charge', invoiceId, { idempotencyKey: key });
  await redis.set(key, 'done');
  return reply.accepted ? 'charged' : 'done';
}

module.exports = { chargeOnce };

// expect: no_double_effect
// A good claim, but the provider is not told the key: a crash after the charge and before
// "done" (or a pause past the claim's expiry) lets a retry charge a second time.
export async function chargeOnce(redis, provider, invoiceId) {
  const key = `idem:charge:${invoiceId}`;
  if ((await redis.set(key, 'in-progress', { NX: true, PX: 1000 })) !== 'OK') {
    return (await redis.get(key)) === 'done' ? 'done' : 'busy';
  }
  const reply = await provider.write('charge', invoiceId);
  await redis.set(key, 'done');
  return reply.accepted ? 'charged' : 'done';
}

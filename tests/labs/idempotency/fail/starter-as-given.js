// expect: no_double_effect
// The starter as given: "check, then act" with no claim and no key for the provider.
export async function chargeOnce(redis, provider, invoiceId) {
  const key = `idem:charge:${invoiceId}`;
  if ((await redis.get(key)) === 'done') return 'done';
  const reply = await provider.write('charge', invoiceId);
  await redis.set(key, 'done');
  return reply.accepted ? 'charged' : 'done';
}

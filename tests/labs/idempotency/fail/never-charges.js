// expect: effect_done
// Claims and marks the key done, but forgets the charge itself: every worker finishes,
// and the invoice is never charged.
export async function chargeOnce(redis, provider, invoiceId) {
  const key = `idem:charge:${invoiceId}`;
  if ((await redis.set(key, 'in-progress', { NX: true, PX: 1000 })) !== 'OK') {
    return (await redis.get(key)) === 'done' ? 'done' : 'busy';
  }
  await redis.set(key, 'done');
  return 'charged';
}

// expect: all_done
// A claim that never expires (a bare SET NX): after a crash between the claim and
// "done", every retry finds "in-progress" for ever, and nobody finishes the job.
export async function chargeOnce(redis, provider, invoiceId) {
  const key = `idem:charge:${invoiceId}`;
  if ((await redis.set(key, 'in-progress', { NX: true })) !== 'OK') {
    return (await redis.get(key)) === 'done' ? 'done' : 'busy';
  }
  const reply = await provider.write('charge', invoiceId, { idempotencyKey: key });
  await redis.set(key, 'done');
  return reply.accepted ? 'charged' : 'done';
}

// expect: no_double_effect
// §1's race: read a paid flag, charge, set the flag. Two workers both read "not paid".
export async function chargeOnce(redis, provider, invoiceId) {
  const paid = await redis.get(`invoice:${invoiceId}:paid`);
  if (paid === 'true') return 'done';
  await provider.write('charge', invoiceId);
  await redis.set(`invoice:${invoiceId}:paid`, 'true');
  return 'charged';
}

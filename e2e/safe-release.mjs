// The safe-release lab's code as the walks type it (e2e/lab.mjs, e2e/lms.mjs): the naive
// release the lesson starts from, the fixed one that holds every attacked trial, and an
// infinite loop.

export const NAIVE = `import crypto from 'node:crypto';

export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? token : null;
}

export async function release(redis, key, token) {
  await redis.del(key);
}
`;

export const FIXED = NAIVE.replace(
  '  await redis.del(key);',
  `  const script = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
  return redis.eval(script, { keys: [key], arguments: [token] });`,
);

export const LOOP = NAIVE.replace('  await redis.del(key);', '  for (;;) {}');

// expect: code_error
// acquire awaits a promise nothing can ever settle: the harness reports it as stuck.
export async function acquire(redis, key, ttlMs) {
  await new Promise(() => {});
  return 'never';
}

export async function release(redis, key, token) {
  await redis.del(key);
}

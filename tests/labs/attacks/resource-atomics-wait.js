// lab: safe-release
// what: Atomics.wait blocks the thread without using the CPU, so a CPU-time limit alone would wait for ever
export async function acquire(redis, key, ttlMs) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  return null;
}

export async function release(redis, key) {
  await redis.del(key);
}

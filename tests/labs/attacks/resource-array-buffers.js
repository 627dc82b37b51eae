// lab: safe-release
// what: memory outside the V8 heap: 2 GB of ArrayBuffers, touched so the pages are real
const kept = [];
for (let i = 0; i < 20; i++) {
  const b = new ArrayBuffer(100 * 1024 * 1024);
  new Uint8Array(b).fill(1);
  kept.push(b);
}

export async function acquire(redis, key, ttlMs) {
  return (await redis.set(key, 't', { NX: true, PX: ttlMs })) === 'OK' ? 't' : null;
}

export async function release(redis, key) {
  await redis.del(key);
}

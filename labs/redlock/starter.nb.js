// Lab: Redlock på fem mastere
//
// `clients` er en tabell med fem klienter som ligner node-redis, én per uavhengig master.
// En forespørsel som ikke får svar innen 50 ms, avvises: bruk `Promise.allSettled`, ikke
// `Promise.all`, ellers får én død master hvert forsøk til å feile.
import crypto from 'node:crypto';

const RELEASE = `
if redis.call("get", KEYS[1]) == ARGV[1] then
  return redis.call("del", KEYS[1])
end
return 0`;

export async function acquire(clients, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  // TODO:
  //  1. les starttiden;
  //  2. `SET key token NX PX ttlMs` på alle mastere samtidig;
  //  3. tell mastere som svarte 'OK';
  //  4. gyldighet = ttlMs - brukt tid - drift (drift: 1 % av TTL-en pluss 2 ms);
  //  5. med flertall (3 av 5) og gyldighet > 0: gi `{ token, validity }`;
  //     ellers frigjør på HVER master (også dem som så ut til å feile) og gi null.
  const reply = await clients[0].set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? { token, validity: ttlMs } : null;
}

export async function release(clients, key, token) {
  // TODO: kjør skriptet som sjekker og sletter, på hver master, og tål dem som er
  // nede.
  await clients[0].eval(RELEASE, { keys: [key], arguments: [token] });
}

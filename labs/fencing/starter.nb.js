// Lab: fencing-tokener
//
// Skriv `acquire` og `write`. En arbeider kan stå stille lenger enn låsens TTL mellom
// hentingen og skrivingen: den våkner og tror fortsatt at den har låsen. Bare ressursen
// kan stoppe skrivingen, og bare hvis hver skriving har med et tall som hver nye
// tildeling av låsen gjør større: et fencing-token.
import crypto from 'node:crypto';

/**
 * Prøver ÉN gang å ta låsen `key` i `ttlMs` ms.
 * Gir `{ token, fence }` hvis du fikk den, ellers null.
 */
export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');

  // TODO 1: ta låsen OG tell tildelingen i ETT Lua-skript, med telleren i nøkkelen
  //   `${key}:fence`:
  //     `if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then`
  //     `  return redis.call('INCR', KEYS[2])`
  //     `end`
  //     `return 0`
  //   `await redis.eval(script, { keys: [key, `${key}:fence`], arguments: [token, String(ttlMs)] })`
  //   gir fencing-tokenet (1, 2, 3, …), eller 0 når låsen var tatt.
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  if (reply !== 'OK') return null;

  // TODO 2: gi tallet skriptet ga, som `fence`.
  return { token, fence: null };
}

/** Skriver `value` til `key` i ressursen; gir det `resource.write` svarer. */
export async function write(resource, key, value, fence) {
  // TODO 3: gi fencing-tokenet til ressursen, så den kan avvise en foreldet skriving:
  //   `resource.write(key, value, { token: fence })`
  return resource.write(key, value);
}

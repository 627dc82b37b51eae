// Lab: en lås med SET NX
//
// Skriv `acquire` og `release`. Flere arbeidere kjører denne samme filen samtidig, hver med
// sin egen `redis`-klient. Bare én av dem kan ha låsen om gangen.

/**
 * Prøver ÉN gang å ta låsen `key` i `ttlMs` millisekunder.
 * Gir et token (en streng bare denne arbeideren kjenner) hvis du fikk låsen, ellers null.
 */
export async function acquire(redis, key, ttlMs) {
  // TODO 1: lag et token ingen annen arbeider kan ha: 16 tilfeldige byte i heks.
  //   (`crypto.randomBytes(16).toString('hex')` virker her.)
  const token = 'TODO';

  // TODO 2: sett nøkkelen til tokenet, men BARE hvis den ikke finnes ennå (NX),
  //   og med et utløp på ttlMs millisekunder (PX), i ÉN kommando, så en arbeider
  //   som krasjer, ikke kan beholde låsen for alltid:
  //   `await redis.set(key, token, { NX: true, PX: ttlMs })` gir 'OK' eller null
  const reply = null;

  // TODO 3: gi tokenet hvis svaret var 'OK', ellers null.
  return null;
}

/**
 * Frigjør låsen, men bare hvis den fortsatt er vår (verdien er fortsatt tokenet vårt):
 * låsen kan ha gått ut og blitt tatt av en annen arbeider i mellomtiden.
 */
export async function release(redis, key, token) {
  // TODO 4: sjekk og slett i ETT steg, med et Lua-skript som Redis kjører:
  //   `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`
  //   `await redis.eval(script, { keys: [key], arguments: [token] })`
}

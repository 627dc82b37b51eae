// Lab: frigjør bare din egen lås
//
// `acquire` er skrevet for deg. Skriv `release`. Arbeidet til en arbeider kan vare lenger enn
// låsens TTL: når den kaller release, kan låsen ha gått ut, og en annen arbeider kan ha
// nøkkelen med SITT token. Å slette den ville frigjøre låsen til noen andre.
import crypto from 'node:crypto';

/** Tar låsen `key` i `ttlMs` ms; gir vårt tilfeldige token, eller null hvis den er tatt. */
export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? token : null;
}

/** Frigjør låsen `key`, men BARE hvis verdien fortsatt er `token`. */
export async function release(redis, key, token) {
  // TODO: GET nøkkelen, sammenlign med tokenet, DEL bare hvis de er like: men som ETT steg.
  //   To separate kommandoer etterlater et hull der låsen kan gå ut og bli tatt.
  //   Et Lua-skript kjører inne i Redis uten noe imellom:
  //     const script = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  //                       return redis.call('DEL', KEYS[1])
  //                     else return 0 end`;
  //     await redis.eval(script, { keys: [key], arguments: [token] });
}

// Lab: en watchdog
//
// Arbeideren har tatt låsen `key` med `token` i `ttlMs` ms, og arbeidet varer LENGER enn
// det. Hold låsen i live mens den arbeider, og fortell arbeideren, før hver skriving,
// hvor lenge låsen helt sikkert fortsatt er dens egen.

export function startWatchdog(redis, key, token, ttlMs, setSentAt) {
  // TODO 1: låsen er helt sikkert vår fram til dette tidspunktet, etter vår klokke. Tell TTL-en
  //   fra da SET-en ble sendt (setSentAt), ikke fra nå: prosessen kan ha stått stille siden.
  let validUntil = Date.now() + ttlMs;
  let lost = false;

  // TODO 2: forleng låsen hver ttlMs / 3, men BARE hvis den fortsatt har tokenet vårt,
  //   i ETT steg (et Lua-skript, som frigjøringen):
  //     const script = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  //                       return redis.call('PEXPIRE', KEYS[1], ARGV[2])
  //                     else return 0 end`;
  //     const reply = await redis.eval(script, { keys: [key], arguments: [token, String(ttlMs)] });
  //   Les klokken FØR du sender det: ved svaret 1 er `validUntil` det tidspunktet + ttlMs.
  //   Ved 0 (eller en feil) er låsen borte: sett `lost`, og slutt å forlenge (`clearInterval`).
  //     `const timer = setInterval(async () => { ... }, ttlMs / 3);`

  return {
    // TODO 3: 0 når låsen er tapt; ellers antall ms igjen til `validUntil` (aldri under 0).
    //   En pause flytter klokken fram, så dette må telle tid, ikke bare svar.
    remainingMs() {
      return ttlMs;
    },
    // TODO 4: slutt å forlenge.
    stop() {},
  };
}

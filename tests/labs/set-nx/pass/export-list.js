// A correct solution exporting through a list, with const arrow functions.
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

const take = async (redis, key, ttlMs) => {
  const token = crypto.randomUUID();
  const ok = await redis.set(key, token, { NX: true, PX: ttlMs });
  return ok ? token : null;
};

const give = (redis, key, token) => redis.eval(RELEASE, { keys: [key], arguments: [token] });

export { take as acquire, give as release };

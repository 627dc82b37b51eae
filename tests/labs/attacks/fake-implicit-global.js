// lab: safe-release
// what: a sloppy-mode implicit global used as a shared lock table (CommonJS, no declaration)
sharedTable = typeof sharedTable === 'undefined' ? {} : sharedTable;

exports.acquire = async function (redis, key, ttlMs) {
  if (sharedTable[key]) return null;
  const token = String(Math.random());
  sharedTable[key] = token;
  await redis.set(key, token, { PX: ttlMs });
  return token;
};

exports.release = async function (redis, key) {
  delete sharedTable[key];
  await redis.del(key);
};

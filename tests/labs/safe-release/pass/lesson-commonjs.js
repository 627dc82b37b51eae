// Pasted from a Node.js project as it is: CommonJS, its own client from require('redis'),
// crypto from require('crypto'), and EVALSHA by the script's SHA1 (createHash), with
// EVAL when the node does not know the script yet. In a lab, createClient() gives the
// lab's client and connect() does nothing.
const { createClient } = require('redis');
const crypto = require('crypto');

const client = createClient({ url: 'redis://localhost:6379' });
client.on('error', (err) => console.error('Redis client error', err));
client.connect();

const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
const RELEASE_SHA = crypto.createHash('sha1').update(RELEASE).digest('hex');

async function acquire(redis, key, ttlMs) {
  const token = crypto.randomUUID();
  const ok = await client.set(key, token, { NX: true, PX: ttlMs });
  return ok === 'OK' ? token : null;
}

async function release(redis, key, token) {
  try {
    return await client.evalSha(RELEASE_SHA, { keys: [key], arguments: [token] });
  } catch (err) {
    if (!String(err.message).startsWith('NOSCRIPT')) throw err;
    return client.eval(RELEASE, { keys: [key], arguments: [token] });
  }
}

module.exports = { acquire, release };

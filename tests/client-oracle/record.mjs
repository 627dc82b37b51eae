// Records what real node-redis v4 does, for the client oracle (replay.mjs checks the
// lab harness against the recording).
//
// Usage: cd tests/client-oracle && npm ci && node record.mjs   (writes corpus.json)
// Needs redis-server on the PATH (apt-get install redis-server) and the `redis`
// package pinned in package-lock.json.
//
// It starts its own redis-server on a free loopback port, puts a small TCP proxy in
// front of it, and runs each case through a real node-redis client connected to the
// proxy. The proxy sees the exact bytes both ways, so for each case we get the
// command(s) the server received and the raw reply, with nothing run twice (a PTTL or
// SET NX run again would answer differently). Before each case a second client,
// straight to the server, runs FLUSHALL, SCRIPT FLUSH and the case's setup, so cases
// are independent.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { decodeArg, encode, outcome } from './codec.mjs';

// A Date argument goes to the server as Date#toString(), which names the time zone.
process.env.TZ = 'UTC';

const OUT = fileURLToPath(new URL('./corpus.json', import.meta.url));
const U = { $: 'undefined' }; // an argument passed explicitly as undefined
const PXAT = 4102444800000; // 2100-01-01, so a recorded reply never depends on today
const EXAT = PXAT / 1000;
const SHA_RETURN_1 = 'e0e1f9fabfc9d4800c877a703b823ac0578ff8db'; // sha1('return 1')
const GET_SCRIPT = "return redis.call('GET', KEYS[1])";
const ECHO_SCRIPT = 'return {KEYS[1], ARGV[1], #KEYS, #ARGV}';
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
const RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
const HAS_V = [['SET', 'k', 'v']];
const HAS_LIST = [['RPUSH', 'k', 'a']];
const HAS_TTL = [['SET', 'k', 'v', 'EX', '100']];

// [name, method, args, setup]. `args` as JSON, U for an explicit undefined; a missing
// argument is simply left out. Setup runs on the server before the case.
const CASES = [
  // set: each option, combinations, and the values node-redis takes or refuses.
  ['set plain', 'set', ['k', 'v']],
  ['set overwrites', 'set', ['k', 'w'], HAS_V],
  ['set number value', 'set', ['k', 5]],
  ['set float value', 'set', ['k', 1.5]],
  ['set NaN value', 'set', ['k', NaN]],
  ['set Infinity value', 'set', ['k', Infinity]],
  ['set bigint value', 'set', ['k', { $: 'bigint', v: '5' }]],
  ['set boolean value', 'set', ['k', true]],
  ['set null value', 'set', ['k', null]],
  ['set undefined value', 'set', ['k', U]],
  ['set missing value', 'set', ['k']],
  ['set object value', 'set', ['k', { a: 1 }]],
  ['set array value', 'set', ['k', ['a']]],
  ['set number key', 'set', [5, 'v']],
  ['set null key', 'set', [null, 'v']],
  ['set empty string value', 'set', ['k', '']],
  ['set unicode value', 'set', ['k', 'é€😀']],
  ['set undefined options', 'set', ['k', 'v', U]],
  ['set null options', 'set', ['k', 'v', null]],
  ['set empty options', 'set', ['k', 'v', {}]],
  ['set NX new', 'set', ['k', 'v', { NX: true }]],
  ['set NX existing', 'set', ['k', 'v', { NX: true }], HAS_V],
  ['set NX false', 'set', ['k', 'v', { NX: false }], HAS_V],
  ['set XX missing', 'set', ['k', 'v', { XX: true }]],
  ['set XX existing', 'set', ['k', 'w', { XX: true }], HAS_V],
  ['set PX', 'set', ['k', 'v', { PX: 1000 }]],
  ['set PX string', 'set', ['k', 'v', { PX: '1000' }]],
  ['set PX float', 'set', ['k', 'v', { PX: 1.5 }]],
  ['set PX 0', 'set', ['k', 'v', { PX: 0 }]],
  ['set PX negative', 'set', ['k', 'v', { PX: -5 }]],
  ['set PX null', 'set', ['k', 'v', { PX: null }]],
  ['set PX undefined', 'set', ['k', 'v', { PX: U }]],
  ['set EX', 'set', ['k', 'v', { EX: 10 }]],
  ['set EXAT', 'set', ['k', 'v', { EXAT: EXAT }]],
  ['set PXAT', 'set', ['k', 'v', { PXAT: PXAT }]],
  ['set PXAT Date', 'set', ['k', 'v', { PXAT: { $: 'date', ms: PXAT } }]],
  ['set KEEPTTL', 'set', ['k', 'w', { KEEPTTL: true }], HAS_TTL],
  ['set GET existing', 'set', ['k', 'w', { GET: true }], HAS_V],
  ['set GET missing', 'set', ['k', 'w', { GET: true }]],
  ['set GET on a list', 'set', ['k', 'w', { GET: true }], HAS_LIST],
  ['set NX PX new (acquire)', 'set', ['lock', 'tok', { NX: true, PX: 30000 }]],
  ['set NX PX held', 'set', ['lock', 'tok2', { NX: true, PX: 30000 }], [['SET', 'lock', 'tok']]],
  ['set PX NX (key order)', 'set', ['lock', 'tok', { PX: 30000, NX: true }]],
  ['set NX EX', 'set', ['k', 'v', { NX: true, EX: 10 }]],
  ['set XX PX', 'set', ['k', 'w', { XX: true, PX: 1000 }], HAS_V],
  ['set XX EX GET', 'set', ['k', 'w', { XX: true, EX: 10, GET: true }], HAS_V],
  ['set NX GET existing', 'set', ['k', 'w', { NX: true, GET: true }], HAS_V],
  ['set NX XX', 'set', ['k', 'v', { NX: true, XX: true }]],
  ['set EX PX', 'set', ['k', 'v', { EX: 10, PX: 1000 }]],
  ['set PX KEEPTTL', 'set', ['k', 'v', { PX: 1000, KEEPTTL: true }]],
  ['set PXAT GET', 'set', ['k', 'w', { PXAT: PXAT, GET: true }], HAS_V],
  ['set lowercase nx', 'set', ['k', 'v', { nx: true, px: 100 }], HAS_V],
  ['SET capitals', 'SET', ['k', 'v', { NX: true, PX: 1000 }]],
  // get
  ['get missing', 'get', ['k']],
  ['get existing', 'get', ['k'], HAS_V],
  ['get stored number', 'get', ['k'], [['SET', 'k', '5']]],
  ['get on a list', 'get', ['k'], HAS_LIST],
  ['get number key', 'get', [5]],
  ['get missing key', 'get', []],
  ['GET capitals', 'GET', ['k'], HAS_V],
  // del
  ['del one', 'del', ['k'], HAS_V],
  ['del missing', 'del', ['k']],
  ['del several arguments', 'del', ['a', 'b'], [['MSET', 'a', '1', 'b', '2']]],
  ['del array', 'del', [['a', 'b', 'c']], [['MSET', 'a', '1', 'b', '2']]],
  ['del empty array', 'del', [[]]],
  ['del number key', 'del', [5]],
  ['del no argument', 'del', []],
  ['DEL capitals', 'DEL', ['k'], HAS_V],
  // exists
  ['exists one', 'exists', ['k'], HAS_V],
  ['exists missing', 'exists', ['k']],
  ['exists array', 'exists', [['k', 'k', 'x']], HAS_V],
  ['exists several arguments', 'exists', ['k', 'x'], HAS_V],
  ['EXISTS capitals', 'EXISTS', ['k'], HAS_V],
  // incr
  ['incr new', 'incr', ['k']],
  ['incr existing', 'incr', ['k'], [['SET', 'k', '41']]],
  ['incr not an integer', 'incr', ['k'], HAS_V],
  ['incr on a list', 'incr', ['k'], HAS_LIST],
  ['INCR capitals', 'INCR', ['k']],
  // pExpire / expire
  ['pExpire existing', 'pExpire', ['k', 1000], HAS_V],
  ['pExpire missing', 'pExpire', ['k', 1000]],
  ['pExpire string ms', 'pExpire', ['k', '1000'], HAS_V],
  ['pExpire float ms', 'pExpire', ['k', 1.5], HAS_V],
  ['pExpire null ms', 'pExpire', ['k', null], HAS_V],
  ['pExpire missing ms', 'pExpire', ['k'], HAS_V],
  ['pExpire mode XX', 'pExpire', ['k', 1000, 'XX'], HAS_V],
  ['pExpire mode NX on a key with a TTL', 'pExpire', ['k', 1000, 'NX'], HAS_TTL],
  ['PEXPIRE capitals', 'PEXPIRE', ['k', 1000], HAS_V],
  ['expire existing', 'expire', ['k', 10], HAS_V],
  ['expire missing', 'expire', ['k', 10]],
  ['expire 0 deletes', 'expire', ['k', 0], HAS_V],
  ['EXPIRE capitals', 'EXPIRE', ['k', 10], HAS_V],
  // pTTL / ttl (a key with a TTL: EX 100 gives a pTTL just under 100000, it varies)
  ['pTTL missing', 'pTTL', ['k']],
  ['pTTL no ttl', 'pTTL', ['k'], HAS_V],
  ['pTTL with ttl', 'pTTL', ['k'], HAS_TTL],
  ['PTTL capitals', 'PTTL', ['k']],
  ['ttl missing', 'ttl', ['k']],
  ['ttl no ttl', 'ttl', ['k'], HAS_V],
  ['ttl with ttl', 'ttl', ['k'], HAS_TTL],
  ['TTL capitals', 'TTL', ['k'], HAS_TTL],
  // eval: reply types
  ['eval return 1', 'eval', ['return 1']],
  ['eval return string', 'eval', ["return 'x'"]],
  ['eval return nil', 'eval', ['return nil']],
  ['eval return true', 'eval', ['return true']],
  ['eval return false', 'eval', ['return false']],
  ['eval return float', 'eval', ['return 3.7']],
  ['eval return nested table', 'eval', ["return {1, 'a', {2, 'b', {}}, 'c'}"]],
  ['eval table stops at nil', 'eval', ["return {1, nil, 3}"]],
  ['eval status_reply', 'eval', ["return redis.status_reply('FINE')"]],
  ['eval error_reply', 'eval', ["return redis.error_reply('MY bad thing')"]],
  ['eval err table', 'eval', ["return {err='oops'}"]],
  ['eval GET missing', 'eval', [GET_SCRIPT, { keys: ['k'] }]],
  ['eval GET existing', 'eval', [GET_SCRIPT, { keys: ['k'], arguments: [] }], HAS_V],
  ['eval keys and arguments', 'eval', [ECHO_SCRIPT, { keys: ['k'], arguments: ['a', 'b'] }]],
  ['eval release (owner)', 'eval', [RELEASE, { keys: ['lock'], arguments: ['tok'] }], [['SET', 'lock', 'tok']]],
  ['eval release (not owner)', 'eval', [RELEASE, { keys: ['lock'], arguments: ['other'] }], [['SET', 'lock', 'tok']]],
  ['eval renew, ttl as string', 'eval', [RENEW, { keys: ['lock'], arguments: ['tok', '30000'] }], [['SET', 'lock', 'tok']]],
  ['eval no options', 'eval', ['return #KEYS']],
  ['eval empty options', 'eval', ['return #KEYS', {}]],
  ['eval undefined options', 'eval', ['return #KEYS', U]],
  ['eval only arguments', 'eval', ['return ARGV[1]', { arguments: ['a'] }]],
  ['eval keys as a string', 'eval', ['return KEYS', { keys: 'ab' }]],
  // eval: arguments node-redis refuses
  ['eval number in arguments', 'eval', [RENEW, { keys: ['lock'], arguments: ['tok', 30000] }], [['SET', 'lock', 'tok']]],
  ['eval number in keys', 'eval', [GET_SCRIPT, { keys: [5] }]],
  ['eval null in arguments', 'eval', ['return 1', { arguments: [null] }]],
  ['eval undefined in arguments', 'eval', ['return 1', { arguments: [U] }]],
  ['eval object in arguments', 'eval', ['return 1', { arguments: [{ a: 1 }] }]],
  ['eval boolean in arguments', 'eval', ['return 1', { arguments: [true] }]],
  ['eval bigint in arguments', 'eval', ['return 1', { arguments: [{ $: 'bigint', v: '7' }] }]],
  ['eval number script', 'eval', [1]],
  // eval: errors
  ['eval compile error', 'eval', ['return +']],
  ['eval runtime error', 'eval', ["error('boom')"]],
  ['eval unknown command', 'eval', ["return redis.call('NOPE')"]],
  ['eval wrong arity call', 'eval', ["return redis.call('GET')"]],
  ['eval WRONGTYPE inside', 'eval', ["return redis.call('INCR', KEYS[1])", { keys: ['k'] }], HAS_LIST],
  ['eval pcall error', 'eval', ["return redis.pcall('INCR', KEYS[1])", { keys: ['k'] }], HAS_LIST],
  ['eval undeclared global', 'eval', ['x = 1']],
  ['EVAL capitals', 'EVAL', ['return ARGV[1]', { keys: [], arguments: ['z'] }]],
  // evalSha / scriptLoad
  ['scriptLoad', 'scriptLoad', ['return 1']],
  ['scriptLoad compile error', 'scriptLoad', ['return +']],
  ['scriptLoad number', 'scriptLoad', [1]],
  ['SCRIPT_LOAD capitals', 'SCRIPT_LOAD', ['return 1']],
  ['evalSha loaded', 'evalSha', [SHA_RETURN_1], [['SCRIPT', 'LOAD', 'return 1']]],
  ['evalSha loaded with keys', 'evalSha', [SHA_RETURN_1, { keys: ['k'], arguments: ['a'] }], [['SCRIPT', 'LOAD', 'return 1']]],
  ['evalSha NOSCRIPT', 'evalSha', [SHA_RETURN_1, { keys: ['k'] }]],
  ['evalSha not a sha', 'evalSha', ['abc']],
  ['evalSha number in arguments', 'evalSha', [SHA_RETURN_1, { keys: ['k'], arguments: [1] }], [['SCRIPT', 'LOAD', 'return 1']]],
  ['EVALSHA capitals', 'EVALSHA', [SHA_RETURN_1], [['SCRIPT', 'LOAD', 'return 1']]],
  // setNX
  ['setNX new', 'setNX', ['k', 'v']],
  ['setNX existing', 'setNX', ['k', 'v'], HAS_V],
  ['setNX number value', 'setNX', ['k', 5]],
  ['SETNX capitals', 'SETNX', ['k', 'v']],
  // sendCommand
  ['sendCommand SET', 'sendCommand', [['SET', 'k', 'v', 'NX', 'PX', '1000']]],
  ['sendCommand GET missing', 'sendCommand', [['GET', 'k']]],
  ['sendCommand INCR', 'sendCommand', [['INCR', 'k']]],
  ['sendCommand PEXPIRE', 'sendCommand', [['PEXPIRE', 'k', '1000']], HAS_V],
  ['sendCommand lowercase', 'sendCommand', [['set', 'k', 'v']]],
  ['sendCommand EVAL nested', 'sendCommand', [['EVAL', "return {1, {'a'}}", '0']]],
  ['sendCommand number argument', 'sendCommand', [['SET', 'k', 5]]],
  ['sendCommand null argument', 'sendCommand', [['SET', 'k', null]]],
  ['sendCommand unknown command', 'sendCommand', [['NOPE', 'x']]],
  ['sendCommand wrong arity', 'sendCommand', [['GET']]],
  ['sendCommand WRONGTYPE', 'sendCommand', [['GET', 'k']], HAS_LIST],
  ['sendCommand a string', 'sendCommand', ['PING']],
  ['sendCommand empty array', 'sendCommand', [[]]],
  ['sendCommand undefined', 'sendCommand', [U]],
  // Methods a learner may reach for that the harness may lack (replay names them).
  ['setEx', 'setEx', ['k', 10, 'v']],
  ['pSetEx', 'pSetEx', ['k', 1000, 'v']],
  ['getDel', 'getDel', ['k'], HAS_V],
  ['getSet', 'getSet', ['k', 'w'], HAS_V],
  ['persist', 'persist', ['k'], HAS_TTL],
  ['decr', 'decr', ['k']],
  ['incrBy', 'incrBy', ['k', 5]],
  ['pExpireAt', 'pExpireAt', ['k', PXAT], HAS_V],
  ['expireAt', 'expireAt', ['k', EXAT], HAS_V],
  ['unlink', 'unlink', ['k'], HAS_V],
  ['scriptExists', 'scriptExists', [[SHA_RETURN_1, 'abc']], [['SCRIPT', 'LOAD', 'return 1']]],
  ['ping', 'ping', []],
];

// ---------------------------------------------------------------------------------
// RESP2: enough to read commands (client → server) and replies (server → client).
// ---------------------------------------------------------------------------------

/** Parses one RESP value at `at`: {value, end} or null when the bytes are not all here. */
function parseResp(buf, at) {
  const eol = buf.indexOf('\r\n', at);
  if (eol < 0) return null;
  const type = String.fromCharCode(buf[at]);
  const line = buf.toString('utf8', at + 1, eol);
  const next = eol + 2;
  if (type === '+') return { value: { simple: line }, end: next };
  if (type === '-') return { value: { error: line }, end: next };
  if (type === ':') return { value: Number(line), end: next };
  if (type === '$') {
    const len = Number(line);
    if (len < 0) return { value: null, end: next };
    if (buf.length < next + len + 2) return null;
    return { value: buf.toString('utf8', next, next + len), end: next + len + 2 };
  }
  if (type === '*') {
    const n = Number(line);
    if (n < 0) return { value: null, end: next };
    const items = [];
    let end = next;
    for (let k = 0; k < n; k++) {
      const item = parseResp(buf, end);
      if (!item) return null;
      items.push(item.value);
      end = item.end;
    }
    return { value: items, end };
  }
  throw new Error(`RESP: unexpected type byte ${JSON.stringify(type)}`);
}

/** Feeds chunks, calls `onValue(value, rawText)` for each complete RESP value. */
function respReader(onValue) {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      const got = parseResp(buf, 0);
      if (!got) return;
      onValue(got.value, buf.toString('utf8', 0, got.end));
      buf = buf.subarray(got.end);
    }
  };
}

/**
 * A parsed reply → what the simulator hands the harness (docs/labs.md, `reply` event):
 * {value} with strings, numbers, null and arrays, or {error: text}. Nested error
 * replies (none in this corpus) would stay tagged.
 */
function toEvent(r) {
  if (r && typeof r === 'object' && !Array.isArray(r) && typeof r.error === 'string') return { error: r.error };
  const plain = (x) => (Array.isArray(x) ? x.map(plain) : x && typeof x === 'object' && 'simple' in x ? x.simple : x);
  return { value: plain(r) };
}

// ---------------------------------------------------------------------------------
// The server and the proxy.
// ---------------------------------------------------------------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function startServer() {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    child.stdout.on('data', (d) => { out += d; if (/Ready to accept connections/.test(out)) resolve(); });
  });
  return { port, child };
}

/** A proxy to `port` that logs every command it forwards and every reply it returns. */
async function startProxy(port) {
  const log = { sent: [], replies: [] };
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    const readCmd = respReader((v) => log.sent.push(v));
    const readReply = respReader((v, raw) => log.replies.push({ raw, event: toEvent(v) }));
    client.on('data', (d) => { readCmd(d); upstream.write(d); });
    upstream.on('data', (d) => { readReply(d); client.write(d); });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: server.address().port, log, server };
}

const version = (pkg) => JSON.parse(readFileSync(fileURLToPath(new URL(`./node_modules/${pkg}/package.json`, import.meta.url)), 'utf8')).version;

const settle = (p, ms) => Promise.race([
  p.then((v) => ['resolved', v], (e) => ['rejected', e]),
  new Promise((resolve) => setTimeout(() => resolve(['pending']), ms)),
]);

async function main() {
  const { port, child } = await startServer();
  const proxy = await startProxy(port);
  const admin = createClient({ url: `redis://127.0.0.1:${port}` });
  await admin.connect();
  const connect = async () => {
    const c = createClient({ url: `redis://127.0.0.1:${proxy.port}` });
    c.on('error', () => {});
    await c.connect();
    await c.ping(); // the connection's own commands (CLIENT SETINFO) are answered by now
    return c;
  };
  let client = await connect();
  const redisVersion = (await admin.info('server')).match(/redis_version:(\S+)/)[1];
  const cases = [];
  for (const [name, method, args, setup = []] of CASES) {
    await admin.flushAll();
    await admin.scriptFlush();
    for (const cmd of setup) await admin.sendCommand(cmd);
    const sentFrom = proxy.log.sent.length;
    const repliesFrom = proxy.log.replies.length;
    let result;
    if (typeof client[method] !== 'function') {
      result = { how: 'no such method' };
    } else {
      let promise;
      try {
        promise = client[method](...decodeArg(args));
      } catch (err) {
        result = outcome('threw', err);
      }
      if (!result) {
        const [how, v] = await settle(promise, 2000);
        result = how === 'pending' ? { how } : outcome(how, v);
      }
    }
    // Let the proxy see every reply the client has already seen.
    for (let k = 0; k < 50 && proxy.log.replies.length < proxy.log.sent.length; k++) await new Promise((r) => setTimeout(r, 10));
    const sent = proxy.log.sent.slice(sentFrom);
    const replies = proxy.log.replies.slice(repliesFrom);
    cases.push({
      name,
      method,
      args: encode(decodeArg(args)),
      ...(setup.length ? { setup } : {}),
      sent: sent.map((args, k) => ({ args, ...(replies[k] || { raw: null, event: null }) })),
      result,
    });
    if (result.how === 'pending') { // no reply will come: start a fresh connection
      client.disconnect().catch(() => {});
      client = await connect();
    }
    console.log(`${name}: ${sent.map((s) => s.join(' ')).join(' | ') || '(nothing sent)'} → ${JSON.stringify(result)}`);
  }
  await client.quit();
  await admin.quit();
  proxy.server.close();
  child.kill();
  const corpus = {
    about: 'node-redis calls recorded against redis-server by tests/client-oracle/record.mjs; checked against labs/harness.js by replay.mjs',
    redis_package: version('redis'),
    node_redis_client: version('@redis/client'),
    redis_server: redisVersion,
    cases,
  };
  writeFileSync(OUT, `${JSON.stringify(corpus, null, 2)}\n`);
  console.log(`${cases.length} cases written to ${OUT}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

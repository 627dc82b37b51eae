// Live mode of the Node host (docs/labs.md, "Live mode"): one trial of a lab, its driver
// and the learner's file driven through the same harness as in the simulator, but
// against real redis-servers, real node-redis v4 clients and real time.
//
// This module runs in the HOST realm (trusted). It holds the node-redis clients and the
// sockets; the learner's code sees none of them. The harness gets JSON text (an `input`
// message) through `io.answer` and gives JSON text back; node-redis replies go in as
// plain JSON values, and nothing of the lab realm is read but that text.
//
// What a trial records, in the order it happened here: events (commands sent, replies,
// timeouts, the driver's beliefs, pauses, crashes, …) stamped with ms since t0, and every
// line each server's MONITOR showed. The simulator's Rust side judges them.

import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { createClient } from 'redis';

/** Harness answers per trial (as the simulator's limit). */
const MAX_ANSWERS = 20000;
/** Events recorded per trial, and MONITOR lines per node. */
const MAX_EVENTS = 200000;
const MAX_MONITOR_LINES = 200000;
/**
 * Text recorded per trial (events and MONITOR lines together, roughly as JSON): under
 * the simulator's 16 MiB answer line, and far under the host's heap (an argument may
 * be 64 KiB: 200 000 of them would not fit).
 */
const MAX_RECORD_BYTES = 12 << 20;
/** A MONITOR line longer than this (no line end yet) is a broken stream. */
const MAX_MONITOR_PENDING = 64 << 20;
/** Connecting (and the checks before t0), and the closing ECHO, may take this long. */
const CONNECT_MS = 5000;
const END_MS = 5000;
/** setTimeout's own limit: longer waits would fire at once. */
const MAX_WAIT_MS = 2 ** 31 - 1;
/** Bounds on the live message. */
const MAX_URLS = 64;
const MAX_WORKERS = 64;
const MAX_ATTACKS = 1000;
const MAX_DEADLINE_MS = 3600 * 1000;

const POINTS = ['command', 'timer', 'reply'];

/** ms (float) with µs decimals, as the harness's clocks. */
const us = (ms) => Math.round(ms * 1000) / 1000;

const isInt = (v, lo = 0) => Number.isSafeInteger(v) && v >= lo;
const isNum = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const plainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

class Invalid extends Error {}
function need(ok, what) {
  if (!ok) throw new Invalid(`bad live message: ${what}`);
}

/** The live message, checked; throws Invalid naming the first thing wrong. */
function validate(msg) {
  need(plainObject(msg), 'not an object');
  const { urls, workers, attacks = [], deadline_ms: deadlineMs, latency_ms: latency = [0, 0] } = msg;
  need(Array.isArray(urls) && urls.length >= 1 && urls.length <= MAX_URLS, `urls must be 1 to ${MAX_URLS} redis:// URLs`);
  const parsed = urls.map((u, i) => {
    need(typeof u === 'string' && u.length <= 2000, `urls[${i}] is not a string`);
    let url;
    try {
      url = new URL(u);
    } catch {
      need(false, `urls[${i}] is not a URL: ${u.slice(0, 200)}`);
    }
    need(url.protocol === 'redis:', `urls[${i}] must start with redis:// (${u.slice(0, 200)})`);
    need(url.hostname !== '', `urls[${i}] has no host`);
    return url;
  });
  need(Array.isArray(workers) && workers.length >= 1 && workers.length <= MAX_WORKERS, `workers must be 1 to ${MAX_WORKERS} workers`);
  const pids = new Set();
  workers.forEach((w, i) => {
    const at = `workers[${i}]`;
    need(plainObject(w), `${at} is not an object`);
    need(isInt(w.pid) && !pids.has(w.pid), `${at}.pid must be a distinct integer ≥ 0`);
    pids.add(w.pid);
    need(isInt(w.worker), `${at}.worker must be an integer ≥ 0`);
    need(isNum(w.start_ms) && w.start_ms <= MAX_DEADLINE_MS, `${at}.start_ms must be a number ≥ 0`);
    need(Array.isArray(w.nodes) && w.nodes.length >= 1 && w.nodes.length <= MAX_URLS, `${at}.nodes must list 1 to ${MAX_URLS} url indexes`);
    w.nodes.forEach((n, k) => need(isInt(n) && n < urls.length, `${at}.nodes[${k}] is not an index into urls`));
    need(Array.isArray(w.seeds) && w.seeds.length >= 1 && w.seeds.length <= 10000, `${at}.seeds must list 1 or more seeds`);
    w.seeds.forEach((s, k) => need(typeof s === 'string' && /^[0-9]{1,20}$/.test(s), `${at}.seeds[${k}] is not a decimal string`));
    const c = w.clock ?? { offset_ms: 0, rate_ppm: 0 };
    need(plainObject(c) && Number.isFinite(c.offset_ms) && Math.abs(c.offset_ms) <= 1e9, `${at}.clock.offset_ms must be a number of ms`);
    need(Number.isFinite(c.rate_ppm) && Math.abs(c.rate_ppm) <= 500000, `${at}.clock.rate_ppm must be within ±500000`);
  });
  need(Array.isArray(attacks) && attacks.length <= MAX_ATTACKS, `attacks must be a list of at most ${MAX_ATTACKS}`);
  const restarts = new Map();
  const checked = attacks.map((x, i) => {
    const at = `attacks[${i}]`;
    need(plainObject(x) && plainObject(x.op), `${at} must be an object with an op`);
    const kinds = Object.keys(x.op);
    need(kinds.length === 1, `${at}.op must have one kind (pause, crash or node_down)`);
    const [kind] = kinds;
    const op = x.op[kind];
    need(plainObject(op), `${at}.op.${kind} is not an object`);
    if (kind === 'node_down') {
      need(isInt(op.node) && op.node < urls.length, `${at}.op.node_down.node is not an index into urls`);
      need(isNum(op.at_us), `${at}.op.node_down.at_us must be a number ≥ 0`);
      return { kind, node: op.node, atMs: op.at_us / 1000 };
    }
    need(isInt(x.worker), `${at}.worker must be an integer ≥ 0`);
    need(isInt(x.command), `${at}.command must be an integer ≥ 0`);
    need(POINTS.includes(x.at ?? 'command'), `${at}.at must be one of ${POINTS.join(', ')}`);
    const base = { worker: x.worker, k: x.command, at: x.at ?? 'command' };
    if (kind === 'pause') {
      need(isNum(op.for_us) && op.for_us / 1000 <= MAX_DEADLINE_MS, `${at}.op.pause.for_us must be a number ≥ 0`);
      return { ...base, kind, ms: op.for_us / 1000 };
    }
    need(kind === 'crash', `${at}.op: unknown kind ${kind.slice(0, 50)}`);
    const after = op.restart_after_us ?? null;
    need(after === null || (isNum(after) && after / 1000 <= MAX_DEADLINE_MS), `${at}.op.crash.restart_after_us must be null or a number ≥ 0`);
    if (after !== null) restarts.set(x.worker, (restarts.get(x.worker) || 0) + 1);
    return { ...base, kind, restartMs: after === null ? null : after / 1000 };
  });
  for (const w of workers) {
    const n = restarts.get(w.worker) || 0;
    need(w.seeds.length > n, `worker ${w.worker} may restart ${n} times but has ${w.seeds.length} seeds`);
  }
  need(isNum(deadlineMs) && deadlineMs > 0 && deadlineMs <= MAX_DEADLINE_MS, `deadline_ms must be a number in (0, ${MAX_DEADLINE_MS}]`);
  need(Array.isArray(latency) && latency.length === 2 && latency.every((x) => isNum(x) && x <= 10000) && latency[0] <= latency[1],
    'latency_ms must be [low, high] in ms, 0 ≤ low ≤ high ≤ 10000');
  return { urls, parsed, workers, attacks: checked, deadlineMs, latency };
}

/** A reply of node-redis as a plain JSON value (strings, numbers, null, arrays). */
function plain(v, depth = 0) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (Buffer.isBuffer(v)) return v.toString('latin1');
  if (Array.isArray(v) && depth < 64) return v.map((x) => plain(x, depth + 1));
  return String(v);
}

/** About how many bytes v takes as JSON (strings counted by length). */
function weight(v, depth = 0) {
  if (typeof v === 'string') return v.length + 2;
  if (Array.isArray(v) && depth < 64) return v.reduce((n, x) => n + weight(x, depth + 1) + 1, 2);
  if (plainObject(v) && depth < 64) return Object.entries(v).reduce((n, [k, x]) => n + k.length + weight(x, depth + 1) + 4, 2);
  return 8;
}

/** The message of a node-redis rejection (an ErrorReply's is the server's text). */
function errorText(err) {
  const m = err && typeof err.message === 'string' ? err.message : String(err);
  return m.slice(0, 2000);
}

/** Rejects after ms with `what`, unless p settles first. */
function within(p, ms, what) {
  let timer;
  return Promise.race([
    p,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(what)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A node-redis client as a learner's code would make it, connected. */
async function connectClient(url) {
  const client = createClient({ url });
  client.on('error', () => {});
  try {
    await within(client.connect(), CONNECT_MS, `could not connect to ${url} within ${CONNECT_MS} ms`);
  } catch (err) {
    client.disconnect().catch(() => {});
    throw err;
  }
  return client;
}

/** `addr=ip:port` of CLIENT INFO: how this connection shows in MONITOR lines. */
async function clientAddr(client) {
  const info = String(await within(client.sendCommand(['CLIENT', 'INFO']), CONNECT_MS, 'CLIENT INFO did not answer'));
  const m = info.match(/(?:^|\s)addr=(\S+)/);
  return m ? m[1] : null;
}

/** RESP text of one command (for the raw MONITOR connection). */
const resp = (args) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/**
 * A raw MONITOR connection to `url`: resolves once the server said +OK. `mon.lines` then
 * collects every line it shows, without the leading '+', while `budget(bytes)` says
 * yes. `mark` is the ECHO argument that ends the stream (`mon.ended` resolves when it
 * shows).
 */
function openMonitor(url, mark, onError, budget) {
  return new Promise((resolve, reject) => {
    const mon = { lines: [], full: false, ended: null, socket: null };
    let endSeen;
    mon.ended = new Promise((r) => {
      endSeen = r;
    });
    const auth = [];
    if (url.password) {
      auth.push(url.username ? ['AUTH', decodeURIComponent(url.username), decodeURIComponent(url.password)] : ['AUTH', decodeURIComponent(url.password)]);
    }
    let oks = auth.length + 1;
    let pending = '';
    let ready = false;
    const socket = net.connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 6379) });
    mon.socket = socket;
    socket.setEncoding('latin1');
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`MONITOR on ${url.href} did not answer within ${CONNECT_MS} ms`));
    }, CONNECT_MS);
    socket.on('connect', () => socket.write(auth.map(resp).join('') + resp(['MONITOR'])));
    socket.on('error', (err) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`MONITOR on ${url.href}: ${errorText(err)}`));
      else onError(`the MONITOR connection to ${url.href} failed: ${errorText(err)}`);
      endSeen();
    });
    socket.on('close', () => endSeen());
    const endLine = `"ECHO" "${mark}"`;
    socket.on('data', (chunk) => {
      pending += chunk;
      let at;
      while ((at = pending.indexOf('\r\n')) >= 0) {
        const line = pending.slice(0, at);
        pending = pending.slice(at + 2);
        if (!ready) {
          if (line.startsWith('-')) {
            clearTimeout(timer);
            socket.destroy();
            reject(new Error(`MONITOR on ${url.href}: ${line.slice(1, 500)}`));
            return;
          }
          if (line === '+OK' && --oks === 0) {
            ready = true;
            clearTimeout(timer);
            resolve(mon);
          }
          continue;
        }
        const text = line.startsWith('+') ? line.slice(1) : line;
        if (text.endsWith(endLine)) {
          endSeen();
          continue;
        }
        if (mon.full) continue;
        if (mon.lines.length >= MAX_MONITOR_LINES) {
          mon.full = true;
          onError(`more than ${MAX_MONITOR_LINES} commands reached ${url.href} in one run`);
        } else if (!budget(text.length + 3)) {
          mon.full = true;
        } else {
          mon.lines.push(text);
        }
      }
      if (pending.length > MAX_MONITOR_PENDING) {
        onError(`the MONITOR stream of ${url.href} sent a line over ${MAX_MONITOR_PENDING >> 20} MiB`);
        socket.destroy();
      }
    });
  });
}

/** One live trial. */
class Trial {
  constructor(spec, io) {
    this.spec = spec;
    this.io = io;
    this.events = [];
    this.error = null;
    this.t0 = null;
    this.over = false;
    this.answers = 0;
    this.bytes = 0;
    this.chain = Promise.resolve();
    this.timers = new Set();
    this.admins = [];
    this.monitors = [];
    this.clients = new Set();
    this.down = new Set();
    this.attacks = spec.attacks.filter((a) => a.kind !== 'node_down').map((a) => ({ ...a, used: false }));
    this.mark = `lockstep-end:${randomUUID()}`;
    this.workers = spec.workers.map((w) => ({
      spec: w,
      pid: w.pid,
      index: w.worker,
      inc: 0,
      gen: 0,
      state: 'waiting', // 'live' | 'crashed' | 'over'
      restartPending: false,
      clients: [],
      links: [], // per client: when its last message arrives each way (the lab's latency)
      paused: false,
      queue: [], // inputs to deliver: {ev, point, counted}
      deferred: null, // actions held by a pause: [{action, counted}]
      scheduled: false,
      counts: { command: 0, timer: 0, reply: 0 },
      waits: new Set(), // its timers and command timeouts
      cmds: new Map(), // id -> {node, settled, timeout}
    }));
    this.finished = new Promise((resolve) => {
      this.endTrial = resolve;
    });
  }

  now() {
    return us(performance.now() - this.t0);
  }

  /**
   * Worker w's clock, as its inputs' `now_ms`: the machine's, in ms since the epoch, so
   * the learner's `Date.now()` agrees with the servers' (a PXAT it computes is the time
   * it means), moved by the scenario's offset and rate for that worker (its own machine:
   * in the fencing lab, A's clock runs 3 s ahead). The events keep ms since t0.
   */
  clock(w) {
    const c = w.spec.clock ?? { offset_ms: 0, rate_ppm: 0 };
    const elapsed = performance.now() - this.t0;
    return us(performance.timeOrigin + this.t0 + c.offset_ms + elapsed * (1 + c.rate_ppm / 1e6));
  }

  /** Takes n bytes of the record's budget; false (and the trial ends) past it. */
  spend(n) {
    this.bytes += n;
    if (this.bytes <= MAX_RECORD_BYTES) return true;
    this.finish(`your code sent more than ${MAX_RECORD_BYTES >> 20} MiB of commands and replies in one run`);
    return false;
  }

  /** One event, unless a limit is reached (then the trial ends with an error). */
  record(w, e, fields = {}) {
    if (this.events.length >= MAX_EVENTS) {
      this.finish(`more than ${MAX_EVENTS} events in one run`);
      return;
    }
    if (!this.spend(weight(fields) + 60)) return;
    this.events.push({ t: this.now(), pid: w ? w.pid : null, inc: w ? w.inc : null, e, ...fields });
  }

  /**
   * When a message put on `link` now in direction `way` arrives: after a latency drawn
   * from the lab's range, and not before the last one sent that way.
   */
  linkTime(link, way) {
    const [low, high] = this.spec.latency;
    const at = Math.max(performance.now() + low + Math.random() * (high - low), link[way]);
    link[way] = at;
    return at;
  }

  /** A host timer the trial's end clears. */
  after(ms, fn, set = this.timers) {
    const h = setTimeout(() => {
      set.delete(h);
      this.timers.delete(h);
      fn();
    }, Math.min(Math.max(0, Number(ms) || 0), MAX_WAIT_MS));
    set.add(h);
    if (set !== this.timers) this.timers.add(h);
    return h;
  }

  finish(error) {
    if (error && !this.error) this.error = error;
    if (this.over) return;
    this.over = true;
    this.endTrial();
  }

  /** The harness, one message at a time. */
  serial(fn) {
    this.chain = this.chain.then(fn).catch((err) => this.finish(`live host: ${errorText(err)}`));
  }

  active(w) {
    return !this.over && w.state === 'live';
  }

  checkEnd() {
    if (this.workers.every((w) => w.state === 'over' || (w.state === 'crashed' && !w.restartPending))) this.finish(null);
  }

  /** The attack at w's next stall point of kind `point`, taken (or null). */
  strikeAt(w, point) {
    const k = ++w.counts[point];
    const x = this.attacks.find((a) => !a.used && a.worker === w.index && a.k === k && a.at === point);
    if (!x) return null;
    x.used = true;
    return x;
  }

  /** Carries out attack x at w now. */
  strike(w, x) {
    if (x.kind === 'pause') this.pause(w, x.ms);
    else this.crash(w, x.restartMs);
  }

  pause(w, ms) {
    w.paused = true;
    this.record(w, 'pause', { ms });
    const gen = w.gen;
    this.after(ms, () => this.resume(w, gen));
  }

  resume(w, gen) {
    if (w.gen !== gen || !this.active(w)) return;
    w.paused = false;
    this.record(w, 'resume');
    const deferred = w.deferred;
    w.deferred = null;
    if (deferred) this.runActions(w, deferred);
    this.kick(w);
  }

  crash(w, restartMs) {
    this.record(w, 'crash');
    const { pid, index, inc } = w;
    w.gen++;
    w.state = 'crashed';
    w.paused = false;
    w.queue = [];
    w.deferred = null;
    w.scheduled = false;
    for (const h of w.waits) {
      clearTimeout(h);
      this.timers.delete(h);
    }
    w.waits.clear();
    w.cmds.clear();
    this.dropClients(w);
    // The harness forgets the process (its answer is always empty).
    this.serial(async () => {
      if (this.over) return;
      await this.io.answer(JSON.stringify({ type: 'input', pid, worker: index, inc, now_ms: this.clock(w), ev: { kind: 'crash' } }));
    });
    if (restartMs !== null) {
      w.restartPending = true;
      const gen = w.gen;
      this.after(restartMs, () => {
        this.restart(w, gen).catch((err) => this.finish(`could not restart worker ${index}: ${errorText(err)}`));
      });
    } else {
      this.checkEnd();
    }
  }

  dropClients(w) {
    for (const c of w.clients) {
      this.clients.delete(c);
      c.disconnect().catch(() => {});
    }
    w.clients = [];
    w.links = [];
  }

  /** w's clients (one per entry of nodes), each recorded with its address. */
  async connectWorker(w) {
    const clients = [];
    try {
      for (const n of w.spec.nodes) {
        const c = await connectClient(this.spec.urls[n]);
        clients.push(c);
        this.clients.add(c);
      }
      const addrs = [];
      for (const c of clients) addrs.push(await clientAddr(c));
      return { clients, addrs };
    } catch (err) {
      for (const c of clients) {
        this.clients.delete(c);
        c.disconnect().catch(() => {});
      }
      throw err;
    }
  }

  recordClients(w, addrs) {
    addrs.forEach((addr, k) => this.record(w, 'client', { node: w.spec.nodes[k], k, addr }));
  }

  async restart(w, gen) {
    if (this.over || w.gen !== gen) return;
    const { clients, addrs } = await this.connectWorker(w);
    if (this.over || w.gen !== gen) {
      for (const c of clients) {
        this.clients.delete(c);
        c.disconnect().catch(() => {});
      }
      return;
    }
    w.inc++;
    w.clients = clients;
    w.counts = { command: 0, timer: 0, reply: 0 };
    w.state = 'live';
    w.restartPending = false;
    this.recordClients(w, addrs);
    this.begin(w);
  }

  /** The start input of w's current incarnation. */
  begin(w) {
    const seed = w.spec.seeds[w.inc];
    w.queue.push({ ev: { kind: 'start', seed }, point: null, counted: true });
    this.kick(w);
  }

  /** An input reached w (a reply, a timeout, a timer, a resource answer). */
  arrive(w, gen, ev, point) {
    if (w.gen !== gen || !this.active(w)) return;
    const item = { ev, point, counted: false };
    // While paused it waits, uncounted: it meets its stall point at the resume.
    if (w.paused) {
      w.queue.push(item);
      return;
    }
    if (!this.meet(w, item, false)) return;
    w.queue.push(item);
    this.kick(w);
  }

  /**
   * item meets its stall point (once): false if an attack struck there (a pause keeps
   * the item first in line for the resume; a crash loses it).
   */
  meet(w, item, queued) {
    if (item.counted || !item.point) return true;
    item.counted = true;
    const x = this.strikeAt(w, item.point);
    if (!x) return true;
    if (x.kind === 'pause') w.queue.unshift(item);
    else if (queued) w.queue = [];
    this.strike(w, x);
    return false;
  }

  kick(w) {
    if (w.scheduled || w.paused || !w.queue.length || !this.active(w)) return;
    w.scheduled = true;
    const gen = w.gen;
    this.serial(() => this.slot(w, gen));
  }

  /** One input of w to the harness, and its actions carried out. */
  async slot(w, gen) {
    if (w.gen !== gen) return;
    w.scheduled = false;
    if (w.paused || !w.queue.length || !this.active(w)) return;
    const item = w.queue.shift();
    if (!this.meet(w, item, true)) return;
    if (this.answers >= MAX_ANSWERS) {
      this.finish(`your code sent too many commands (${MAX_ANSWERS} answers in one run)`);
      return;
    }
    this.answers++;
    if (item.ev.kind === 'start') this.record(w, 'start', { seed: item.ev.seed });
    const text = JSON.stringify({ type: 'input', pid: w.pid, worker: w.index, inc: w.inc, now_ms: this.clock(w), ev: item.ev });
    const answerText = await this.io.answer(text);
    if (w.gen !== gen || !this.active(w)) return;
    let answer;
    try {
      answer = JSON.parse(answerText);
    } catch {
      answer = null;
    }
    if (answer && answer.type === 'actions' && Array.isArray(answer.actions)) {
      this.runActions(w, answer.actions.map((action) => ({ action, counted: false })));
    } else {
      const message = answer && typeof answer.message === 'string' ? answer.message : 'the lab host gave no actions';
      this.workerError(w, message);
    }
    this.kick(w);
  }

  workerError(w, message) {
    this.record(w, 'action', { a: { a: 'error', message, line: null, col: null } });
    this.endWorker(w);
  }

  endWorker(w) {
    w.state = 'over';
    for (const h of w.waits) {
      clearTimeout(h);
      this.timers.delete(h);
    }
    w.waits.clear();
    w.queue = [];
    w.deferred = null;
    this.checkEnd();
  }

  /** w's actions in order, until a pause or a crash strikes before a command. */
  runActions(w, items) {
    for (let i = 0; i < items.length; i++) {
      if (!this.active(w)) return;
      if (w.paused) {
        // Paused as an input arrived while this answer was being made: all waits.
        w.deferred = (w.deferred || []).concat(items.slice(i));
        return;
      }
      const item = items[i];
      const a = item.action;
      if (plainObject(a) && a.a === 'cmd' && !item.counted) {
        item.counted = true;
        const x = this.strikeAt(w, 'command');
        if (x) {
          if (x.kind === 'pause') w.deferred = items.slice(i);
          this.strike(w, x);
          return;
        }
      }
      this.apply(w, a);
    }
  }

  apply(w, a) {
    if (!plainObject(a)) return;
    const gen = w.gen;
    switch (a.a) {
      case 'cmd': {
        const k = a.node;
        const node = Number.isSafeInteger(k) ? w.spec.nodes[k] : undefined;
        if (node === undefined) {
          this.workerError(w, `there is no Redis client ${k}: this worker has ${w.spec.nodes.length}`);
          return;
        }
        const args = Array.isArray(a.args) && a.args.length && a.args.every((x) => typeof x === 'string') ? a.args : null;
        if (!args) {
          this.workerError(w, 'the lab host sent a command that is not a list of strings');
          return;
        }
        const id = a.id;
        this.record(w, 'cmd', { id, node, args });
        const entry = { node, settled: false, timeout: null };
        w.cmds.set(id, entry);
        if (typeof a.timeout_ms === 'number') {
          entry.timeout = this.after(a.timeout_ms, () => {
            if (entry.settled || w.gen !== gen) return;
            entry.settled = true;
            w.cmds.delete(id);
            this.record(w, 'timeout', { id, node });
            this.arrive(w, gen, { kind: 'timeout', id }, 'reply');
          }, w.waits);
        }
        const settle = (fields) => {
          if (entry.settled || w.gen !== gen || this.over) return;
          entry.settled = true;
          w.cmds.delete(id);
          if (entry.timeout) {
            clearTimeout(entry.timeout);
            w.waits.delete(entry.timeout);
            this.timers.delete(entry.timeout);
          }
          this.record(w, 'reply', { id, node, ...fields });
          this.arrive(w, gen, { kind: 'reply', id, ...fields }, 'reply');
        };
        // The lab's network between the worker and the node, both ways (loopback alone
        // answers in well under a millisecond, and a race the lab is about would never
        // show): each message waits a latency drawn from the scenario's range, and
        // never overtakes the one before it on the same link, as in the simulator.
        const link = (w.links[k] ??= { out: 0, back: 0 });
        const sendAt = this.linkTime(link, 'out');
        this.after(sendAt - performance.now(), () => {
          // A node that is down takes nothing: the command waits for its timeout.
          if (w.gen !== gen || this.over || entry.settled || this.down.has(node)) return;
          w.clients[k].sendCommand(args).then(
            (value) => this.after(this.linkTime(link, 'back') - performance.now(), () => settle({ value: plain(value) }), w.waits),
            (err) => this.after(this.linkTime(link, 'back') - performance.now(), () => settle({ error: errorText(err) }), w.waits),
          );
        }, w.waits);
        return;
      }
      case 'timer':
        this.after(a.ms, () => this.arrive(w, gen, { kind: 'timer', id: a.id }, 'timer'), w.waits);
        return;
      case 'resource': {
        const { a: _kind, ...op } = a;
        void _kind;
        const id = a.id;
        this.io.request({ type: 'res', pid: w.pid, id, t: this.now(), op }).then((reply) => {
          if (this.over) return;
          this.arrive(w, gen, { kind: 'resource', id, reply }, 'reply');
        });
        return;
      }
      case 'done':
      case 'error':
      case 'stuck':
        this.record(w, 'action', { a });
        this.endWorker(w);
        return;
      default:
        this.record(w, 'action', { a });
    }
  }

  /** Before t0: clean servers, every worker's clients, and the MONITOR streams. */
  async setup() {
    const { urls, parsed } = this.spec;
    for (const url of urls) this.admins.push(await connectClient(url));
    for (const admin of this.admins) {
      await within(admin.sendCommand(['FLUSHALL']), CONNECT_MS, 'FLUSHALL did not answer');
      await within(admin.sendCommand(['SCRIPT', 'FLUSH']), CONNECT_MS, 'SCRIPT FLUSH did not answer');
    }
    const firstAddrs = [];
    for (const w of this.workers) {
      const { clients, addrs } = await this.connectWorker(w);
      w.clients = clients;
      firstAddrs.push(addrs);
    }
    const onError = (text) => this.finish(text);
    const budget = (n) => this.spend(n);
    for (const url of parsed) this.monitors.push(await openMonitor(url, this.mark, onError, budget));
    return firstAddrs;
  }

  /** After the end: every command executed is in the MONITOR lines (the ECHO shows last). */
  async drainMonitors() {
    await Promise.all(
      this.admins.map((admin, i) =>
        within(
          admin.sendCommand(['ECHO', this.mark]).then(() => this.monitors[i].ended),
          END_MS,
          `the MONITOR stream of ${this.spec.urls[i]} did not show the end within ${END_MS} ms`,
        ),
      ),
    );
  }

  async teardown() {
    for (const h of this.timers) clearTimeout(h);
    this.timers.clear();
    for (const m of this.monitors) m.socket.destroy();
    const all = [...this.clients, ...this.admins];
    this.clients.clear();
    await Promise.all(all.map((c) => c.disconnect().catch(() => {})));
  }

  result(t0Wall) {
    return {
      type: 'live_done',
      t0_wall_ms: t0Wall,
      events: this.events,
      monitor: this.spec.urls.map((_, i) => (this.monitors[i] ? this.monitors[i].lines : [])),
      error: this.error,
    };
  }

  async run() {
    let firstAddrs;
    try {
      firstAddrs = await this.setup();
    } catch (err) {
      this.error = errorText(err);
      await this.teardown();
      return this.result(null);
    }
    this.t0 = performance.now();
    const t0Wall = performance.timeOrigin + this.t0;
    this.workers.forEach((w, i) => this.recordClients(w, firstAddrs[i]));
    for (const x of this.spec.attacks) {
      if (x.kind !== 'node_down') continue;
      this.after(x.atMs, () => {
        if (this.over || this.down.has(x.node)) return;
        this.down.add(x.node);
        this.record(null, 'node_down', { node: x.node });
      });
    }
    for (const w of this.workers) {
      this.after(w.spec.start_ms, () => {
        if (this.over) return;
        w.state = 'live';
        this.begin(w);
      });
    }
    this.after(this.spec.deadlineMs, () => this.finish(null));
    await this.finished;
    this.record(null, 'end');
    for (const h of this.timers) clearTimeout(h);
    this.timers.clear();
    // An answer under way finishes (nothing after it is sent: the trial is over).
    await this.chain;
    try {
      await this.drainMonitors();
    } catch (err) {
      if (!this.error) this.error = errorText(err);
    }
    await this.teardown();
    return this.result(t0Wall);
  }
}

/**
 * Runs the trial `msg` (a `{"type":"live"}` message, parsed in this realm). `io`:
 * `answer(text)` → the harness's answer text (serial with everything else), and
 * `request(obj)`, which sends a line to the simulator and resolves with the `reply` of
 * its matching `res_reply`. Resolves with the `live_done` object.
 */
export async function runLiveTrial(msg, io) {
  let spec;
  try {
    spec = validate(msg);
  } catch (err) {
    const error = err instanceof Invalid ? err.message : `bad live message: ${errorText(err)}`;
    return { type: 'live_done', t0_wall_ms: null, events: [], monitor: [], error };
  }
  return new Trial(spec, io).run();
}

// Lockstep lab harness: runs the learner's JavaScript for the simulator.
//
// The wire protocol is docs/labs.md. This file is a plain script (no import/export)
// so the same text runs in a Node `vm` context (labs/node-host.mjs) and in a browser
// classic Worker (labs/sandbox.html). It defines `globalThis.LockstepLab`.
//
// Why it looks the way it does:
// - The simulator owns time, randomness and the network, so everything the learner
//   could use to observe them (Date, Math.random, crypto, timers, redis) is replaced
//   by a shim that reads the state of the process that is running right now. Only one
//   process runs between two drains of the microtask queue, so one `current` is enough.
// - Nothing here ever uses a real timer or real entropy: one seed gives one run, in
//   Node and in every browser.
// - Line numbers matter to a learner: `prepareSource` rewrites `export`/`import`
//   without moving any line, and the wrapper adds exactly one line on top.
(function (global) {
  'use strict';

  /** The protocol's limits, mirrored here so a runaway loop stops early and clearly. */
  const MAX_ACTIONS_PER_ANSWER = 1000;
  const MAX_ARG_BYTES = 64 * 1024;
  const MAX_LOG_CHARS = 500;
  /** An error's text, as the harness reports it (a 100 MB message is cut, not copied). */
  const MAX_MESSAGE_CHARS = 2000;
  /** XORed into the seed for the driver's random stream (lab.random). */
  const DRIVER_STREAM = 0xD1B54A32D192ED03n;

  /**
   * The one line put above the learner's source; learner line L is wrapper line L + 1.
   * Only CommonJS's own names are parameters (as in Node's module wrapper). console,
   * the timers and sleep are globals that act for the running process: as parameters,
   * a learner's `const sleep = (ms) => …` would be a SyntaxError.
   */
  const WRAPPER_HEAD = '(function (module, exports, require) {';
  /** A name no learner writes: `export default X` becomes an assignment to it (same width). */
  const DEFAULT_EXPORT = '__dflt_export';

  // ---------------------------------------------------------------------------
  // Coded words: what the harness (or a driver) says of its own goes to the simulator
  // as a code and its data, `coded: {code, data}`, beside its English text; the page
  // says it in the reader's language (`lab_msg_<code>` in content/ui.toml). Text the
  // JavaScript engine, node-redis or Redis writes stays theirs.
  // ---------------------------------------------------------------------------

  /** Errors the harness made, with their code: {code, data, message} (message: unchanged). */
  const CODED = new WeakMap();

  /**
   * `{code: 'timeout', node: 1, …}` (the form every caller writes, so a test can find
   * each code: `code: '…'`) → `{code, data}`, the data's values as short text; null
   * for anything else.
   */
  function codedOf(said) {
    if (!said || typeof said !== 'object') return null;
    const { code } = said;
    if (typeof code !== 'string' || !/^[a-z_]{1,40}$/.test(code)) return null;
    const data = {};
    for (const k of Object.keys(said).filter((k) => k !== 'code').slice(0, 8)) {
      const v = said[k];
      data[k.slice(0, 40)] = typeof v === 'string' ? v.slice(0, MAX_LOG_CHARS) : formatLog([v]);
    }
    return { code, data };
  }

  /** An error of the harness's own: `new Type(message)`, known by its code and data. */
  function codedError(Type, message, said) {
    const err = new Type(message);
    CODED.set(err, { coded: codedOf(said), message });
    return err;
  }

  /** The code of an error the harness made, while its message is still the one it made. */
  function codeOfError(err) {
    try {
      const entry = err && typeof err === 'object' ? CODED.get(err) : undefined;
      return entry && err.message === entry.message ? entry.coded : null;
    } catch (e) {
      return null;
    }
  }

  /** `answer` with `coded` when there is one. */
  const withCoded = (answer, coded) => (coded ? Object.assign(answer, { coded }) : answer);

  // ---------------------------------------------------------------------------
  // Source preparation: ES module syntax → plain function body, columns kept.
  // ---------------------------------------------------------------------------

  const IDENT = /^[A-Za-z_$][\w$]*$/;
  const KEYWORDS_BEFORE_REGEX = new Set([
    'return', 'typeof', 'instanceof', 'in', 'of', 'new', 'delete', 'void', 'throw',
    'case', 'do', 'else', 'yield', 'await',
  ]);

  /**
   * Finds the top-level (brace depth 0) `export` and `import` keywords of `src`,
   * skipping strings, comments, template literals and regular expressions.
   * A small scanner, not a parser: enough for statements at the top of a module.
   * Returns [{kw, start}] in order.
   */
  function findModuleKeywords(src) {
    const found = [];
    let depth = 0;
    // Template literals: each entry is the brace depth at which a `${` opened.
    const templateStack = [];
    let i = 0;
    let lastSignificant = ''; // last non-space token's text, to tell `/` regex from division
    const n = src.length;
    const scanString = (quote) => {
      i++;
      while (i < n && src[i] !== quote) {
        if (src[i] === '\\') i++;
        else if (src[i] === '\n') break; // unterminated: let the compiler complain
        i++;
      }
      i++;
    };
    // Scans template text from i (just after ` or after the } closing a ${) to its end
    // or to the next `${`.
    const scanTemplate = () => {
      while (i < n) {
        const c = src[i];
        if (c === '\\') { i += 2; continue; }
        if (c === '`') { i++; return; }
        if (c === '$' && src[i + 1] === '{') {
          i += 2;
          templateStack.push(depth);
          depth++;
          return;
        }
        i++;
      }
    };
    while (i < n) {
      const c = src[i];
      if (c === '/' && src[i + 1] === '/') {
        while (i < n && src[i] !== '\n') i++;
        continue;
      }
      if (c === '/' && src[i + 1] === '*') {
        const end = src.indexOf('*/', i + 2);
        i = end < 0 ? n : end + 2;
        continue;
      }
      if (c === '"' || c === "'") { scanString(c); lastSignificant = 'str'; continue; }
      if (c === '`') { i++; scanTemplate(); lastSignificant = 'str'; continue; }
      if (c === '/') {
        const prev = lastSignificant;
        const regexAllowed = prev === '' || /^[(,=:[!&|?{};+\-*%<>~^]$/.test(prev) ||
          KEYWORDS_BEFORE_REGEX.has(prev);
        if (regexAllowed) {
          i++;
          let inClass = false;
          while (i < n && src[i] !== '\n') {
            const r = src[i];
            if (r === '\\') { i += 2; continue; }
            if (r === '[') inClass = true;
            else if (r === ']') inClass = false;
            else if (r === '/' && !inClass) break;
            i++;
          }
          i++;
          while (i < n && /[\w$]/.test(src[i])) i++; // flags
          lastSignificant = 'str';
          continue;
        }
        i++;
        lastSignificant = '/';
        continue;
      }
      if (c === '{') { depth++; i++; lastSignificant = '{'; continue; }
      if (c === '}') {
        if (templateStack.length && templateStack[templateStack.length - 1] === depth - 1) {
          templateStack.pop();
          depth--;
          i++;
          scanTemplate();
          lastSignificant = 'str';
          continue;
        }
        depth = Math.max(0, depth - 1);
        i++;
        lastSignificant = '}';
        continue;
      }
      if (/[A-Za-z_$]/.test(c)) {
        const start = i;
        while (i < n && /[\w$]/.test(src[i])) i++;
        const word = src.slice(start, i);
        const afterDot = lastSignificant === '.' || lastSignificant === '?.';
        if (depth === 0 && !afterDot && (word === 'export' || word === 'import')) {
          // `import(` and `import.meta` are expressions, not declarations.
          const next = src.slice(i).match(/^\s*(.)/);
          if (!(word === 'import' && next && (next[1] === '(' || next[1] === '.'))) {
            found.push({ kw: word, start });
          }
        }
        lastSignificant = word;
        continue;
      }
      if (/\s/.test(c)) { i++; continue; }
      lastSignificant = c;
      i++;
    }
    return found;
  }

  const blank = (text) => text.replace(/[^\n]/g, ' ');
  const isThenable = (v) => v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';

  /** `a, b as c, default as d` → [{local, exported}] */
  function parseSpecifiers(list, refuse) {
    // refuse(message, text): the list's item that could not be read.
    return list.split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
      const m = s.match(/^([\w$]+)(?:\s+as\s+([\w$]+))?$/);
      if (!m) throw refuse(`cannot read "${s}" in an export or import list`, s);
      return { local: m[1], exported: m[2] || m[1] };
    });
  }

  /**
   * Turns an ES module's `export`/`import` forms into plain declarations, keeping
   * every line and, except inside a rewritten `import`, every column:
   * - `export <declaration>` → the declaration (the word `export` becomes spaces);
   * - `export { a, b as c }` → spaces; the names are returned in `exportNames`;
   * - `export default X` → `__dflt_export= X` (same width; returned as `default`);
   * - `import x from 'm'`, `import * as x from 'm'`, `import { a, b as c } from 'm'`
   *   → `const … = require('m')` on the same line (require gives only node:crypto).
   * CommonJS (`module.exports = …`, `exports.f = …`) passes through untouched.
   * Returns {source, exportNames: {exported: local}}.
   */
  function prepareSource(src) {
    src = String(src);
    // A SyntaxError of ours carries the learner's line and column, as the engine's would.
    const refuse = (message, start, said) => {
      const before = src.slice(0, start);
      const err = codedError(SyntaxError, message, said);
      err.line = (before.match(/\n/g) || []).length + 1;
      err.col = start - before.lastIndexOf('\n');
      return err;
    };
    const exportNames = {};
    let out = '';
    let copied = 0;
    for (const { kw, start } of findModuleKeywords(src)) {
      if (start < copied) continue;
      out += src.slice(copied, start);
      // Sticky and bounded: each match starts at the keyword and reads one statement
      // of at most a few hundred characters, so many `import`s cost linear time.
      const at = (re) => { re.lastIndex = start; return re.exec(src); };
      let m;
      if (kw === 'export') {
        if ((m = at(/export(\s*)\{([^}]{0,2000})\}(\s*from\s*(['"])[^'"\n]{0,500}\4)?(\s*;)?/y))) {
          if (m[3]) throw refuse('`export … from` is not available in a lab: write the functions in this file', start, { code: 'export_from' });
          for (const { local, exported } of parseSpecifiers(m[2], (text, item) => refuse(text, start, { code: 'bad_list', item }))) exportNames[exported] = local;
          out += blank(m[0]);
          copied = start + m[0].length;
        } else if ((m = at(/export\s+default\b/y))) {
          // "export default" is 14 characters, as is "__dflt_export=".
          const pad = m[0].length - 'export default'.length;
          out += `${DEFAULT_EXPORT}=` + ' '.repeat(pad);
          exportNames.default = DEFAULT_EXPORT;
          copied = start + m[0].length;
        } else if ((m = at(/export\s*\*/y))) {
          throw refuse('`export * from` is not available in a lab: write the functions in this file', start, { code: 'export_from' });
        } else {
          out += '      '; // `export` → six spaces; the declaration that follows stays put
          copied = start + 'export'.length;
        }
      } else {
        m = at(/import\s*([^'";]{0,500}?)\s*from\s*(['"])([^'"\n]{0,500})\2\s*;?|import\s*(['"])([^'"\n]{0,500})\4\s*;?/y);
        if (!m) throw refuse('cannot read this import: write `import crypto from \'node:crypto\'`', start, { code: 'bad_import' });
        const spec = m[1];
        const mod = JSON.stringify(m[3] !== undefined ? m[3] : m[5]);
        if (spec === undefined) {
          out += `require(${mod});`; // side-effect import
        } else {
          const parts = [];
          const braces = spec.match(/\{([^}]*)\}/);
          const outside = spec.replace(/\{[^}]*\}/, '').split(',').map((s) => s.trim()).filter(Boolean);
          for (const o of outside) {
            const star = o.match(/^\*\s*as\s+([\w$]+)$/);
            if (star) parts.push(`${star[1]} = require(${mod})`);
            else if (IDENT.test(o)) parts.push(`${o} = require(${mod})`);
            else throw refuse(`cannot read "${o}" in an import`, start, { code: 'bad_list', item: o });
          }
          if (braces) {
            const names = parseSpecifiers(braces[1], (text, item) => refuse(text, start, { code: 'bad_list', item })).map(({ local, exported }) =>
              (local === exported ? local : `${local}: ${exported}`));
            parts.push(`{ ${names.join(', ')} } = require(${mod})`);
          }
          // Keep the line count: an import spread over lines keeps its newlines.
          const newlines = (m[0].match(/\n/g) || []).length;
          out += `const ${parts.join(', ')};` + '\n'.repeat(newlines);
        }
        copied = start + m[0].length;
      }
    }
    out += src.slice(copied);
    return { source: out, exportNames, isModule: copied > 0 };
  }

  /** Wraps prepared source in the one-line head and a closing part returning `names`. */
  function wrap(src, names, strict) {
    for (const name of names) {
      if (!IDENT.test(name)) throw new Error(`"${name}" is not a function name`);
    }
    const { source, exportNames, isModule } = prepareSource(src);
    const pick = names.map((name) => {
      const local = Object.prototype.hasOwnProperty.call(exportNames, name) ? exportNames[name] : name;
      return `${JSON.stringify(name)}: (typeof ${local} !== 'undefined' ? ${local}` +
        ` : module.exports && module.exports[${JSON.stringify(name)}] !== undefined ? module.exports[${JSON.stringify(name)}]` +
        ` : exports[${JSON.stringify(name)}])`;
    });
    // The closing starts on a new line so a final `// comment` cannot swallow it.
    // An ES module is strict code in Node; CommonJS is not. Same line, so no line moves.
    // An ES module may await at its top level (`await client.connect()`): its body runs
    // as an async function, whose promise gives the module once those awaits are done.
    const moduleHead = isModule && !strict ? `(async ${WRAPPER_HEAD.slice(1)}` : WRAPPER_HEAD;
    const head = isModule || strict ? `${moduleHead} 'use strict';` : WRAPPER_HEAD;
    return `${head}\n${source}\n;var ${DEFAULT_EXPORT};\nreturn { ${pick.join(', ')} };\n})`;
  }

  /** The learner's file, wrapped; the function returns {name: value} for each name. */
  function wrapLearner(src, functionNames) {
    return wrap(src, functionNames);
  }

  /** The driver, wrapped; the function returns {worker}. */
  function wrapDriver(src) {
    // Always strict: a sloppy function's `caller` and `arguments` would hand the
    // driver's `lab` to any function it calls.
    return wrap(src, ['worker'], true);
  }

  // ---------------------------------------------------------------------------
  // Lockdown: a realm whose built-ins nobody can change.
  // ---------------------------------------------------------------------------

  /**
   * Freezes every built-in reachable from `global` (and the realm's hidden ones, got
   * from syntax), then `global` itself and each of `roots`. After it, code in the realm
   * cannot patch `JSON.stringify`, `Array.prototype.push`, `Promise.prototype.then`,
   * `Date.now` or any other shared object, nor leave a value on the global for another
   * worker to find: what the harness and the driver call is what they were written
   * against. A learner's own objects stay theirs.
   *
   * Freezing a prototype makes its properties read-only, and JavaScript then refuses to
   * assign the same name on an object that inherits it (`this.name = 'LockError'` in an
   * Error subclass, `obj.toString = …`). For the names code commonly assigns like that,
   * the data property becomes a getter and a setter that gives the object its own
   * property instead (as SES's "override taming" does).
   *
   * The hidden built-ins come from syntax, so it locks down the realm it was made in.
   */
  function lockdownRealm(global, roots) {
    const { freeze, getPrototypeOf, getOwnPropertyDescriptors, defineProperty, isFrozen } = Object;
    const ownKeys = Reflect.ownKeys;
    const tame = (proto, names) => {
      if (!proto) return;
      for (const name of names) {
        const d = Object.getOwnPropertyDescriptor(proto, name);
        if (!d || !('value' in d) || !d.configurable) continue;
        const value = d.value;
        defineProperty(proto, name, {
          get() { return value; },
          set(v) {
            if (this === proto) throw new TypeError(`Cannot assign to read only property '${String(name)}' of a built-in`);
            defineProperty(this, name, { value: v, writable: true, enumerable: true, configurable: true });
          },
          enumerable: d.enumerable,
          configurable: false,
        });
      }
    };
    const common = ['constructor', 'toString', 'valueOf', 'toLocaleString', 'toJSON'];
    tame(global.Object && global.Object.prototype, common);
    tame(global.Function && global.Function.prototype, ['constructor', 'toString']);
    for (const E of ['Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError']) {
      tame(global[E] && global[E].prototype, ['constructor', 'name', 'message', 'toString']);
    }
    const hidden = [];
    const tryPush = (f) => { try { hidden.push(f()); } catch (e) { /* not in this engine */ } };
    tryPush(() => getPrototypeOf(function* g() {}));
    tryPush(() => getPrototypeOf(async function a() {}));
    tryPush(() => getPrototypeOf(async function* ag() {}));
    tryPush(() => getPrototypeOf(getPrototypeOf([][Symbol.iterator]())));
    tryPush(() => getPrototypeOf([][Symbol.iterator]()));
    tryPush(() => getPrototypeOf(new Map()[Symbol.iterator]()));
    tryPush(() => getPrototypeOf(new Set()[Symbol.iterator]()));
    tryPush(() => getPrototypeOf(''[Symbol.iterator]()));
    tryPush(() => getPrototypeOf(/a/[Symbol.matchAll]('')));
    tryPush(() => getPrototypeOf(getPrototypeOf((async function* ag() {})())));
    tryPush(() => getPrototypeOf(getPrototypeOf(getPrototypeOf((async function* ag() {})()))));
    tryPush(() => getPrototypeOf(Uint8Array));
    tryPush(() => Object.getOwnPropertyDescriptor(function s() { 'use strict'; return arguments; }(), 'callee').get);
    const seen = new Set();
    const queue = [global, ...hidden, ...(roots || [])];
    while (queue.length) {
      const o = queue.pop();
      if ((typeof o !== 'object' && typeof o !== 'function') || o === null || seen.has(o)) continue;
      seen.add(o);
      let descriptors;
      try {
        descriptors = getOwnPropertyDescriptors(o);
      } catch (e) {
        continue;
      }
      for (const key of ownKeys(descriptors)) {
        const d = descriptors[key];
        if ('value' in d) queue.push(d.value);
        if (d.get) queue.push(d.get);
        if (d.set) queue.push(d.set);
      }
      try { queue.push(getPrototypeOf(o)); } catch (e) { /* a revoked proxy */ }
      try { if (!isFrozen(o)) freeze(o); } catch (e) { /* an exotic object that refuses */ }
    }
    return seen.size;
  }

  // ---------------------------------------------------------------------------
  // Per-process randomness.
  // ---------------------------------------------------------------------------

  /**
   * The process's PRNG: sfc32 (Chris Doty-Humphrey's Small Fast Counting generator,
   * 32-bit variant), whose 128-bit state is filled from the u64 seed by two rounds of
   * splitmix64 (Steele, Lea and Flood), computed with BigInt so every engine agrees:
   *   z = (s += 0x9E3779B97F4A7C15); z = (z ^ z>>30) * 0xBF58476D1CE4E5B9;
   *   z = (z ^ z>>27) * 0x94D049BB133111EB; out = z ^ z>>31      (all mod 2^64)
   * a, b = high and low halves of the first output; c, d = of the second. The first
   * 12 outputs are dropped (sfc32's usual warm-up). Math.random takes 53 bits from two
   * outputs; bytes come 4 per output, least significant first.
   */
  function makeRng(seedText) {
    const MASK = (1n << 64n) - 1n;
    let s = BigInt.asUintN(64, BigInt(seedText));
    const splitmix = () => {
      s = (s + 0x9E3779B97F4A7C15n) & MASK;
      let z = s;
      z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & MASK;
      z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & MASK;
      return z ^ (z >> 31n);
    };
    const x = splitmix();
    const y = splitmix();
    let a = Number(x >> 32n) >>> 0;
    let b = Number(x & 0xFFFFFFFFn) >>> 0;
    let c = Number(y >> 32n) >>> 0;
    let d = Number(y & 0xFFFFFFFFn) >>> 0;
    const next = () => {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
      return t >>> 0;
    };
    for (let k = 0; k < 12; k++) next();
    return {
      u32: next,
      random: () => ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992,
      fill(bytes) {
        for (let k = 0; k < bytes.length; k += 4) {
          let v = next();
          for (let j = 0; j < 4 && k + j < bytes.length; j++) {
            bytes[k + j] = v & 0xff;
            v >>>= 8;
          }
        }
        return bytes;
      },
    };
  }

  // ---------------------------------------------------------------------------
  // Small helpers.
  // ---------------------------------------------------------------------------

  const HEX = '0123456789abcdef';
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

  function bytesToHex(bytes) {
    let s = '';
    for (const v of bytes) s += HEX[v >> 4] + HEX[v & 15];
    return s;
  }

  /** Bytes (a Buffer-like view) as one character per byte, as node-redis sends a Buffer. */
  function bytesToBinary(view) {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    let s = '';
    for (let k = 0; k < bytes.length && k <= MAX_ARG_BYTES; k++) s += String.fromCharCode(bytes[k]);
    return s;
  }

  function bytesToBase64(bytes, url) {
    let s = '';
    for (let k = 0; k < bytes.length; k += 3) {
      const v = (bytes[k] << 16) | ((bytes[k + 1] || 0) << 8) | (bytes[k + 2] || 0);
      s += B64[(v >> 18) & 63] + B64[(v >> 12) & 63];
      s += k + 1 < bytes.length ? B64[(v >> 6) & 63] : '=';
      s += k + 2 < bytes.length ? B64[v & 63] : '=';
    }
    return url ? s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') : s;
  }

  /** A string's UTF-8 bytes, without TextEncoder (a vm context has none). */
  function utf8Bytes(text) {
    const out = [];
    for (let k = 0; k < text.length; k++) {
      let c = text.charCodeAt(k);
      if (c >= 0xd800 && c <= 0xdbff && k + 1 < text.length) {
        c = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++k) - 0xdc00);
      }
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return out;
  }

  /**
   * SHA-1 and SHA-256 (FIPS 180-4) of `bytes`, as 32-bit words: what a learner needs of
   * node:crypto's createHash (a script's SHA1 for EVALSHA, a digest as a token).
   */
  function digestWords(algorithm, bytes) {
    const rotl = (x, n) => (x << n) | (x >>> (32 - n));
    const rotr = (x, n) => (x >>> n) | (x << (32 - n));
    const m = bytes.slice();
    const bits = bytes.length * 8;
    m.push(0x80);
    while (m.length % 64 !== 56) m.push(0);
    for (let k = 7; k >= 0; k--) m.push(k >= 4 ? 0 : (bits >>> (k * 8)) & 0xff);
    const sha1 = algorithm === 'sha1';
    const h = sha1
      ? [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]
      : [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    const K = [
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ];
    const w = new Array(80);
    for (let off = 0; off < m.length; off += 64) {
      for (let t = 0; t < 16; t++) {
        w[t] = (m[off + 4 * t] << 24) | (m[off + 4 * t + 1] << 16) | (m[off + 4 * t + 2] << 8) | m[off + 4 * t + 3];
      }
      if (sha1) {
        for (let t = 16; t < 80; t++) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
        let [a, b, c, d, e] = h;
        for (let t = 0; t < 80; t++) {
          const f = t < 20 ? (b & c) | (~b & d) : t < 40 ? b ^ c ^ d : t < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
          const k = t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc : 0xca62c1d6;
          const tmp = (rotl(a, 5) + f + e + k + w[t]) | 0;
          e = d; d = c; c = rotl(b, 30); b = a; a = tmp;
        }
        [a, b, c, d, e].forEach((v, i) => { h[i] = (h[i] + v) | 0; });
      } else {
        for (let t = 16; t < 64; t++) {
          const s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3);
          const s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10);
          w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
        }
        let [a, b, c, d, e, f, g, hh] = h;
        for (let t = 0; t < 64; t++) {
          const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
          const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
          hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
        }
        [a, b, c, d, e, f, g, hh].forEach((v, i) => { h[i] = (h[i] + v) | 0; });
      }
    }
    return h;
  }

  /** node:crypto's createHash('sha1' | 'sha256'): update(text or bytes), digest('hex' | 'base64'). */
  function makeHash(algorithm) {
    const name = String(algorithm).toLowerCase().replace('-', '');
    if (name !== 'sha1' && name !== 'sha256') {
      throw codedError(Error, `createHash('${algorithm}') is not available in a lab: use 'sha1' or 'sha256'`, { code: 'hash_unavailable', name: String(algorithm) });
    }
    let bytes = [];
    const hash = {
      update(data) {
        const more = typeof data === 'string' ? utf8Bytes(data) : Array.from(new Uint8Array(data.buffer || data, data.byteOffset || 0, data.byteLength));
        if (bytes.length + more.length > 1 << 20) throw codedError(RangeError, 'createHash: at most 1 MiB in a lab', { code: 'hash_too_big' });
        bytes = bytes.concat(more);
        return hash;
      },
      digest(encoding) {
        const out = [];
        for (const v of digestWords(name, bytes)) out.push((v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
        if (encoding === 'hex') return bytesToHex(out);
        if (encoding === 'base64') return bytesToBase64(out, false);
        if (encoding === 'base64url') return bytesToBase64(out, true);
        const call = `digest(${encoding === undefined ? '' : JSON.stringify(encoding)})`;
        throw codedError(Error, `${call} is not available in a lab: use 'hex' or 'base64'`, { code: 'encoding_unavailable', call });
      },
    };
    return hash;
  }

  /** UTF-8 length, counted without TextEncoder (a vm context has none). */
  function utf8Length(text) {
    if (text.length * 3 <= MAX_ARG_BYTES) return text.length; // cannot be over the limit
    let bytes = 0;
    for (let k = 0; k < text.length; k++) {
      const u = text.charCodeAt(k);
      if (u < 0x80) bytes += 1;
      else if (u < 0x800) bytes += 2;
      else if (u >= 0xd800 && u <= 0xdbff) { bytes += 4; k++; } else bytes += 3;
    }
    return bytes;
  }

  /** Roughly Node's util.format: strings as they are, other values inspected briefly. */
  function formatValue(v, depth) {
    if (typeof v === 'string') return depth === 0 ? v : JSON.stringify(v);
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'function') return `[Function: ${v.name || 'anonymous'}]`;
      if (typeof v === 'bigint') return `${v}n`;
      return String(v);
    }
    // No stack: its file names differ between Node and a browser's Blob URL, and the
    // log text must be the same for one seed in every host.
    if (typeof v.message === 'string' && typeof v.name === 'string') return `${v.name}: ${v.message}`;
    if (depth > 2) return Array.isArray(v) ? '[Array]' : '[Object]';
    try {
      // Only the first items: the text is cut at 500 characters anyway.
      if (Array.isArray(v)) {
        const more = v.length > 20 ? `, … ${v.length - 20} more` : '';
        return `[ ${v.slice(0, 20).map((x) => formatValue(x, depth + 1)).join(', ')}${more} ]`;
      }
      const keys = Object.keys(v).slice(0, 20);
      if (!keys.length) return '{}';
      return `{ ${keys.map((k) => `${IDENT.test(k) ? k : JSON.stringify(k)}: ${formatValue(v[k], depth + 1)}`).join(', ')} }`;
    } catch (e) {
      return '[Object]';
    }
  }

  /** util.format's placeholders: %s %d %i %f %j %o %O %%. */
  function substitute(format, args) {
    let next = 0;
    const text = format.replace(/%[sdifjoO%]/g, (spec) => {
      if (spec === '%%') return '%';
      if (next >= args.length) return spec;
      const v = args[next++];
      if (typeof v === 'bigint') return `${v}n`;
      switch (spec) {
        case '%s': return typeof v === 'string' ? v : formatValue(v, 1);
        case '%d': return typeof v === 'object' ? 'NaN' : String(Number(v));
        case '%i': return String(parseInt(v, 10));
        case '%f': return String(parseFloat(v));
        case '%j': try { return JSON.stringify(v); } catch (e) { return '[Circular]'; }
        default: return formatValue(v, 1);
      }
    });
    return [text, ...args.slice(next)];
  }

  function formatLog(args) {
    if (typeof args[0] === 'string' && args.length > 1 && args[0].includes('%')) {
      args = substitute(args[0], args.slice(1));
    }
    const text = args.map((a) => formatValue(a, 0)).join(' ');
    return text.length > MAX_LOG_CHARS ? `${text.slice(0, MAX_LOG_CHARS - 1)}…` : text;
  }

  /** "TypeError: x is not a function" for an Error, something readable otherwise. */
  function errorMessage(err) {
    const cap = (text) => (text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text);
    try {
      if (err && typeof err === 'object' && typeof err.message === 'string') {
        const name = typeof err.name === 'string' && err.name ? err.name.slice(0, 100) : 'Error';
        return cap(`${name}: ${err.message.slice(0, MAX_MESSAGE_CHARS)}`);
      }
      return cap(`Uncaught ${formatValue(err, 1)}`);
    } catch (e) {
      return 'Uncaught exception (it could not be read)';
    }
  }

  /**
   * A line and column in `filename` from an error's stack text, or null. A frame:
   * "at acquire (learner.js:5:11)" or "at learner.js:5:11"; a compile error:
   * "learner.js:5\n<source line>\n      ^^^^\n".
   */
  function locateIn(filename, stack) {
    const text = String(stack).slice(0, 20000);
    const escaped = filename.replace(/[.]/g, '\\.');
    const frame = text.match(new RegExp(`${escaped}:(\\d+):(\\d+)`));
    if (frame) return { line: Number(frame[1]), col: Number(frame[2]) };
    const head = text.match(new RegExp(`^${escaped}:(\\d+)\\n[^\\n]*\\n( *)\\^`));
    if (head) return { line: Number(head[1]), col: head[2].length + 1 };
    const bare = text.match(new RegExp(`^${escaped}:(\\d+)`));
    if (bare) return { line: Number(bare[1]), col: null };
    return null;
  }

  /** `value` and everything in it, frozen (what the harness hands to two processes). */
  function deepFreeze(value) {
    if (value && typeof value === 'object' && !Object.isFrozen(value)) {
      Object.freeze(value);
      for (const key of Object.keys(value)) deepFreeze(value[key]);
    }
    return value;
  }

  /** A timer delay as Node reads it: not a number ≥ 0 → 0; over 2^31 - 1 → 1. */
  function delayMs(ms) {
    const v = Number(ms);
    if (!(v > 0)) return 0;
    return v > 2147483647 ? 1 : v;
  }

  /** A string for an action, refused (RangeError) over 64 KiB like a command argument. */
  function boundedText(value, what, name) {
    const text = String(value);
    if (utf8Length(text) > MAX_ARG_BYTES) throw codedError(RangeError, `${what} is longer than 64 KiB`, { code: 'text_too_long', name });
    return text;
  }

  const shortText = (value) => formatLog([value]);

  // ---------------------------------------------------------------------------
  // Shims: Date, Math.random, crypto, performance, console and the timers, made for
  // one realm. In the realm of the harness (and, in the browser, of everything) they
  // act for the process that runs now (`current`); in a process's own realm (Node:
  // one `vm` context per process) they act for that process only.
  // ---------------------------------------------------------------------------

  let current = null;
  const idleRng = makeRng('0');
  /** The process that runs now, for the shims of the harness's own realm. */
  const running = (what) => {
    if (!current) throw codedError(Error, `${what} is only available while a worker runs`, { code: 'worker_only', call: what });
    return current;
  };

  /** A typed array's kind across realms (`instanceof` fails for another realm's arrays). */
  const tagOf = (v) => Object.prototype.toString.call(v).slice(8, -1);

  /**
   * The shims of one realm. `procOf(what)` gives the process they act for (or throws
   * when there is none); `peek()` gives it or null, for what works between processes
   * (Date.now() reads 0 then). `RealDate` is that realm's own Date.
   */
  function makeShims(procOf, peek, RealDate) {
    const nowMs = () => { const p = peek(); return p ? p.now : 0; };
    const rng = () => { const p = peek(); return p ? p.rng : idleRng; };
    function SimDate(...args) {
      if (!new.target) return new RealDate(nowMs()).toString();
      return Reflect.construct(RealDate, args.length === 0 ? [nowMs()] : args, new.target);
    }
    SimDate.prototype = RealDate.prototype;
    // Whole milliseconds, as in every engine: a learner who computes a PX or PXAT from
    // Date.now() must not send Redis "1300.25" (performance.now() keeps the decimals).
    SimDate.now = () => Math.floor(nowMs());
    SimDate.parse = RealDate.parse;
    SimDate.UTC = RealDate.UTC;

    /** Bytes in the shape of a Node Buffer, enough for tokens: toString('hex'|'base64'). */
    const makeBytes = (n) => {
      const bytes = rng().fill(new Uint8Array(n));
      Object.defineProperty(bytes, 'toString', {
        value(encoding) {
          if (encoding === 'hex') return bytesToHex(this);
          if (encoding === 'base64') return bytesToBase64(this, false);
          if (encoding === 'base64url') return bytesToBase64(this, true);
          const call = `randomBytes(…).toString(${encoding === undefined ? '' : JSON.stringify(encoding)})`;
          throw codedError(Error, `${call} is not available in a lab: use 'hex' or 'base64'`, { code: 'encoding_unavailable', call });
        },
      });
      return bytes;
    };

    const crypto = {
      randomUUID() {
        const b = rng().fill(new Uint8Array(16));
        b[6] = (b[6] & 0x0f) | 0x40; // version 4
        b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
        const h = bytesToHex(b);
        return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
      },
      getRandomValues(array) {
        const tag = tagOf(array);
        if (!ArrayBuffer.isView(array) || tag === 'Float32Array' || tag === 'Float64Array' || tag === 'DataView') {
          throw codedError(TypeError, 'getRandomValues needs an integer typed array', { code: 'random_values_type' });
        }
        if (array.byteLength > 65536) throw codedError(Error, 'getRandomValues: at most 65536 bytes at a time', { code: 'random_values_size' });
        rng().fill(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
        return array;
      },
      randomBytes(n) {
        const size = Number(n);
        if (!Number.isInteger(size) || size < 0 || size > 65536) {
          throw codedError(RangeError, 'randomBytes(n): n must be an integer from 0 to 65536', { code: 'random_bytes_size' });
        }
        return makeBytes(size);
      },
    };
    crypto.createHash = (algorithm) => makeHash(algorithm);
    crypto.default = crypto;
    crypto.webcrypto = crypto;

    const console = {};
    for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
      console[level] = (...args) => { const p = peek(); if (p) p.console[level](...args); };
    }

    return {
      Date: SimDate,
      crypto,
      performance: { now: () => nowMs(), timeOrigin: 0 },
      console,
      random: () => rng().random(),
      require(name) {
        if (name === 'crypto' || name === 'node:crypto') return crypto;
        const p = peek();
        if ((name === 'redis' || name === '@redis/client') && p && p.modules) return p.modules.redis;
        throw codedError(Error, `require('${name}') is not available in a lab: it gives node:crypto and redis`, { code: 'require_unavailable', name: String(name) });
      },
      // Timers act for the process, like Date and Math.random. They replace the host's
      // real ones: a real timer would fire outside the simulator's time.
      timers: {
        setTimeout: (...args) => procOf('setTimeout').setTimeout(...args),
        setInterval: (...args) => procOf('setInterval').setInterval(...args),
        clearTimeout: (id) => { const p = peek(); if (p) p.clearTimeout(id); },
        clearInterval: (id) => { const p = peek(); if (p) p.clearInterval(id); },
        sleep: (ms) => procOf('sleep').sleep(ms),
        // Node's vm context has none; an exception in the callback ends the process, as an
        // uncaught exception would.
        queueMicrotask: (cb) => {
          const proc = procOf('queueMicrotask');
          if (typeof cb !== 'function') throw codedError(TypeError, 'queueMicrotask needs a function', { code: 'needs_function', call: 'queueMicrotask' });
          Promise.resolve().then(() => cb()).catch((err) => { if (!(err instanceof ProcessOver)) proc.fail(err); });
        },
      },
    };
  }

  /** Puts `shims` on a realm's global; own properties shadow a Worker's prototype accessors. */
  function installShims(global, shims) {
    const define = (name, value) =>
      Object.defineProperty(global, name, { value, writable: true, configurable: true, enumerable: false });
    define('Date', shims.Date);
    define('crypto', shims.crypto);
    define('performance', shims.performance);
    define('console', shims.console);
    for (const [name, fn] of Object.entries(shims.timers)) define(name, fn);
    global.Math.random = shims.random;
    // It would block the thread without working: no simulated time passes meanwhile, and
    // only a wall clock could stop it.
    if (global.Atomics) {
      global.Atomics.wait = () => { throw codedError(Error, 'Atomics.wait is not available in a lab: use sleep(ms)', { code: 'atomics_wait' }); };
    }
  }

  /** The shims of this realm, acting for `current`: put on its global once. */
  const realmShims = makeShims(running, () => current, global.Date);
  let realmShimsInstalled = false;
  function installGlobals() {
    if (realmShimsInstalled) return;
    realmShimsInstalled = true;
    installShims(global, realmShims);
  }

  // ---------------------------------------------------------------------------
  // The harness.
  // ---------------------------------------------------------------------------

  /** Thrown into the process's own code when it must stop (too many actions, crash). */
  class ProcessOver extends Error {}

  /** A Redis error reply, as node-redis v4 rejects with it (its name stays "Error"). */
  class ErrorReply extends Error {}

  /**
   * createHarness({learnerFactory, driverFactory, functions, params, drain, locate}):
   * learnerFactory/driverFactory are the compiled wrappers (called with module,
   * exports, require, console, timers, sleep); drain() resolves once the microtask
   * queue is empty; locate(err) gives {line, col} in the learner's file or null.
   */
  function createHarness(options) {
    const { learnerFactory, driverFactory, drain, locate, locateFile } = options;
    // Told what runs next, so a host can name the function that never returns (an
    // infinite loop blocks it from saying anything after): {type: 'in', fn, pid} as a
    // learner's function is called, {type: 'doing', pid, running} before an event runs
    // in a process (`running`: its learner functions not yet returned).
    const watch = typeof options.watch === 'function' ? options.watch : null;
    const functions = Array.from(options.functions || []);
    let params = deepFreeze(options.params || {});
    let processes = new Map();
    // This run is one trial the page draws (`{"type":"run","watch":true}`: Run, a
    // replay): each `cmd` says the learner's line that sent it. Not in Try to break it's
    // trials, which would read a stack for every command.
    let lines = false;
    /** What waits for the host's drain (`beginText`, then `finishText`): {proc} or {init}. */
    let pending = null;
    installGlobals();

    const where = (err) => {
      try {
        let at = null;
        if (locate) at = locate(err);
        else if (locateFile) at = locateIn(locateFile, err && typeof err.stack === 'string' ? err.stack : '');
        return at && Number.isFinite(at.line) ? { line: at.line, col: Number.isFinite(at.col) ? at.col : null } : { line: null, col: null };
      } catch (e) {
        return { line: null, col: null };
      }
    };

    /** A fresh module instance, with the `require` of the realm it runs in. */
    function instantiate(factory, require) {
      const module = { exports: {} };
      return factory.call(undefined, module, module.exports, require);
    }

    /**
     * The learner's module for `proc`. With a realm of its own (Node), the process's
     * shims go on that realm's global and the learner's code (compiled there by the
     * host) runs there: what it changes of its built-ins or its global stays in its own
     * process, as in a separate Node process. Otherwise it runs in this realm, locked
     * down by the host.
     */
    function learnerOf(proc, realm) {
      if (!realm) return instantiate(learnerFactory, realmShims.require);
      const mine = () => proc;
      const shims = makeShims(mine, mine, realm.global.Date);
      installShims(realm.global, shims);
      return instantiate(realm.factory, shims.require);
    }

    function makeProcess(pid, worker, inc, now, seed) {
      const proc = {
        pid, worker, inc, now,
        rng: makeRng(seed),
        // The driver's own stream (seed XOR a constant), so a learner who draws more
        // random numbers does not change the work and retry times of the schedule.
        driverRng: makeRng(String(BigInt.asUintN(64, BigInt(seed) ^ DRIVER_STREAM))),
        nextId: 1,
        commands: new Map(),
        requests: new Map(),
        timers: new Map(),
        actions: [],
        over: false,
        stuckReported: false,
        running: new Map(), // learner function name → calls in progress (for "stuck")
        clients: null,
      };
      proc.modules = { redis: redisModuleOf(proc) };

      /** Every action goes through here, so the per-answer limit holds everywhere. */
      proc.emit = (action) => {
        if (proc.over) throw new ProcessOver('this process is over');
        if (proc.actions.length >= MAX_ACTIONS_PER_ANSWER - 1) {
          proc.actions.push({
            a: 'error', message: `your code sent more than ${MAX_ACTIONS_PER_ANSWER} commands without waiting`, line: null, col: null,
            coded: codedOf({ code: 'too_many_commands', max: MAX_ACTIONS_PER_ANSWER }),
          });
          proc.over = true;
          throw new ProcessOver('too many actions');
        }
        proc.actions.push(action);
      };
      proc.newId = () => proc.nextId++;
      proc.fail = (err) => {
        if (proc.over) return;
        const { line, col } = where(err);
        proc.actions.push(withCoded({ a: 'error', message: errorMessage(err), line, col }, codeOfError(err)));
        proc.over = true;
      };

      const log = (...args) => { proc.emit({ a: 'log', text: formatLog(args) }); };
      proc.console = { log, info: log, warn: log, error: log, debug: log };

      proc.setTimeout = (cb, ms, ...args) => {
        if (typeof cb !== 'function') throw codedError(TypeError, 'setTimeout needs a function', { code: 'needs_function', call: 'setTimeout' });
        const id = proc.newId();
        const delay = delayMs(ms);
        proc.timers.set(id, { cb, args, interval: false, ms: delay });
        proc.emit({ a: 'timer', id, ms: delay });
        return id;
      };
      proc.setInterval = (cb, ms, ...args) => {
        if (typeof cb !== 'function') throw codedError(TypeError, 'setInterval needs a function', { code: 'needs_function', call: 'setInterval' });
        const id = proc.newId();
        const delay = delayMs(ms);
        proc.timers.set(id, { cb, args, interval: true, ms: delay });
        proc.emit({ a: 'timer', id, ms: delay });
        return id;
      };
      proc.clearTimeout = (id) => { proc.timers.delete(id); };
      proc.clearInterval = proc.clearTimeout;
      proc.sleep = (ms) => new Promise((resolve) => { proc.setTimeout(resolve, ms); });
      return proc;
    }

    /**
     * Sends one command; the promise settles on `reply`/`timeout`. The error object
     * is made now, while the learner's frame is on the stack, so `locate` can point
     * at the line that sent the command when the reply is an error, and, in a run the
     * page draws, the `cmd` action says that line (`line`: a number, or null).
     */
    function command(proc, node, timeoutMs, name, args) {
      const origin = new Error(name);
      const strings = [];
      for (let k = 0; k < args.length; k++) {
        const v = args[k];
        // As node-redis v4's encoder: strings and Buffers only. A number is refused,
        // not turned into text: code that passes here must not throw in production.
        if (typeof v === 'string') strings.push(v);
        else if (ArrayBuffer.isView(v)) strings.push(bytesToBinary(v));
        else return Promise.reject(new TypeError('Invalid argument type'));
        if (utf8Length(strings[k]) > MAX_ARG_BYTES) {
          return Promise.reject(codedError(RangeError, `redis ${name}: argument ${k + 1} is longer than 64 KiB`, { code: 'argument_too_long', command: name, n: k + 1 }));
        }
      }
      // node-redis sends an empty command and waits for ever; a lab says why instead.
      if (!strings.length) return Promise.reject(codedError(TypeError, 'redis sendCommand needs at least the command name', { code: 'empty_command' }));
      let settle;
      const promise = new Promise((resolve, reject) => { settle = { resolve, reject }; });
      const id = proc.newId();
      // emit before registering: past the action limit it throws here, synchronously,
      // which is what stops a loop that sends commands without awaiting them.
      const action = { a: 'cmd', id, node, args: strings, timeout_ms: timeoutMs };
      if (lines) action.line = where(origin).line;
      proc.emit(action);
      proc.commands.set(id, { ...settle, origin, node, timeoutMs });
      return promise;
    }

    const replyBoolean = (v) => v === 1 || v === true;
    /** node-redis v4's `keys`/`arguments` of EVAL and EVALSHA (a string's characters spread). */
    const scriptArgs = (opts) => {
      const out = [];
      if (opts && opts.keys) out.push(opts.keys.length.toString(), ...opts.keys);
      else out.push('0');
      if (opts && opts.arguments) out.push(...opts.arguments);
      return out;
    };
    /** DEL, EXISTS, UNLINK: an array's items, or the first argument alone (as node-redis). */
    const keyList = (keys) => (Array.isArray(keys) ? keys : [keys]);
    /** A time node-redis turns into text with `toString()`, or a Date as ms or s. */
    const atTime = (t, seconds) => (t instanceof Date || tagOf(t) === 'Date'
      ? String(seconds ? Math.floor(t.getTime() / 1000) : t.getTime())
      : t.toString());
    /** SET's options in node-redis v4's order: one expiry (EX, PX, EXAT, PXAT, KEEPTTL), then NX or XX, then GET. */
    function setArgs(key, value, o) {
      const args = ['SET', key, typeof value === 'number' ? value.toString() : value];
      if (o) {
        if (o.EX !== undefined) args.push('EX', o.EX.toString());
        else if (o.PX !== undefined) args.push('PX', o.PX.toString());
        else if (o.EXAT !== undefined) args.push('EXAT', o.EXAT.toString());
        else if (o.PXAT !== undefined) args.push('PXAT', o.PXAT.toString());
        else if (o.KEEPTTL) args.push('KEEPTTL');
        if (o.NX) args.push('NX');
        else if (o.XX) args.push('XX');
        if (o.GET) args.push('GET');
      }
      return args;
    }

    /** A client like node-redis v4 (tests/client-oracle holds it to the real one). */
    function makeClient(proc, node, timeoutMs) {
      // Arguments are read first; what throws there rejects, as in node-redis.
      const send = (name, build, map) => {
        let args;
        try {
          args = build();
        } catch (err) {
          return Promise.reject(err);
        }
        const p = command(proc, node, timeoutMs, name, args);
        return map ? p.then(map) : p;
      };
      const client = {
        sendCommand: (args) => send('sendCommand', () => {
          const list = [];
          for (let k = 0; k < args.length; k++) list.push(args[k]);
          return list;
        }),
        set: (key, value, opts) => send('SET', () => setArgs(key, value, opts)),
        get: (key) => send('GET', () => ['GET', key]),
        del: (keys) => send('DEL', () => ['DEL', ...keyList(keys)]),
        unlink: (keys) => send('UNLINK', () => ['UNLINK', ...keyList(keys)]),
        exists: (keys) => send('EXISTS', () => ['EXISTS', ...keyList(keys)]),
        incr: (key) => send('INCR', () => ['INCR', key]),
        incrBy: (key, by) => send('INCRBY', () => ['INCRBY', key, by.toString()]),
        decr: (key) => send('DECR', () => ['DECR', key]),
        pExpire: (key, ms, mode) => send('PEXPIRE', () => ['PEXPIRE', key, ms.toString(), ...(mode ? [mode] : [])], replyBoolean),
        expire: (key, s, mode) => send('EXPIRE', () => ['EXPIRE', key, s.toString(), ...(mode ? [mode] : [])], replyBoolean),
        pExpireAt: (key, at, mode) => send('PEXPIREAT', () => ['PEXPIREAT', key, atTime(at, false), ...(mode ? [mode] : [])], replyBoolean),
        expireAt: (key, at, mode) => send('EXPIREAT', () => ['EXPIREAT', key, atTime(at, true), ...(mode ? [mode] : [])], replyBoolean),
        persist: (key) => send('PERSIST', () => ['PERSIST', key], replyBoolean),
        pTTL: (key) => send('PTTL', () => ['PTTL', key]),
        ttl: (key) => send('TTL', () => ['TTL', key]),
        eval: (script, opts) => send('EVAL', () => ['EVAL', script, ...scriptArgs(opts)]),
        evalSha: (sha, opts) => send('EVALSHA', () => ['EVALSHA', sha, ...scriptArgs(opts)]),
        scriptLoad: (script) => send('SCRIPT', () => ['SCRIPT', 'LOAD', script]),
        scriptExists: (shas) => send('SCRIPT', () => ['SCRIPT', 'EXISTS', ...keyList(shas)],
          (v) => (Array.isArray(v) ? v.map(replyBoolean) : v)),
        setNX: (key, value) => send('SETNX', () => ['SETNX', key, value], replyBoolean),
        setEx: (key, s, value) => send('SETEX', () => ['SETEX', key, s.toString(), value]),
        pSetEx: (key, ms, value) => send('PSETEX', () => ['PSETEX', key, ms.toString(), value]),
        getDel: (key) => send('GETDEL', () => ['GETDEL', key]),
        getSet: (key, value) => send('GETSET', () => ['GETSET', key, value]),
        ping: (message) => send('PING', () => (message === undefined ? ['PING'] : ['PING', message])),
      };
      // node-redis v4 also names each command in capitals (client.SET, client.SCRIPT_LOAD).
      const capitals = {
        SET: 'set', GET: 'get', DEL: 'del', UNLINK: 'unlink', EXISTS: 'exists', INCR: 'incr',
        INCRBY: 'incrBy', DECR: 'decr', PEXPIRE: 'pExpire', EXPIRE: 'expire', PEXPIREAT: 'pExpireAt',
        EXPIREAT: 'expireAt', PERSIST: 'persist', PTTL: 'pTTL', TTL: 'ttl', EVAL: 'eval',
        EVALSHA: 'evalSha', SCRIPT_LOAD: 'scriptLoad', SCRIPT_EXISTS: 'scriptExists', SETNX: 'setNX',
        SETEX: 'setEx', PSETEX: 'pSetEx', GETDEL: 'getDel', GETSET: 'getSet', PING: 'ping',
      };
      for (const [upper, lower] of Object.entries(capitals)) client[upper] = client[lower];
      // The learner's code receives it: it may not swap a method under the driver.
      return Object.freeze(client);
    }

    function request(proc, action) {
      let resolve;
      const promise = new Promise((r) => { resolve = r; });
      const id = proc.newId();
      proc.emit({ a: 'resource', id, ...action });
      proc.requests.set(id, { resolve });
      return promise;
    }

    /** The `lab` object of docs/labs.md "The driver". */
    /** The process's clients, one per node, made once (its code and its driver share them). */
    function clientsOf(proc) {
      if (!proc.clients) {
        const nodes = Number.isInteger(params.nodes) && params.nodes > 0 ? params.nodes : 1;
        const timeoutMs = typeof params.timeout_ms === 'number' ? params.timeout_ms : null;
        const clients = [];
        for (let k = 0; k < nodes; k++) clients.push(makeClient(proc, k, timeoutMs));
        proc.clients = Object.freeze(clients);
      }
      return proc.clients;
    }

    /**
     * What `require('redis')` gives the learner's code in a lab: code pasted from a real
     * project runs as it is. `createClient()` hands back the lab's own client for the
     * first node (the one the functions receive), and says so in the log; connecting and
     * quitting do nothing, since the lab owns the connection.
     */
    function redisModuleOf(proc) {
      let told = false;
      const createClient = () => {
        if (!told && !proc.over) {
          told = true;
          proc.emit({
            a: 'log', text: 'createClient(): in a lab you do not connect: this is the lab\'s client for Redis node 1, the same one your functions receive',
            coded: codedOf({ code: 'create_client' }),
          });
        }
        const client = clientsOf(proc)[0];
        const quiet = () => Promise.resolve();
        return Object.freeze(Object.assign(Object.create(client), {
          connect: quiet, disconnect: quiet, quit: quiet, on() { return this; }, isOpen: true, isReady: true,
        }));
      };
      return Object.freeze({ createClient, default: Object.freeze({ createClient }) });
    }

    function makeLab(proc, fns) {
      const clients = clientsOf(proc);
      return Object.freeze({
        redis: clients[0],
        clients,
        fns,
        params,
        worker: proc.worker,
        sleep: proc.sleep,
        random: () => proc.driverRng.random(),
        held(token, untilMs) {
          const text = token === undefined || token === null ? null : boundedText(token, 'the token', 'token');
          proc.emit({ a: 'held', token: text, until_ms: typeof untilMs === 'number' && Number.isFinite(untilMs) ? untilMs : null });
        },
        released() { proc.emit({ a: 'released' }); },
        // Each may also give its words as a code and data, `{code: 'lock_taken', …}`
        // (docs/labs.md, "The driver"): the page says those in the reader's language.
        lost(reason, coded) { proc.emit(withCoded({ a: 'lost', reason: shortText(reason) }, codedOf(coded))); },
        failed(reason, coded) { proc.emit(withCoded({ a: 'failed', reason: shortText(reason) }, codedOf(coded))); },
        note(text, coded) { proc.emit(withCoded({ a: 'log', text: shortText(text) }, codedOf(coded))); },
        /** An Error for the driver to throw, known by its code: `throw lab.error(text, {code, …})`. */
        error(message, coded) {
          const text = String(message);
          return coded ? codedError(Error, text, coded) : new Error(text);
        },
        resource: Object.freeze({
          write(key, value, opts) {
            const token = opts && typeof opts.token === 'number' && Number.isFinite(opts.token) ? opts.token : null;
            try {
              const action = { op: 'write', key: boundedText(key, 'the key', 'key'), value: boundedText(value, 'the value', 'value'), token };
              // An idempotency key: a resource that honours them (a payment provider)
              // refuses a second write carrying the same key.
              if (opts && opts.idempotencyKey !== undefined && opts.idempotencyKey !== null) {
                action.idempotency_key = boundedText(opts.idempotencyKey, 'the idempotency key', 'idempotencyKey');
              }
              return request(proc, action);
            } catch (err) {
              if (err instanceof ProcessOver) throw err;
              return Promise.reject(err);
            }
          },
          read(key) {
            try {
              return request(proc, { op: 'read', key: boundedText(key, 'the key', 'key') });
            } catch (err) {
              if (err instanceof ProcessOver) throw err;
              return Promise.reject(err);
            }
          },
        }),
      });
    }

    /** Wraps each learner function so "stuck" can say which one never returned. */
    function trackCalls(proc, learner) {
      const fns = {};
      for (const name of functions) {
        const fn = learner[name];
        fns[name] = function (...args) {
          if (watch) watch({ type: 'in', fn: name, pid: proc.pid });
          proc.running.set(name, (proc.running.get(name) || 0) + 1);
          const leave = () => proc.running.set(name, proc.running.get(name) - 1);
          let result;
          try {
            result = fn.apply(this, args);
          } catch (e) {
            leave();
            throw e;
          }
          if (result && typeof result.then === 'function') {
            result.then(leave, leave);
          } else {
            leave();
          }
          return result;
        };
      }
      return fns;
    }

    const missing = (learner) => functions.find((name) => !learner || typeof learner[name] !== 'function');

    function start(msg, ev, realm) {
      const old = processes.get(msg.pid);
      if (old) old.over = true;
      let seed = ev.seed;
      if (typeof seed !== 'string' || !/^\d+$/.test(seed)) seed = String(seed === undefined ? 0 : seed).replace(/\D/g, '') || '0';
      const proc = makeProcess(msg.pid, msg.worker, msg.inc, Number(msg.now_ms) || 0, seed);
      processes.set(msg.pid, proc);
      current = proc;
      // The driver starts once the learner's module has run, top-level awaits included.
      const run = (learner) => {
        try {
          const absent = missing(learner);
          if (absent) throw codedError(Error, `your code does not define the function ${absent}`, { code: 'missing_function', name: absent });
          const driver = instantiate(driverFactory, realmShims.require);
          if (!driver || typeof driver.worker !== 'function') throw new Error('the lab driver does not define worker(lab)');
          const result = driver.worker(makeLab(proc, trackCalls(proc, learner)));
          Promise.resolve(result).then(
            () => { if (!proc.over) { proc.actions.push({ a: 'done' }); proc.over = true; } },
            (err) => proc.fail(err));
        } catch (err) {
          if (!(err instanceof ProcessOver)) proc.fail(err);
        }
      };
      try {
        const made = learnerOf(proc, realm);
        if (isThenable(made)) Promise.resolve(made).then(run, (err) => proc.fail(err));
        else run(made);
      } catch (err) {
        proc.fail(err);
      }
      return proc;
    }

    /** Runs one event in the process's own code; exceptions end the process. */
    function deliver(proc, ev) {
      const id = ev.id;
      switch (ev.kind) {
        case 'reply': {
          const c = proc.commands.get(id);
          if (!c) return;
          proc.commands.delete(id);
          if (typeof ev.error === 'string') {
            const err = new ErrorReply(ev.error);
            // Keep the frames of the call that sent the command (see `command`).
            if (typeof c.origin.stack === 'string') {
              const frames = c.origin.stack.replace(/^[^\n]*Error[^\n]*\n/, '');
              err.stack = `Error: ${ev.error}\n${frames}`;
            }
            c.reject(err);
          } else {
            c.resolve(ev.value === undefined ? null : ev.value);
          }
          return;
        }
        case 'timeout': {
          const c = proc.commands.get(id);
          if (!c) return;
          proc.commands.delete(id);
          const err = codedError(Error, `Timeout: no reply from Redis node ${c.node + 1} (clients[${c.node}]) within ${c.timeoutMs} ms`,
            { code: 'timeout', node: c.node + 1, client: c.node, ms: c.timeoutMs });
          // The frames of the call that sent the command, as for an error reply: a
          // rejection that reaches the learner through Promise.all points at their line.
          if (typeof c.origin.stack === 'string') {
            err.stack = `Error: ${err.message}\n${c.origin.stack.replace(/^[^\n]*Error[^\n]*\n/, '')}`;
          }
          c.reject(err);
          return;
        }
        case 'resource': {
          const r = proc.requests.get(id);
          if (!r) return;
          proc.requests.delete(id);
          r.resolve(ev.reply === undefined ? null : ev.reply);
          return;
        }
        case 'timer': {
          const t = proc.timers.get(id);
          if (!t) return; // cleared, or already fired
          if (!t.interval) proc.timers.delete(id);
          try {
            t.cb(...t.args);
          } catch (err) {
            // An exception in a timer callback ends a Node process too.
            if (!(err instanceof ProcessOver)) proc.fail(err);
            return;
          }
          // setInterval re-arms itself with the same id, unless the callback cleared it.
          if (t.interval && proc.timers.get(id) === t && !proc.over) {
            try { proc.emit({ a: 'timer', id, ms: t.ms }); } catch (e) { /* limit hit: error already sent */ }
          }
          return;
        }
        default:
          throw new Error(`unknown event kind ${JSON.stringify(ev.kind)}`);
      }
    }

    function stuckCheck(proc) {
      if (proc.over || proc.stuckReported) return;
      if (proc.commands.size || proc.requests.size || proc.timers.size) return;
      const waiting = [...proc.running].filter(([, n]) => n > 0).map(([name]) => name);
      proc.actions.push({ a: 'stuck', waiting: waiting.length ? waiting.join(', ') : 'worker' });
      proc.stuckReported = true;
    }

    /**
     * The first half of an `input`: the event runs in the process's code. Gives
     * {answer} when there is nothing to wait for, or {proc} whose actions are ready
     * once the microtask queue has drained (`inputEnd`).
     */
    function inputBegin(msg, realm) {
      const ev = msg.ev || {};
      let proc = processes.get(msg.pid);
      if (ev.kind === 'start') {
        proc = start(msg, ev, realm);
        return { proc };
      }
      const none = { answer: { type: 'actions', actions: [] } };
      if (!proc || proc.inc !== msg.inc) return none;
      if (ev.kind === 'crash') {
        proc.over = true;
        processes.delete(msg.pid);
        return none;
      }
      if (proc.over) return none;
      proc.now = Number(msg.now_ms) || 0;
      current = proc;
      if (watch) watch({ type: 'doing', pid: proc.pid, running: [...proc.running].filter(([, n]) => n > 0).map(([f]) => f) });
      try {
        deliver(proc, ev);
      } catch (err) {
        if (!(err instanceof ProcessOver)) proc.fail(err);
      }
      return { proc };
    }

    function inputEnd(proc) {
      stuckCheck(proc);
      const actions = proc.actions;
      proc.actions = [];
      return { type: 'actions', actions };
    }

    /** init: the host compiled both files; check the learner defines each function. */
    function init(msg, realm) {
      if (msg.params && typeof msg.params === 'object') params = deepFreeze(msg.params);
      const probe = makeProcess(-1, 0, 0, 0, '0');
      current = probe;
      try {
        const made = learnerOf(probe, realm);
        if (!isThenable(made)) return { answer: initAnswer({ settled: true, value: made }) };
        // An ES module with top-level awaits: its answer once the queue has drained.
        const state = { settled: false };
        Promise.resolve(made).then(
          (value) => Object.assign(state, { settled: true, value }),
          (error) => Object.assign(state, { settled: true, error, failed: true }));
        return { init: state };
      } catch (err) {
        return { answer: initAnswer({ settled: true, failed: true, error: err }) };
      } finally {
        current = null;
      }
    }

    /** init's answer, from how the learner's module (run once, as a probe) ended. */
    function initAnswer(state) {
      if (!state.settled) {
        return {
          type: 'error', message: 'your module\'s top-level await never finished: it waits for something that never happens', line: null, col: null,
          coded: codedOf({ code: 'top_level_await' }),
        };
      }
      if (state.failed) {
        const { line, col } = where(state.error);
        return withCoded({ type: 'error', message: errorMessage(state.error), line, col }, codeOfError(state.error));
      }
      const absent = missing(state.value);
      if (absent) {
        return {
          type: 'error', message: `your code does not define the function ${absent} (write: export async function ${absent}(…) { … })`, line: null, col: null,
          coded: codedOf({ code: 'missing_function', name: absent }),
        };
      }
      return { type: 'ready' };
    }

    const failure = (err) => ({ type: 'error', message: `lab harness: ${errorMessage(err)}`, line: null, col: null });

    // What the simulator sends, by the message's name (sim::lab::ToHarness): each begins
    // its answer, or gives {proc} for an input, {init} for a module still settling.
    const fromSimulator = /* wire: ToHarness */ {
      init: (msg, realm) => init(msg, realm),
      run(msg) {
        processes = new Map();
        current = null;
        lines = msg.watch === true;
        return { answer: { type: 'ready' } };
      },
      input: (msg, realm) => inputBegin(msg, realm),
    };

    /** A message that needs no drain: its answer, or {proc} for an input. */
    function begin(msg, realm) {
      const name = msg && typeof msg.type === 'string' ? msg.type : '';
      if (Object.prototype.hasOwnProperty.call(fromSimulator, name)) return fromSimulator[name](msg, realm);
      return { answer: { type: 'error', message: `unknown message type ${JSON.stringify(msg && msg.type)}`, line: null, col: null } };
    }

    /** One message, answered once quiet (the browser host: `drain` is its own). */
    async function handle(msg) {
      try {
        const r = begin(msg, null);
        if (r.answer) return r.answer;
        await drain();
        return r.init ? initAnswer(r.init) : inputEnd(r.proc);
      } catch (err) {
        return failure(err);
      }
    }

    /** JSON text in, JSON text out. */
    async function handleJSON(text) {
      let msg;
      try {
        msg = JSON.parse(text);
      } catch (err) {
        return JSON.stringify({ type: 'error', message: `lab harness: bad JSON: ${errorMessage(err)}`, line: null, col: null });
      }
      return JSON.stringify(await handle(msg));
    }

    /**
     * The Node host's entry, which keeps every object of its own realm out of this one:
     * text in, text out. A process's realm comes as its parts, made by the host for a
     * `start` or `init` (its global, and the learner's factory compiled there). Gives
     * the answer, or null when the host must let the microtask queue drain and then
     * call `finishText`.
     */
    function beginText(text, global, factory) {
      pending = null;
      try {
        const msg = JSON.parse(text);
        const realm = typeof factory === 'function' ? { global, factory } : null;
        const r = begin(msg, realm);
        if (r.answer) return JSON.stringify(r.answer);
        pending = r;
        return null;
      } catch (err) {
        return JSON.stringify(failure(err));
      }
    }

    function finishText() {
      const r = pending;
      pending = null;
      try {
        if (!r) return JSON.stringify(failure(new Error('nothing to finish')));
        return JSON.stringify(r.init ? initAnswer(r.init) : inputEnd(r.proc));
      } catch (err) {
        return JSON.stringify(failure(err));
      }
    }

    return Object.freeze({ handle, handleJSON, beginText, finishText });
  }

  /**
   * The Node host's harness, made from the `init` message's text in this realm (so no
   * object of the host's realm reaches the driver): each process's learner comes with
   * its realm in `beginText`, and errors are located in 'learner.js'.
   */
  function createHostHarness(initText, driverFactory) {
    const msg = JSON.parse(initText);
    return createHarness({
      driverFactory,
      functions: Array.isArray(msg.functions) ? msg.functions.map(String) : [],
      params: msg.params && typeof msg.params === 'object' ? msg.params : {},
      locateFile: 'learner.js',
    });
  }

  /** The code of an error the harness made, as JSON text ('' if none): for a host, which reads only text. */
  const codedJSON = (err) => { const c = codeOfError(err); return c ? JSON.stringify(c) : ''; };

  global.LockstepLab = {
    WRAPPER_HEAD,
    codedJSON,
    lockdownRealm,
    locateIn,
    prepareSource,
    wrapLearner,
    wrapDriver,
    createHarness,
    createHostHarness,
    makeRng,
  };
})(globalThis);

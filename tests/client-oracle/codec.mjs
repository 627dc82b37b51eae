// How the client oracle writes JavaScript values as JSON, shared by record.mjs and
// replay.mjs so both sides of a comparison are written the same way.
//
// JSON has no undefined, Date, BigInt or Error, and a call's arguments and results
// need them, so those become tagged objects: {"$": "undefined"}, {"$": "date", "ms": N},
// {"$": "bigint", "v": "5"}, {"$": "number", "v": "NaN"} (NaN, ±Infinity),
// {"$": "error", "ctor", "name", "message"}. No case uses
// "$" as a key of its own.

/** A case's argument (as stored in the corpus) → the JavaScript value to pass. */
export function decodeArg(v) {
  if (Array.isArray(v)) return v.map(decodeArg);
  if (v && typeof v === 'object') {
    if (v.$ === 'undefined') return undefined;
    if (v.$ === 'date') return new Date(v.ms);
    if (v.$ === 'bigint') return BigInt(v.v);
    if (v.$ === 'number') return Number(v.v);
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = decodeArg(x);
    return out;
  }
  return v;
}

/** A JavaScript value (argument or result) → JSON, tags as above. */
export function encode(v) {
  if (v === undefined) return { $: 'undefined' };
  if (typeof v === 'bigint') return { $: 'bigint', v: String(v) };
  if (typeof v === 'number' && !Number.isFinite(v)) return { $: 'number', v: String(v) };
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(encode);
  if (v instanceof Date) return { $: 'date', ms: v.getTime() };
  if (v instanceof Error || (typeof v.message === 'string' && typeof v.name === 'string')) return encodeError(v);
  if (typeof Buffer !== 'undefined' && Buffer.isBuffer(v)) return { $: 'buffer', hex: v.toString('hex') };
  const out = {};
  for (const [k, x] of Object.entries(v)) out[k] = encode(x);
  return out;
}

/** An error as the learner can see it: its class, name and message. */
export function encodeError(err) {
  if (!err || typeof err !== 'object') return { $: 'thrown', value: encode(err) };
  return { $: 'error', ctor: err.constructor ? err.constructor.name : null, name: err.name, message: err.message };
}

/** The JavaScript type of a result, in words: null, array, number, string, boolean, … */
export function jsType(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return `object ${v.constructor ? v.constructor.name : ''}`.trim();
  return typeof v;
}

/** A settled call → {how: resolved|rejected|threw, type, value} or {how, error}. */
export function outcome(how, v) {
  return how === 'resolved' ? { how, type: jsType(v), value: encode(v) } : { how, error: encodeError(v) };
}

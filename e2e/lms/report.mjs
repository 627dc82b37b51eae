// What the LMS platform test (e2e/lms.mjs) found, shared by all its checks: the problems
// they push (e2e/lms.mjs lists them at the end and exits 1), and the one way they say
// what they saw.

/** What the platform recorded against what was expected, one line each. */
export const problems = [];

export const say = (...a) => console.log('lms:', ...a);

/** `v` as JSON, cut to `n` characters (saying how long it was). */
export const short = (v, n = 80) => {
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > n ? `${s.slice(0, n)}… (${typeof v === 'string' ? `${v.length} chars` : `${s.length} chars of JSON`})` : s;
};

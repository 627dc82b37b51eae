// What the contract (/work/lms-contract.md) expects a package to report, worked out from
// the app's own progress (its localStorage) as e2e/lms.mjs's checks read it: sections
// read, the quick check's share, labs passed (their pass mark, FNV-1a 64 of the code),
// passed/failed; and the app's progress inside what an adapter stored.
import { problems, say, short } from './report.mjs';

/** The lab the learner passes, and whose pass every check follows. */
export const LAB = 'safe-release';

/** FNV-1a 64 of the UTF-8 bytes of `s`, 16 hex digits (a lab's pass mark). */
export function fnv1a64(s) {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(s)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

/**
 * What a package must report for `progress` (the app's localStorage), by the contract's
 * rules: sections read, the quick check's share, labs passed, passed/failed.
 */
export function expect(config, progress, passMark) {
  const lesson = progress?.lessons?.[config.lesson] ?? {};
  const ids = config.sections.map((s) => s.id);
  const read = (lesson.visited ?? []).filter((v) => ids.includes(v)).length;
  const qc = lesson.quick_check ?? null;
  const share = qc && qc.total ? qc.correct / qc.total : null;
  const labsPassed = Object.entries(lesson.labs ?? {}).filter(([, l]) => l.pass && l.pass.split(' ')[0] === fnv1a64(l.code ?? '')).map(([k]) => k);
  const rule = passMark !== null || config.passLabs.length > 0;
  const passed = rule && (passMark === null || (share !== null && share >= passMark)) && config.passLabs.every((l) => labsPassed.includes(l));
  const failed = !passed && passMark !== null && share !== null && share < passMark;
  return { lesson, last: lesson.last, read, all: read === ids.length, total: ids.length, qc, share, labsPassed, passed, failed };
}

/** `a` is a number within `eps` of `b`. */
export const near = (a, b, eps = 0.005) => Number.isFinite(Number(a)) && Math.abs(Number(a) - b) <= eps;

/**
 * The app's progress inside what the adapter stored (suspend_data, the cmi5 state): the
 * progress JSON itself, or wrapped in an object of the adapter's as its `p`.
 */
export function progressInside(where, what, text) {
  let p;
  try {
    p = JSON.parse(text);
  } catch {
    problems.push(`${where}: ${what} is not JSON (${short(text, 60)})`);
    return null;
  }
  if (p?.lessons && typeof p.lessons === 'object') return p;
  const inner = p && typeof p === 'object' ? Object.entries(p).find(([, v]) => v?.lessons && typeof v.lessons === 'object') : null;
  if (inner) {
    say(`${where}: ${what} holds the progress as .${inner[0]}, beside ${short(Object.keys(p).filter((k) => k !== inner[0]))}`);
    return inner[1];
  }
  problems.push(`${where}: ${what} holds no progress ({"v":2,"lessons":…}): ${short(text, 80)}`);
  return null;
}

// The first page's loader. `scripts/prerender.sh` writes each section, as the app draws
// it for a first visitor, into the release build: the page a visitor opens is plain HTML
// and CSS, readable at once, and the app (about 400 KB gzip of WebAssembly) is fetched only
// when the learner starts using it. This script:
//   1. waits for static/boot-head.js to show the prerendered section the URL asks for
//      (index.html holds the first one; the others are small JSON files under pre/), or
//      starts the app at once when the URL holds state a snapshot cannot show, or the
//      learner has been here before (the snapshot shows meanwhile);
//   2. starts the app on the first use: a click, a tap, a key, focus by Tab, a change
//      of section, or a placeholder (the quiz) scrolled into view;
//   3. when the app has drawn the same page (it announces `lockstep-ready`), hands over
//      what the learner did meanwhile: the scroll position, the focus, typed text, and
//      the click that started it all, replayed on the same element.
// Without it (a dev build from `trunk serve`), Trunk's own script starts the app.
const me = document.querySelector('script[data-lockstep-boot]');
const app = document.getElementById('app');
const JS = me?.dataset.js;
const WASM = me?.dataset.wasm;
// The lesson's text, which the app's module does not carry (src/text.rs): its parts, the
// common one (`lesson-text-<hash>.txt`) and each language's (`lesson-text-<lang>-<hash>.txt`),
// which Trunk's hook (scripts/lesson-text.sh) names here.
const TEXTS = (document.querySelector('meta[name="lockstep-text"]')?.content ?? '').split(' ').filter(Boolean);
// Which page to show, decided by the inline script in <head> (static/boot-head.js).
const first = window.lockstepFirstPage ?? { shown: Promise.resolve(false) };

// The app's own rules (src/lesson/boot_rules.rs), checked equal by tests/boot_rules.rs.
const RULES = {"nextKeys":["n","N","]"],"panelKeys":[" ","Spacebar","ArrowLeft","ArrowRight","Home","End"],"prevKeys":["p","P","["]};
const CONTROL = 'a[href], button, input, select, textarea, summary, [tabindex], [role="slider"], label';
const STARTING = { en: 'Starting the simulator…', nb: 'Starter simulatoren…' };

let booting = null;
let shownLang = document.documentElement.lang === 'nb' ? 'nb' : 'en';
let pending = null; // { at, kind: 'click' | 'submit' | 'key', key }
let focusAt = null;
const typed = new Map(); // place (JSON of `placeOf`) -> value

// The element's place under #app, as child indices; the app draws the same tree.
function pathOf(el) {
  const path = [];
  while (el && el !== app) {
    const parent = el.parentElement;
    if (!parent) return null;
    path.unshift(Array.prototype.indexOf.call(parent.children, el));
    el = parent;
  }
  return el === app ? path : null;
}
function atPath(path) {
  let el = app;
  for (const i of path ?? []) {
    el = el?.children[i];
  }
  return path ? el : null;
}
// What an element is, as far as the page says: its tag, id, data attributes, link,
// form name and value, accessible name and text. The app draws these the same way
// as the snapshot did, whatever moved around them.
function identityOf(el) {
  if (!el) return null;
  const data = [...el.attributes].filter((a) => a.name.startsWith('data-')).map((a) => `${a.name}=${a.value}`).sort();
  const value = el.matches('input[type=checkbox], input[type=radio], button') ? el.getAttribute('value') : null;
  // A text area's text is its starting value (the snapshot writes it as text, the app
  // sets the value), not what it is: the lab's editor must be found by its id.
  const text = el.tagName === 'TEXTAREA' ? '' : (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 80);
  return JSON.stringify([el.tagName, el.id, data, el.getAttribute('href'), el.getAttribute('name'), value,
    el.getAttribute('aria-label'), text]);
}
// Where an element is: its path under #app and its identity, and whether it is in a
// lab, which the app draws a task after the page (src/ui/lab/host.rs).
function placeOf(el) {
  if (el === app) return { path: [], identity: 'app' };
  const path = pathOf(el);
  return path ? { path, identity: identityOf(el), lab: !!el.closest('.lab-host') } : null;
}
// The element at a place once the app has drawn the page: the one at the same path if
// it is the same element, else the one element anywhere with that identity; none when
// the identity is not unique (a path alone never decides).
function find(place) {
  if (!place) return null;
  if (place.identity === 'app') return app;
  // Never in a drawing the app shows, inert, until it has drawn the real thing (a
  // panel's or a lab's snapshot).
  const live = (el) => !el.closest('[inert]');
  const there = atPath(place.path);
  if (there && live(there) && identityOf(there) === place.identity) return there;
  const tag = JSON.parse(place.identity)[0];
  const same = [...app.getElementsByTagName(tag)].filter((el) => live(el) && identityOf(el) === place.identity);
  return same.length === 1 ? same[0] : null;
}

function boot() {
  if (booting) return booting;
  first.booting = true;
  const status = document.createElement('p');
  status.className = 'boot-status';
  status.setAttribute('role', 'status');
  document.body.append(status);
  // Announced a moment later, so a live region that already exists reads it out; unless
  // the app has said something in it meanwhile (that it could not load its text).
  setTimeout(() => { if (!status.textContent) status.textContent = STARTING[shownLang]; }, 50);
  // Where the learner is reading, up to the moment the app replaces the page.
  let scrollY = window.scrollY;
  const track = () => { if (document.documentElement.dataset.lockstep !== 'ready') scrollY = window.scrollY; };
  addEventListener('scroll', track, { passive: true });
  const active = document.activeElement;
  if (active && active !== document.body && app.contains(active)) focusAt = placeOf(active);
  const ready = new Promise((resolve) => addEventListener('lockstep-ready', resolve, { once: true }));
  // The wasm is asked for at once, beside the JavaScript that will compile it, not after
  // it: one round trip less (half a second on a slow line).
  const wasm = fetch(WASM, { credentials: 'same-origin' });
  // The lesson's text likewise, the parts for this page's language (the common one and
  // its language's): the app takes each part by its file from `lockstepTextPart`, which
  // fetches a part once (again after a failure).
  const parts = {};
  window.lockstepTextPart = (file) => {
    parts[file] ??= fetch(file, { credentials: 'same-origin' })
      .then((r) => { if (!r.ok) throw new Error(`the server answered HTTP ${r.status}`); return r.text(); })
      .catch((e) => { delete parts[file]; throw e; });
    return parts[file];
  };
  for (const file of TEXTS.filter((f) => /^lesson-text-[0-9a-f]+\.txt$/.test(f) || f.startsWith(`lesson-text-${shownLang}-`))) {
    window.lockstepTextPart(file).catch(() => {});
  }
  // The runs this page's panels open on, made at build time (scripts/prerender.sh), and
  // the snapshot's drawing of each panel, for one whose run is not shipped.
  const name = location.hash.match(/^#\/([^/?]+)\/([1-9][0-9]*)\/?$/)?.[2] ?? 'home';
  const runs = (me.dataset.runs ?? '').split(' ').includes(name)
    ? fetch(`pre/runs/${name}.json`, { credentials: 'same-origin' }).then((r) => (r.ok ? r.json() : null)).catch(() => null)
    : null;
  window.lockstepPanels = [...app.querySelectorAll('section.scenario')].map((s) => [s.dataset.scenario, s.outerHTML]);
  // Each lab's drawing as the learner left it (the text typed into its editor too), taken
  // as the app replaces the page (src/ui/mod.rs calls this): shown, inert, until the app
  // has drawn the panel (src/ui/lab/host.rs).
  window.lockstepBeforeMount = () => {
    window.lockstepLabs = [...app.querySelectorAll('.lab-host')].map((h) => {
      for (const t of h.querySelectorAll('textarea')) t.textContent = t.value;
      return [h.dataset.lab, h.querySelector('.lab-mount')?.innerHTML ?? ''];
    }).filter(([, html]) => html);
  };
  booting = Promise.all([import(JS), runs])
    .then(([m, made]) => { window.lockstepRuns = made ?? {}; return m.default({ module_or_path: wasm }); })
    .then(() => ready)
    // Once the app has taken over (and answered the click), "Starting…" is no longer true.
    .then(() => { removeEventListener('scroll', track); return handOver(scrollY, () => status.remove()); })
    .catch((e) => {
      // Stays on screen: the page can still be read, but nothing will respond.
      status.textContent = `Lockstep could not start: ${e}`;
      throw e;
    });
  return booting;
}

async function handOver(scrollY, tookOver) {
  // What the learner did in a lab waits for the lab's panel, which the app draws a task
  // after the page: up to 15 s.
  const places = [focusAt, pending?.at, ...[...typed.keys()].map((p) => JSON.parse(p))];
  for (let i = 0; i < 750 && places.some((p) => p?.lab && !find(p)); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  // Find every element now: the quiz's placeholders are about to be filled in, which
  // moves later siblings.
  const focusEl = find(focusAt);
  const target = pending && find(pending.at);
  const inputs = [...typed].map(([p, v]) => [find(JSON.parse(p)), v]);
  // At once: the app has just replaced the element that had the focus.
  const lost = () => !document.activeElement || document.activeElement === document.body;
  if (focusEl && lost()) focusEl.focus({ preventScroll: true });
  // Typed text at once too: the app already answers clicks, and a Run pressed while the
  // quiz's placeholders fill in must read what the learner typed, not the starter code.
  for (const [el, value] of inputs) {
    if (el && 'value' in el) {
      el.value = value;
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertReplacementText', data: value }));
    }
  }
  // The learner's place, as far as the page is tall yet (the quiz's placeholders fill in
  // below it in the next tasks).
  const restore = () => window.scrollTo(window.scrollX, scrollY);
  restore();
  if (focusEl?.isConnected && lost()) focusEl.focus({ preventScroll: true });
  // Let the app draw what the restored text changed before the click reads it.
  if (inputs.length) await new Promise((r) => setTimeout(r, 0));
  // The click the learner made is answered first, before the content below fills in.
  const beforeClick = window.scrollY;
  if (target?.isConnected && pending.kind === 'click') target.click();
  if (target?.isConnected && pending.kind === 'submit') target.requestSubmit?.();
  if (target?.isConnected && pending.kind === 'key') {
    target.dispatchEvent(new KeyboardEvent('keydown', { key: pending.key, bubbles: true, cancelable: true }));
  }
  const afterClick = window.scrollY;
  tookOver();
  for (let i = 0; i < 100 && app.querySelector('.deferred[aria-busy="true"]'); i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  // The page is whole: the place again, if the page was too short for it before and
  // neither the click nor the learner has moved since.
  if (afterClick === beforeClick && window.scrollY === afterClick) restore();
  if (focusEl?.isConnected && lost()) focusEl.focus({ preventScroll: true });
}

function listen() {
  const opts = { capture: true };
  const control = (e) => (e.target instanceof Element ? e.target.closest(CONTROL) : null);
  // A tap or press starts the download before the click arrives.
  for (const type of ['pointerdown', 'touchstart']) {
    addEventListener(type, (e) => { if (app.contains(e.target)) boot(); }, { capture: true, passive: true });
  }
  addEventListener('click', (e) => {
    if (!app.contains(e.target) || document.documentElement.dataset.lockstep === 'ready') return;
    const el = control(e);
    if (!el) return;
    const href = el.closest('a[href]')?.getAttribute('href');
    if (href !== undefined && href !== null && !href.startsWith('#')) return; // leaves the page
    boot();
    if (href?.startsWith('#/')) return; // a route: the app reads it when it starts
    if (href?.startsWith('#')) {
      // An in-page target (the skip link): go there now; the app's own handler, replayed,
      // goes there again. Left to the browser it would become a route the app cannot show.
      document.getElementById(href.slice(1))?.focus();
    }
    // A click into a text field only focuses it (the focus is handed over); the click
    // worth replaying is the one that comes after (Run, or Enter's implicit click).
    if (el.matches('textarea, select, input:not([type=checkbox], [type=radio], [type=submit], [type=button], [type=reset])')) return;
    e.preventDefault();
    e.stopPropagation();
    if (!pending) pending = { at: placeOf(el), kind: 'click' };
  }, opts);
  addEventListener('focusin', (e) => {
    if (app.contains(e.target) && document.documentElement.dataset.lockstep !== 'ready') {
      focusAt = placeOf(e.target);
      boot();
    }
  }, opts);
  addEventListener('input', (e) => {
    if (app.contains(e.target) && document.documentElement.dataset.lockstep !== 'ready') {
      typed.set(JSON.stringify(placeOf(e.target)), e.target.value);
    }
  }, opts);
  addEventListener('keydown', (e) => {
    if (document.documentElement.dataset.lockstep === 'ready' || e.ctrlKey || e.metaKey || e.altKey) return;
    if (!app.contains(e.target) && e.target !== document.body) return;
    if (e.key === 'Tab' || e.key === 'Shift') return; // focusin follows
    boot();
    const el = e.target instanceof Element ? e.target : null;
    // Typing, and keys that a button or link turns into a click (replayed as one).
    if (el?.closest('input, textarea, select, button, a[href], summary')) return;
    // The app's shortcuts: N/P anywhere; in a scenario panel, Space, ←/→, Home, End.
    const inPanel = el?.closest('section.scenario');
    const shortcut = RULES.nextKeys.includes(e.key) || RULES.prevKeys.includes(e.key)
      || (inPanel && RULES.panelKeys.includes(e.key));
    if (shortcut && !pending) {
      pending = { at: placeOf(el === document.body ? app : el), kind: 'key', key: e.key };
      e.preventDefault();
    }
  }, opts);
  // A form with no button to click (Enter in a lone input) would reload the page.
  addEventListener('submit', (e) => {
    if (!app.contains(e.target) || document.documentElement.dataset.lockstep === 'ready') return;
    e.preventDefault();
    boot();
    if (!pending) pending = { at: placeOf(e.target), kind: 'submit' };
  }, opts);
  // Another section while the app loads: show its snapshot meanwhile. Only sections
  // 1..N have one (a hand-edited #/…/13 or the progress page is the app's to draw).
  addEventListener('hashchange', () => {
    boot();
    const m = location.hash.match(/^#\/([^/?]+)\/([1-9][0-9]*)\/?$/);
    if (!m || m[1] !== me.dataset.lesson || !(Number(m[2]) <= first.sections)) return;
    if (document.documentElement.dataset.lockstep === 'ready') return; // the app draws it
    fetch(`pre/${shownLang}/${m[2]}.json`)
      .then((r) => (r.ok ? r.json() : null))
      .then((snap) => {
        if (!snap || document.documentElement.dataset.lockstep === 'ready' || location.hash !== m[0]) return;
        first.apply(snap);
        window.scrollTo(0, 0);
        // What was clicked or focused belonged to the page that is gone.
        pending = null;
        focusAt = null;
        typed.clear();
      })
      .catch(() => { /* the app draws it when it starts */ });
  });
  // The quiz (and anything else drawn later) needs the app: start it as it comes near.
  if ('IntersectionObserver' in window) {
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) { io.disconnect(); boot(); }
    }, { rootMargin: '200px' });
    app.querySelectorAll('.deferred').forEach((el) => io.observe(el));
  }
}

async function start() {
  if (!app || !JS || !WASM) return;
  if (!(await first.shown)) return boot();
  shownLang = document.documentElement.lang === 'nb' ? 'nb' : 'en';
  listen();
  // A returning learner: their progress and choices are in storage, which only the app
  // reads, so it starts now; the snapshot is there to read meanwhile.
  if (first.bootNow) boot();
}

// For a host page or a test that wants the app now (e.g. before reading the quiz).
window.lockstepBoot = () => (booting ?? (app?.hasAttribute('data-prerendered') && JS ? boot() : Promise.resolve()));

start();

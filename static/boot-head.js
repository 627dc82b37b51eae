// Inlined into the <head> of the prerendered index.html by e2e/prerender.mjs, before the
// stylesheet, so that it runs before anything else is parsed or fetched. It decides which
// page the visitor should see (by the same rules as the app), starts fetching that
// page's snapshot at once, and puts it in #app as soon as both are there (index.html
// holds the English home page in a <template>).
(function () {
  // The app's own rules (src/lesson/boot_rules.rs), checked equal by tests/boot_rules.rs.
  var RULES = {"langAliases":{"en":["en","eng"],"nb":["nb","no","nob","nn"]},"langKey":"lockstep.lang","progressKey":"lockstep.progress.v2","progressLast":["lessons","<lesson>","last"],"storagePrefix":"lockstep."};
  var me = document.currentScript;
  var lesson = me.getAttribute('data-lesson');
  var sections = Number(me.getAttribute('data-sections'));
  // Read leniently, as the app does (lesson/route.rs): an older version appended a
  // scenario's state to the query (`?lang=nb?scenario=…`); it is not part of it.
  var query = new URLSearchParams(location.search.replace(/\?scenario=.*$/, ''));
  var stored = null;
  var returning = false;
  var resume = null;
  try {
    stored = localStorage.getItem(RULES.langKey);
    // Where a returning learner's home page resumes (lesson/progress.rs).
    var last = JSON.parse(localStorage.getItem(RULES.progressKey) || 'null');
    for (var s = 0; s < RULES.progressLast.length && last; s++) {
      last = last[RULES.progressLast[s] === '<lesson>' ? lesson : RULES.progressLast[s]];
    }
    if (typeof last === 'number') resume = String(last);
    for (var i = 0; i < localStorage.length; i++) {
      if ((localStorage.key(i) || '').indexOf(RULES.storagePrefix) === 0) returning = true;
    }
  } catch (e) { /* no storage: nothing remembered */ }
  // As the app decides (ui/app.rs, lesson/lang.rs): `?lang=`, the remembered choice, the
  // browser's language, English; a code it does not know counts as none.
  function langOf(code) {
    var primary = (code || '').trim().toLowerCase().split(/[-_]/)[0];
    for (var l in RULES.langAliases) {
      if (RULES.langAliases[l].indexOf(primary) >= 0) return l;
    }
    return null;
  }
  var lang = langOf(query.get('lang')) || langOf(stored) || langOf(navigator.language) || 'en';
  var others = 0;
  query.forEach(function (v, k) { if (k !== 'lang') others++; });
  var hash = location.hash.replace(/^#/, '').split('?');
  var parts = hash[0].split('/').filter(function (p) { return p !== ''; });
  // null: only the app can show this (state in the URL, a pack, embed mode, another
  // route); it starts at once. A returning learner gets the snapshot of the section
  // asked for, or of the one their home page resumes at, while the app starts.
  var name = null;
  if (!others && hash.length === 1) {
    if (parts.length === 0) name = returning ? resume || '1' : 'home';
    else if (parts[0] === lesson && parts.length <= 2) name = parts.length === 1 ? '1' : parts[1];
  }
  if (name !== 'home' && !(/^[1-9][0-9]*$/.test(name) && Number(name) <= sections)) name = null;
  // `sections` and `lesson` also tell static/boot.js which snapshots exist.
  var first = { name: name, lang: lang, bootNow: returning, sections: sections, lesson: lesson };
  var snapshot = null;
  if (name !== null && (name !== 'home' || lang !== 'en')) {
    snapshot = fetch('pre/' + lang + '/' + name + '.json').then(function (r) {
      if (!r.ok) throw new Error('pre/' + lang + '/' + name + '.json: HTTP ' + r.status);
      return r.json();
    });
  }
  var done;
  // Resolves to true once the page is in #app, to false if only the app can draw it.
  first.shown = new Promise(function (resolve) { done = resolve; });
  // Called by the inline script after #app (static/boot.js may have started the app
  // meanwhile: then it draws the page and the snapshot is dropped).
  first.show = function () {
    var app = document.getElementById('app');
    var home = document.getElementById('lockstep-home');
    if (name === null || !app) return done(false);
    if (!snapshot) {
      app.appendChild(home.content);
      return done(true);
    }
    snapshot.then(function (snap) {
      if (first.booting) return done(false);
      first.apply(snap);
      done(true);
    }, function () { done(false); });
  };
  // Puts a snapshot in #app (also used by boot.js for a section opened meanwhile).
  first.apply = function (snap) {
    document.getElementById('app').innerHTML = snap.html;
    document.title = snap.title;
    document.documentElement.lang = snap.lang;
  };
  window.lockstepFirstPage = first;
})();

// Inlined into the <head> of the prerendered index.html by e2e/prerender.mjs, before the
// stylesheet, so that it runs before anything else is parsed or fetched. It decides which
// page the visitor should see (the same rules as the app: `?lang=`, then the browser's
// language), starts fetching that page's snapshot at once, and puts it in #app as soon
// as both are there (index.html holds the English home page in a <template>).
(function () {
  var me = document.currentScript;
  var lesson = me.getAttribute('data-lesson');
  var sections = Number(me.getAttribute('data-sections'));
  var query = new URLSearchParams(location.search);
  var code = (query.get('lang') || navigator.language || 'en').trim().toLowerCase().split(/[-_]/)[0];
  var lang = ['nb', 'no', 'nob', 'nn'].indexOf(code) >= 0 ? 'nb' : 'en';
  var others = 0;
  query.forEach(function (v, k) { if (k !== 'lang') others++; });
  var returning = false;
  try {
    for (var i = 0; i < localStorage.length; i++) {
      if ((localStorage.key(i) || '').indexOf('lockstep.') === 0) returning = true;
    }
  } catch (e) { /* no storage: nothing remembered */ }
  var hash = location.hash.replace(/^#/, '').split('?');
  var parts = hash[0].split('/').filter(function (p) { return p !== ''; });
  // null: only the app can show this (state in the URL, a pack, embed mode, a learner
  // with progress, another route); it starts at once.
  var name = null;
  if (!others && hash.length === 1 && !returning) {
    if (parts.length === 0) name = 'home';
    else if (parts[0] === lesson && parts.length <= 2) {
      var n = parts.length === 1 ? '1' : parts[1];
      if (/^[1-9][0-9]*$/.test(n) && Number(n) <= sections) name = n;
    }
  }
  var first = { name: name, lang: lang };
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
      app.innerHTML = snap.html;
      document.title = snap.title;
      document.documentElement.lang = snap.lang;
      done(true);
    }, function () { done(false); });
  };
  window.lockstepFirstPage = first;
})();

// Loads the lab panel's module (lab.js and lab_bg.wasm, built from src/bin/lab.rs) the
// first time a lab on the page comes near the screen (src/ui/lab_host.rs): within a
// screen and a half of it, so that the module is there when the learner reaches the lab,
// and a reader who clicks at the top of a section is not kept waiting by it (the
// prerendering loads it at once). It hands the module the parts of the lesson's text the
// lab's language needs (`texts_missing`): the ones static/boot.js fetched for the page
// (`lockstepTextPart`), else fetches of them. lab.js defines `wasm_bindgen` as a script's
// global, which only a script can read: the page's module asks this one for it.
'use strict';
(() => {
  let loading = null;
  function script(src) {
    return new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = src;
      s.onload = resolve;
      s.onerror = () => reject(new Error(`${src} could not be loaded`));
      document.head.append(s);
    });
  }
  // The labs' code editor (editor.js, CodeMirror: scripts/editor.sh), asked for beside the
  // panel's module; the panel puts it over its textarea when it comes
  // (src/ui/lab/code_editor.rs), and keeps the textarea where it cannot load.
  let editor = null;
  window.lockstepEditorLoad = () => {
    // A module (scripts/editor.sh) that evaluates in several tasks; the import resolves
    // once all of it has run. Its name is this script's neighbour, as lab.js is.
    editor ??= import('./editor.js').then(() => window.lockstepEditor)
      .catch((e) => { editor = null; throw e; });
    return editor;
  };
  // A task's end: the module's start is several steps, each its own task, so the page
  // answers the learner between them (#40: no task over 50 ms with the CPU slowed 4×).
  const later = () => new Promise((resolve) => setTimeout(resolve, 0));
  async function load() {
    // Not in the prerendering: the page it writes shows the plain textarea.
    if (!window.lockstepPrerender) window.lockstepEditorLoad().catch(() => {});
    await script('lab.js');
    await wasm_bindgen({ module_or_path: 'lab_bg.wasm' });
    await later();
    return wasm_bindgen;
  }
  // Resolves when `el` is near the screen (at once where that cannot be watched), or
  // once it has left the page (its section was left: the page then mounts nothing).
  function near(el) {
    if (window.lockstepPrerender || !el || typeof IntersectionObserver !== 'function') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => { watch.disconnect(); clearInterval(gone); resolve(); };
      const watch = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) done();
      }, { rootMargin: '150% 0px' });
      const gone = setInterval(() => { if (!el.isConnected) done(); }, 2000);
      watch.observe(el);
    });
  }
  const textPart = (file) => window.lockstepTextPart?.(file) ?? fetch(file, { credentials: 'same-origin' })
    .then((r) => { if (!r.ok) throw new Error(`${file}: HTTP ${r.status}`); return r.text(); });
  // One load per page, once a lab is near; a failed one (the network, say) is tried again
  // next time. Then the text the lab's language (`lang`, its code) needs.
  window.lockstepLabModule = async (el, lang) => {
    await near(el);
    if (el && !el.isConnected) throw new Error('the lab has left the page');
    loading ??= load().catch((e) => { loading = null; throw e; });
    const module = await loading;
    for (const file of module.texts_missing(lang ?? 'en')) module.take_text(await textPart(file));
    return module;
  };
})();

// Inlined into index.html by Trunk (`rel="inline"`), so that the development server's
// page has it too, not only the prerendered build's (static/boot.js).
'use strict';
// The labs' code editor (editor.js, prism-code-editor: scripts/editor.sh), loaded once, when a
// lab panel's textarea `el` first comes near the screen: within a screen and a half of
// it, so that the editor is there when the learner reaches the lab, and a reader who
// never does downloads none of it (src/ui/lab/code_editor.rs puts it over the textarea;
// where it cannot load, the textarea stays the editor). A module that evaluates in
// several tasks; the import resolves once all of it has run. A failed load (the
// network, say) is tried again the next time.
(() => {
  let editor = null;
  window.lockstepEditorLoad = async (el) => {
    await near(el);
    // Left before it came near: nothing to put an editor over, so nothing to download.
    if (el && !el.isConnected) throw new Error('the lab left the page before it came near');
    editor ??= import('./editor.js').then(() => window.lockstepEditor)
      .catch((e) => { editor = null; throw e; });
    return editor;
  };
  // Resolves when `el` is near the screen (at once where that cannot be watched), or once
  // it has left the page (its section was left: then the editor is not loaded for it).
  function near(el) {
    if (!el || typeof IntersectionObserver !== 'function') return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => { watch.disconnect(); clearInterval(gone); resolve(); };
      const watch = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) done();
      }, { rootMargin: '150% 0px' });
      const gone = setInterval(() => { if (!el.isConnected) done(); }, 2000);
      watch.observe(el);
    });
  }
})();

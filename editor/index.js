// The labs' code editor: prism-code-editor over the lab panel's <textarea> (src/ui/lab/).
// scripts/editor.sh bundles this file into the build's editor.js, a module that defines
// `window.lockstepEditor`; static/editor-load.js loads it when a lab first comes near,
// so the editor never comes with the first page. The panel calls `attach` through its
// bindings (src/ui/lab/code_editor.rs); where the script is missing or fails, the panel
// keeps its plain textarea.
//
// The editor is a textarea of its own under Prism's highlighted lines: what a learner
// types, selects and reads aloud is a real textarea's. The panel's textarea stays the
// panel's value: the editor writes every change into it and sends it an `input` event
// (and `change` when the editor loses the focus), so the panel reads what the learner
// typed as it always has. What the panel sets (Reset, a link's code) it hands to `set`,
// which replaces only what differs, as one step that Undo takes back.

// The libraries are evaluated a few at a time, a task each: each `./pause/N.js` between
// them ends a task (it awaits a timer), so the page answers the learner in between (#40:
// no task over 50 ms with the CPU slowed 4×). So the bundle is a module, which
// static/editor-load.js imports.
import './pause/1.js';
import { createEditor } from 'prism-code-editor';
import 'prism-code-editor/prism/languages/javascript';
// JavaScript's comments and its indenting inside brackets, for the commands.
import 'prism-code-editor/languages/clike';
import './pause/2.js';
import { matchBrackets } from 'prism-code-editor/match-brackets';
import { highlightBracketPairs } from 'prism-code-editor/highlight-brackets';
import { editorCommands, defaultKeymap, editHistory, setIgnoreTab } from 'prism-code-editor/commands';
import { searchWidget, highlightSelectionMatches } from 'prism-code-editor/search';
import { insertText, setSelection } from 'prism-code-editor/utils';
import layoutCss from 'prism-code-editor/layout.css';
import searchCss from 'prism-code-editor/search.css';
import './pause/3.js';

// The search widget's own words, in Norwegian Bokmål, by the English they replace: its
// placeholders, labels, buttons and titles (a title's keyboard shortcut, the part from
// " (", is kept as it is), and the "of" of its count.
const PHRASES = {
  nb: {
    'Find': 'Finn',
    'Replace': 'Erstatt',
    'All': 'Alle',
    'of': 'av',
    'Previous Match': 'Forrige treff',
    'Next Match': 'Neste treff',
    'Close': 'Lukk',
    'Toggle Replace': 'Vis eller skjul Erstatt',
    'RegExp Search': 'Regulært uttrykk',
    'Preserve Case': 'Behold store og små bokstaver',
    'Match Whole Word': 'Hele ord',
    'Find in Selection': 'Søk bare i det valgte',
  },
};

// The widget's words put in `lang`'s, where it has them: its attributes, and the text of
// its buttons and count.
function translate(root, lang) {
  const words = PHRASES[lang];
  if (!words || !root) return;
  const said = (v) => {
    const cut = v.indexOf(' (');
    const head = cut > 0 ? v.slice(0, cut) : v.trim();
    return words[head] ? v.replace(head, words[head]) : v;
  };
  for (const el of root.querySelectorAll('[title], [placeholder], [aria-label]')) {
    for (const attr of ['title', 'placeholder', 'aria-label']) {
      const v = el.getAttribute(attr);
      if (v) el.setAttribute(attr, said(v));
    }
  }
  for (const el of root.querySelectorAll('button, .pce-match-count span')) {
    if (el.children.length === 0 && el.textContent.trim()) el.textContent = said(el.textContent);
  }
}

// Its layout and the search widget's, once per page.
function addStyles() {
  if (document.getElementById('lab-editor-styles')) return;
  const style = document.createElement('style');
  style.id = 'lab-editor-styles';
  style.textContent = layoutCss + searchCss;
  document.head.append(style);
}

// Tokens whose brackets are text, not code: strings, template strings (their `${`…`}`
// holds code, but a bracket in it pairs inside it) regular expressions and comments.
const TEXT_TOKEN = /(^|\s)(string|template-string|regex|comment)(\s|$)/;

// The token stream's text spans, [from, to) in the code: where a bracket is not code.
function textSpans(tokens) {
  const out = [];
  let at = 0;
  const walk = (list) => {
    for (const t of list) {
      if (typeof t === 'string') { at += t.length; continue; }
      const from = at;
      const type = `${t.type} ${t.alias ?? ''}`;
      if (Array.isArray(t.content)) walk(t.content);
      else at += t.length ?? String(t.content).length;
      if (TEXT_TOKEN.test(type)) out.push([from, at]);
    }
  };
  walk(tokens);
  return out;
}

// The line (from 1) of the first bracket that pairs with nothing, or 0. A SyntaxError
// names no line of the learner's when a brace is missing or one too many: the error then
// falls in the lab's code around theirs. A closer that closes nothing (or the wrong
// kind) is the answer; else the last opener left open at the end, the one a missing
// closer belongs to.
function firstUnpairedBracket(code, tokens) {
  const text = textSpans(tokens);
  const lineOf = (i) => code.slice(0, i).split('\n').length;
  const open = [];
  let t = 0;
  for (let i = 0; i < code.length; i++) {
    while (t < text.length && text[t][1] <= i) t++;
    if (t < text.length && text[t][0] <= i) { i = text[t][1] - 1; continue; }
    const c = code[i];
    if (c === '(' || c === '[' || c === '{') open.push(i);
    else if (c === ')' || c === ']' || c === '}') {
      const o = open.pop();
      if (o === undefined || '([{'.indexOf(code[o]) !== ')]}'.indexOf(c)) return lineOf(i);
    }
  }
  return open.length ? lineOf(open[open.length - 1]) : 0;
}

// The smallest change that turns `from` into `to`: what is the same at both ends stays,
// so the cursor and the history keep their places around it.
function difference(from, to) {
  let start = 0;
  const max = Math.min(from.length, to.length);
  while (start < max && from.charCodeAt(start) === to.charCodeAt(start)) start++;
  let end = 0;
  while (end < max - start && from.charCodeAt(from.length - 1 - end) === to.charCodeAt(to.length - 1 - end)) end++;
  return { from: start, to: from.length - end, insert: to.slice(start, to.length - end) };
}

// Where line `n` (from 1, held to the code's lines) starts and ends in `code`.
function lineSpan(code, n) {
  const lines = code.split('\n');
  const at = Math.min(Math.max(1, n | 0), lines.length);
  let from = 0;
  for (let i = 1; i < at; i++) from += lines[i - 1].length + 1;
  return { from, to: from + lines[at - 1].length };
}

/**
 * Puts an editor in place of `textarea` (which stays, hidden, as the value).
 * options: { lang: 'en' | 'nb', onRun: () => void }. Returns the panel's handle.
 */
function attach(textarea, options = {}) {
  let external = false;
  let changedSinceFocus = false;
  // The marks of the last run: { error: {line, message} | null, sent: {line} | null }.
  let marks = { error: null, sent: null };
  const label = textarea.labels && textarea.labels[0];
  const labelledBy = label ? label.id || (label.id = `${textarea.id}-label`) : null;
  const describedBy = textarea.getAttribute('aria-describedby');
  // Under the editor: the message of the error the last run ended with.
  const message = document.createElement('div');
  message.className = 'lab-editor-message';
  message.hidden = true;

  let editor = null;
  let placed = false;
  let gone = false;
  const waiting = [];
  const whenIn = (f) => { if (placed) f(); else waiting.push(f); };
  const later = (f) => setTimeout(() => { if (!gone) f(); }, 0);
  const toEditor = (e) => { e?.preventDefault?.(); editor.textarea.focus(); };

  // The marks drawn on the lines that hold them, and the error's message under the
  // editor; an edit takes them away, for they were about the code that ran.
  const drawMarks = () => {
    if (!editor) return;
    for (const el of editor.wrapper.querySelectorAll('.lab-error-line, .lab-sent-line')) {
      el.classList.remove('lab-error-line', 'lab-sent-line');
      el.removeAttribute('data-mark');
    }
    const lines = editor.lines;
    const n = lines.length - 1;
    const mark = (line, cls, sign) => {
      const el = lines[Math.min(Math.max(1, line | 0), n)];
      if (!el) return;
      el.classList.add(cls);
      el.setAttribute('data-mark', sign);
    };
    // The error's mark last: on a line that holds both, its '!' shows.
    if (marks.sent) mark(marks.sent.line, 'lab-sent-line', '▸');
    if (marks.error) mark(marks.error.line, 'lab-error-line', '!');
    message.hidden = !marks.error;
    message.textContent = marks.error ? marks.error.message : '';
  };

  const run = () => { if (typeof options.onRun === 'function') options.onRun(); return true; };
  // Ctrl/Cmd+Enter runs the code (not the keymap's "insert a blank line"); Escape lets the
  // next Tab leave the editor (the keyboard's way out of a box where Tab indents).
  const keymap = { ...defaultKeymap, 'Mod+Enter': run };
  const onKey = (e) => {
    if (e.key === 'Escape') setIgnoreTab(true);
    else if (e.key !== 'Tab' && e.key !== 'Shift') setIgnoreTab(false);
  };

  // The editor is made in steps, a task each (the editor, its code highlighted, then its
  // place in the page), so the page answers the learner between them (#40: no task over
  // 50 ms with the CPU slowed 4×). Until it is in place, the textarea is the editor, and
  // what the panel asks of the editor waits, in its order.
  later(() => {
    addStyles();
    editor = createEditor(null, {
      language: 'javascript',
      value: '',
      tabSize: 2,
      lineNumbers: true,
      // Long lines wrap: on a phone nothing of the code hides beyond the right edge.
      wordWrap: true,
      readOnly: textarea.readOnly,
      class: 'lab-pce',
      // A change of the code only: the editor calls this at every update, a change of
      // its options too (readOnly at each run), and the panel redraws at each input.
      onUpdate(value) {
        if (external || !placed || value === textarea.value) return;
        changedSinceFocus = true;
        if (marks.error || marks.sent) {
          marks = { error: null, sent: null };
          drawMarks();
        }
        textarea.value = value;
        textarea.dispatchEvent(new InputEvent('input', { bubbles: true }));
      },
    }, editHistory(), editorCommands(keymap), matchBrackets(), highlightBracketPairs(), searchWidget(), highlightSelectionMatches());
    editor.on('update', () => later(drawMarks));
    const area = editor.textarea;
    area.setAttribute('aria-multiline', 'true');
    if (labelledBy) area.setAttribute('aria-labelledby', labelledBy);
    if (describedBy) area.setAttribute('aria-describedby', describedBy);
    area.addEventListener('keydown', onKey, true);
    // Tab indents again each time the editor gets the focus back (Escape let one Tab out).
    area.addEventListener('focus', () => { changedSinceFocus = false; setIgnoreTab(false); });
    area.addEventListener('blur', () => {
      if (changedSinceFocus) textarea.dispatchEvent(new Event('change', { bubbles: true }));
      changedSinceFocus = false;
    });
    const widget = editor.extensions.searchWidget?.element;
    translate(widget, options.lang);
    // The widget opens at the editor's top: opened from further down a long editor, it is
    // brought into view (below the page's sticky top bar: its inputs' scroll-margin-top).
    widget?.addEventListener('focusin', (e) => e.target.scrollIntoView({ block: 'nearest' }));
    later(() => {
      editor.setOptions({ value: textarea.value });
      later(place);
    });
  });

  // In the page, in the textarea's place.
  const place = () => {
    // What was typed in the textarea meanwhile, and where.
    const typing = document.activeElement === textarea;
    const at = textarea.selectionStart;
    if (textarea.value !== editor.value) {
      external = true;
      try { editor.setOptions({ value: textarea.value }); } finally { external = false; }
    }
    textarea.after(editor.container, message);
    textarea.classList.add('lab-editor-replaced');
    placed = true;
    // The label's click, and the page's loader giving the textarea back its focus at
    // the hand-over (static/boot.js), land in the editor.
    label?.addEventListener('click', toEditor);
    textarea.focus = () => editor.textarea.focus();
    for (const f of waiting.splice(0)) f();
    if (typing) {
      editor.textarea.focus();
      setSelection(editor, Math.min(at, editor.value.length));
    }
  };

  return {
    /** The panel's code, when it differs from what the editor holds (Reset, a link). */
    set(code) {
      whenIn(() => {
        const now = editor.value;
        if (typeof code !== 'string' || code === now) return;
        const d = difference(now, code);
        external = true;
        // A step of its own in the history, whatever was typed just before it.
        try { insertText(editor, d.insert, d.from, d.to); } finally { external = false; }
        textarea.value = editor.value;
      });
    },
    readOnly(on) {
      whenIn(() => editor.setOptions({ readOnly: !!on }));
    },
    /**
     * An error on `line` (from 1), its message shown under the editor. Line 0 with a
     * message: the line of the first bracket that pairs with nothing, if one does (a
     * SyntaxError that named no line); without a message, no mark.
     */
    markError(line, text) {
      whenIn(() => {
        const at = line > 0 ? line : text ? firstUnpairedBracket(editor.value, editor.tokens) : 0;
        marks = { ...marks, error: at > 0 ? { line: at, message: String(text) } : null };
        drawMarks();
      });
    },
    /**
     * The line that sent the command of a broken run; 0 clears it. (Its title, which
     * the verdict says too, has nowhere to show: the lines lie under the textarea.)
     */
    markSent(line) {
      whenIn(() => {
        marks = { ...marks, sent: line > 0 ? { line } : null };
        drawMarks();
      });
    },
    /** Selects `line` and gives the editor the focus. */
    goto(line) {
      whenIn(() => {
        const span = lineSpan(editor.value, line);
        editor.textarea.focus();
        setSelection(editor, span.from, span.to);
      });
    },
    destroy() {
      gone = true;
      if (!placed) { editor?.remove(); return; }
      label?.removeEventListener('click', toEditor);
      delete textarea.focus;
      textarea.classList.remove('lab-editor-replaced');
      editor.remove();
      message.remove();
    },
  };
}

window.lockstepEditor = { attach };

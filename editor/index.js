// The labs' code editor: CodeMirror 6 over the lab panel's <textarea> (src/ui/lab/).
// scripts/editor.sh bundles this file into the build's editor.js, a module that defines
// `window.lockstepEditor`; static/editor-load.js loads it when a lab first comes near,
// so the editor never comes with the first page. The panel calls `attach` through its
// bindings (src/ui/lab/code_editor.rs); where the script is missing or fails, the panel
// keeps its plain textarea.
//
// The textarea stays the panel's value: the editor writes every change into it and sends
// it an `input` event (and `change` when the editor loses the focus), so the panel reads
// what the learner typed as it always has. What the panel sets (Reset, a link's code) it
// hands to `set`, which replaces only what differs, as one step that Undo takes back.

// The libraries are evaluated a few at a time, a task each: each `./pause/N.js` between
// them ends a task (it awaits a timer), so the page answers the learner in between (#40:
// no task over 50 ms with the CPU slowed 4×). So the bundle is a module, which
// static/editor-load.js imports.
import './pause/1.js';
import { EditorState, Compartment, StateField, StateEffect, RangeSet } from '@codemirror/state';
import './pause/2.js';
import {
  EditorView, keymap, lineNumbers, highlightActiveLineGutter, highlightSpecialChars, drawSelection,
  highlightActiveLine, Decoration, WidgetType, GutterMarker, gutter,
} from '@codemirror/view';
import './pause/3.js';
import {
  indentOnInput, bracketMatching, syntaxHighlighting, HighlightStyle, StreamLanguage, ensureSyntaxTree, syntaxTree,
} from '@codemirror/language';
import { tags } from '@lezer/highlight';
import './pause/4.js';
import { defaultKeymap, history, historyKeymap, indentWithTab, isolateHistory } from '@codemirror/commands';
import './pause/5.js';
import { closeBrackets, closeBracketsKeymap } from '@codemirror/autocomplete';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import './pause/6.js';
// JavaScript as a stream of tokens (CodeMirror 5's mode), not Lezer's grammar: the
// grammar (with TypeScript's and JSX's) and its parser weighed 40 KB gzip of the editor's
// 149, these tokens 7, and highlighting, indenting and bracket matching need only tokens.
import { javascript } from '@codemirror/legacy-modes/mode/javascript';
import './pause/7.js';

// CodeMirror's own words (the search panel, the gutter) in Norwegian Bokmål.
const PHRASES = {
  nb: {
    'Find': 'Finn',
    'Replace': 'Erstatt',
    'next': 'neste',
    'previous': 'forrige',
    'all': 'alle',
    'match case': 'skill mellom store og små bokstaver',
    'by word': 'hele ord',
    'regexp': 'regulært uttrykk',
    'replace': 'erstatt',
    'replace all': 'erstatt alle',
    'close': 'lukk',
    'current match': 'gjeldende treff',
    'replaced $ matches': 'erstattet $ treff',
    'replaced match on line $': 'erstattet treff på linje $',
    'on line': 'på linje',
    'Go to line': 'Gå til linje',
    'go': 'gå',
    'Control character': 'Kontrolltegn',
  },
};

// The colours of the lesson's own code blocks (static/style.css), which keep AA contrast
// in the light and the dark scheme.
const colours = HighlightStyle.define([
  { tag: [tags.keyword, tags.controlKeyword, tags.moduleKeyword, tags.operatorKeyword, tags.definitionKeyword, tags.modifier], color: 'var(--kw)' },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: 'var(--str)' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: 'var(--com)', fontStyle: 'italic' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: 'var(--num)' },
  { tag: tags.invalid, color: 'var(--err)' },
]);

// Marks: an error on a line (the gutter's "!" and the message under the line), and the
// line that sent a broken run's command (the gutter's "▸").
const setMarks = StateEffect.define();

class ErrorWidget extends WidgetType {
  constructor(message) { super(); this.message = message; }
  eq(other) { return other.message === this.message; }
  toDOM() {
    const div = document.createElement('div');
    div.className = 'cm-lab-message';
    div.textContent = this.message;
    return div;
  }
  ignoreEvent() { return false; }
}

class Marker extends GutterMarker {
  constructor(kind, title) { super(); this.kind = kind; this.title = title; }
  eq(other) { return other.kind === this.kind && other.title === this.title; }
  toDOM() {
    const span = document.createElement('span');
    span.className = `cm-lab-marker cm-lab-marker-${this.kind}`;
    span.textContent = this.kind === 'error' ? '!' : '▸';
    span.title = this.title;
    return span;
  }
}

// { error: {line, message} | null, sent: {line, title} | null }, lines counted from 1 and
// held to the document's lines (a mark past the end goes on the last line).
const marks = StateField.define({
  create: () => ({ error: null, sent: null }),
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setMarks)) value = { ...value, ...e.value };
    // An edit takes the marks away: they were about the code that ran.
    if (tr.docChanged && (value.error || value.sent)) value = { error: null, sent: null };
    return value;
  },
});

function lineAt(doc, n) {
  return doc.line(Math.min(Math.max(1, n | 0), doc.lines));
}

const markDecorations = EditorView.decorations.compute([marks, 'doc'], (state) => {
  const { error, sent } = state.field(marks);
  const ranges = [];
  if (sent) ranges.push(Decoration.line({ class: 'cm-lab-sent-line' }).range(lineAt(state.doc, sent.line).from));
  if (error) {
    const line = lineAt(state.doc, error.line);
    ranges.push(Decoration.line({ class: 'cm-lab-error-line' }).range(line.from));
    ranges.push(Decoration.widget({ widget: new ErrorWidget(error.message), block: true, side: 1 }).range(line.to));
  }
  ranges.sort((a, b) => a.from - b.from || a.value.startSide - b.value.startSide);
  return Decoration.set(ranges);
});

const markGutter = gutter({
  class: 'cm-lab-gutter',
  markers(view) {
    const { error, sent } = view.state.field(marks);
    const ranges = [];
    if (error) ranges.push(new Marker('error', error.message).range(lineAt(view.state.doc, error.line).from));
    if (sent) ranges.push(new Marker('sent', sent.title).range(lineAt(view.state.doc, sent.line).from));
    ranges.sort((a, b) => a.from - b.from);
    return RangeSet.of(ranges, true);
  },
  initialSpacer: () => new Marker('spacer', ''),
});

const javascriptLanguage = StreamLanguage.define(javascript);

// Tokens whose brackets are text, not code: strings (a template's `${` and its `}` are in
// its string tokens), regular expressions (string.special) and comments.
const TEXT_TOKEN = /^(string|comment)/;

// The line of the first bracket that pairs with nothing, or 0. A SyntaxError names no
// line of the learner's when a brace is missing or one too many: the error then falls in
// the lab's code around theirs. A closer that closes nothing (or the wrong kind) is the
// answer; else the last opener left open at the end, the one a missing closer belongs to.
function firstUnpairedBracket(state) {
  const tree = ensureSyntaxTree(state, state.doc.length, 200) || syntaxTree(state);
  const text = [];
  tree.iterate({ enter: (node) => { if (TEXT_TOKEN.test(node.name)) text.push([node.from, node.to]); } });
  const doc = state.doc.toString();
  const open = [];
  let t = 0;
  for (let i = 0; i < doc.length; i++) {
    while (t < text.length && text[t][1] <= i) t++;
    if (t < text.length && text[t][0] <= i) { i = text[t][1] - 1; continue; }
    const c = doc[i];
    if (c === '(' || c === '[' || c === '{') open.push(i);
    else if (c === ')' || c === ']' || c === '}') {
      const o = open.pop();
      if (o === undefined || '([{'.indexOf(doc[o]) !== ')]}'.indexOf(c)) return state.doc.lineAt(i).number;
    }
  }
  return open.length ? state.doc.lineAt(open[open.length - 1]).number : 0;
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

/**
 * Puts an editor in place of `textarea` (which stays, hidden, as the value).
 * options: { lang: 'en' | 'nb', onRun: () => void }. Returns the panel's handle.
 */
function attach(textarea, options = {}) {
  const readOnly = new Compartment();
  let external = false;
  let changedSinceFocus = false;
  const labelledBy = textarea.labels && textarea.labels[0] ? textarea.labels[0].id || (textarea.labels[0].id = `${textarea.id}-label`) : null;
  const contentAttributes = { 'aria-multiline': 'true' };
  if (labelledBy) contentAttributes['aria-labelledby'] = labelledBy;
  const describedBy = textarea.getAttribute('aria-describedby');
  if (describedBy) contentAttributes['aria-describedby'] = describedBy;
  const run = () => { if (typeof options.onRun === 'function') options.onRun(); return true; };

  const extensions = [
    keymap.of([{ key: 'Mod-Enter', run, preventDefault: true }]),
    lineNumbers(),
    markGutter,
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    indentOnInput(),
    syntaxHighlighting(colours),
    bracketMatching(),
    closeBrackets(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, indentWithTab]),
    javascriptLanguage,
    marks,
    markDecorations,
    readOnly.of(EditorState.readOnly.of(textarea.readOnly)),
    EditorState.tabSize.of(2),
    // Long lines wrap: on a phone nothing of the code hides beyond the right edge.
    EditorView.lineWrapping,
    EditorState.phrases.of(PHRASES[options.lang] || {}),
    EditorView.contentAttributes.of(contentAttributes),
    EditorView.editorAttributes.of({ class: 'lab-cm' }),
    EditorView.updateListener.of((u) => {
      if (!u.docChanged || external) return;
      changedSinceFocus = true;
      textarea.value = u.state.doc.toString();
      textarea.dispatchEvent(new InputEvent('input', { bubbles: true }));
    }),
    EditorView.domEventHandlers({
      focus: () => { changedSinceFocus = false; },
      blur: () => {
        if (changedSinceFocus) textarea.dispatchEvent(new Event('change', { bubbles: true }));
        changedSinceFocus = false;
      },
    }),
  ];

  // The editor is made in steps, a task each (the state, then the view, then its place in
  // the page), so the page answers the learner between them (#40: no task over 50 ms with
  // the CPU slowed 4×). Until it is in place, the textarea is the editor, and what the
  // panel asks of the editor waits, in its order.
  let view = null;
  let made = null;
  let gone = false;
  const waiting = [];
  const whenIn = (f) => { if (view) f(); else waiting.push(f); };
  const later = (f) => setTimeout(() => { if (!gone) f(); }, 0);
  const label = textarea.labels && textarea.labels[0];
  const toEditor = (e) => { e?.preventDefault?.(); view.focus(); };
  later(() => {
    const state = EditorState.create({ doc: textarea.value, extensions });
    later(() => {
      made = new EditorView({ state });
      later(() => {
        view = made;
        // What was typed in the textarea meanwhile, and where.
        const typing = document.activeElement === textarea;
        const at = textarea.selectionStart;
        const now = view.state.doc.toString();
        if (textarea.value !== now) {
          external = true;
          try { view.dispatch({ changes: difference(now, textarea.value) }); } finally { external = false; }
        }
        textarea.after(view.dom);
        textarea.classList.add('lab-editor-replaced');
        // The label's click, and the page's loader giving the textarea back its focus at
        // the hand-over (static/boot.js), land in the editor.
        label?.addEventListener('click', toEditor);
        textarea.focus = () => view.focus();
        for (const f of waiting.splice(0)) f();
        if (typing) {
          view.dispatch({ selection: { anchor: Math.min(at, view.state.doc.length) } });
          view.focus();
        }
      });
    });
  });

  return {
    /** The panel's code, when it differs from what the editor holds (Reset, a link). */
    set(code) {
      whenIn(() => {
        const now = view.state.doc.toString();
        if (typeof code !== 'string' || code === now) return;
        external = true;
        // A step of its own in the history, whatever was typed just before it.
        try {
          view.dispatch({ changes: difference(now, code), annotations: isolateHistory.of('full') });
        } finally { external = false; }
      });
    },
    readOnly(on) {
      whenIn(() => view.dispatch({ effects: readOnly.reconfigure(EditorState.readOnly.of(!!on)) }));
    },
    /**
     * An error on `line` (from 1), its message shown under it. Line 0 with a message: the
     * line of the first bracket that pairs with nothing, if one does (a SyntaxError that
     * named no line); without a message, no mark.
     */
    markError(line, message) {
      whenIn(() => {
        const at = line > 0 ? line : message ? firstUnpairedBracket(view.state) : 0;
        view.dispatch({ effects: setMarks.of({ error: at > 0 ? { line: at, message: String(message) } : null }) });
      });
    },
    /** The line that sent the command of a broken run; 0 clears it. */
    markSent(line, title) {
      whenIn(() => view.dispatch({ effects: setMarks.of({ sent: line > 0 ? { line, title: String(title) } : null }) }));
    },
    /** Selects `line` and gives the editor the focus. */
    goto(line) {
      whenIn(() => {
        const l = lineAt(view.state.doc, line);
        view.dispatch({ selection: { anchor: l.from, head: l.to }, scrollIntoView: true });
        view.focus();
      });
    },
    destroy() {
      gone = true;
      if (!view) { made?.destroy(); return; }
      label?.removeEventListener('click', toEditor);
      delete textarea.focus;
      textarea.classList.remove('lab-editor-replaced');
      view.destroy();
    },
  };
}

window.lockstepEditor = { attach };

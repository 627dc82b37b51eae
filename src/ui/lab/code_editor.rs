//! The lab's code editor: prism-code-editor (editor/index.js, bundled into the build's
//! `editor.js`), put over the panel's textarea once `static/editor-load.js` has loaded it.
//! The textarea stays the panel's value: the editor writes each change into it and sends
//! it `input`, so the panel reads the code as it always has. The panel hands the editor
//! what it sets itself (Reset, a link's code), the running state, an error's line and the
//! line that sent a broken run's command. Where the script cannot load (the browser tests'
//! page has none), the textarea is the editor.

use crate::lesson::content::Lang;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// One editor over one textarea (`attach`'s answer in editor/index.js).
    pub type Editor;
    #[wasm_bindgen(method)]
    fn set(this: &Editor, code: &str);
    #[wasm_bindgen(method, js_name = readOnly)]
    fn read_only(this: &Editor, on: bool);
    #[wasm_bindgen(method, js_name = markError)]
    fn mark_error(this: &Editor, line: u32, message: &str);
    #[wasm_bindgen(method, js_name = markSent)]
    fn mark_sent(this: &Editor, line: u32, title: &str);
    #[wasm_bindgen(method)]
    fn goto(this: &Editor, line: u32);
    #[wasm_bindgen(method)]
    fn destroy(this: &Editor);

    /// `window.lockstepEditor.attach(textarea, options)`.
    #[wasm_bindgen(js_namespace = lockstepEditor, js_name = attach, catch)]
    fn attach(textarea: &web_sys::HtmlTextAreaElement, options: &JsValue) -> Result<Editor, JsValue>;

    /// `window.lockstepEditorLoad(textarea)` (static/editor-load.js): the editor's script, loaded
    /// once, when `textarea` first comes near the screen.
    #[wasm_bindgen(js_name = lockstepEditorLoad, catch)]
    fn load(textarea: &web_sys::HtmlTextAreaElement) -> Result<js_sys::Promise, JsValue>;
}

/// An attached editor and the callback it calls for Ctrl+Enter.
pub(super) struct Attached {
    editor: Editor,
    _on_run: Closure<dyn FnMut()>,
}

impl Drop for Attached {
    fn drop(&mut self) {
        self.editor.destroy();
    }
}

/// The panel's handle on its editor: empty until (and unless) the editor has come.
#[derive(Clone, Default)]
pub(super) struct CodeEditor(Rc<RefCell<Option<Attached>>>);

impl PartialEq for CodeEditor {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl CodeEditor {
    fn with(&self, f: impl FnOnce(&Editor)) -> bool {
        match self.0.borrow().as_ref() {
            Some(a) => {
                f(&a.editor);
                true
            }
            None => false,
        }
    }

    /// Selects `line` in the editor and focuses it; false without an editor.
    pub(super) fn goto(&self, line: u32) -> bool {
        self.with(|e| e.goto(line))
    }
}

/// What the editor must show besides the code: an error on a line, the line that sent a
/// broken run's command. `run` tells one run's marks from the next's (an edit takes the
/// marks away, and the same error again must come back).
#[derive(Clone, PartialEq, Default)]
pub(super) struct Marks {
    pub run: usize,
    /// The line (from 1) and the message; line 0: the line of the first bracket that pairs
    /// with nothing (`editor/index.js`).
    pub error: Option<(u32, String)>,
    pub sent: Option<(u32, String)>,
}

/// Puts the editor over the textarea `textarea` once its script has come, and keeps it
/// told of the code, the running state and the marks. `on_run` is Ctrl+Enter.
#[hook]
pub(super) fn use_code_editor(
    textarea: &NodeRef,
    lang: Lang,
    code: &str,
    running: bool,
    marks: Marks,
    on_run: Callback<()>,
) -> CodeEditor {
    let editor = use_state(CodeEditor::default);
    let attached = use_state_eq(|| false);
    // Ctrl+Enter calls the newest `on_run` (its handles are this render's).
    let run_now = use_mut_ref(|| on_run.clone());
    *run_now.borrow_mut() = on_run;
    {
        let (textarea, editor, attached) = (textarea.clone(), (*editor).clone(), attached.clone());
        use_effect_with(lang, move |lang| {
            let lang = *lang;
            let alive = Rc::new(std::cell::Cell::new(true));
            if !crate::ui::browser::prerendering() {
                let (alive, editor) = (alive.clone(), editor.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    let Some(el) = textarea.cast::<web_sys::HtmlTextAreaElement>() else {
                        return;
                    };
                    let Ok(promise) = load(&el) else { return };
                    if wasm_bindgen_futures::JsFuture::from(promise).await.is_err() || !alive.get() {
                        return;
                    }
                    let on_run = Closure::<dyn FnMut()>::new(move || run_now.borrow().emit(()));
                    let options = js_sys::Object::new();
                    let _ = js_sys::Reflect::set(&options, &"lang".into(), &lang.code().into());
                    let _ = js_sys::Reflect::set(&options, &"onRun".into(), on_run.as_ref().unchecked_ref());
                    if let Ok(e) = attach(&el, &options) {
                        *editor.0.borrow_mut() = Some(Attached {
                            editor: e,
                            _on_run: on_run,
                        });
                        attached.set(true);
                    }
                });
            }
            let editor = editor.clone();
            move || {
                alive.set(false);
                editor.0.borrow_mut().take();
            }
        });
    }
    {
        let editor = (*editor).clone();
        use_effect_with((*attached, code.to_string()), move |(_, code)| {
            editor.with(|e| e.set(code));
        });
    }
    {
        let editor = (*editor).clone();
        use_effect_with((*attached, running), move |(_, running)| {
            editor.with(|e| e.read_only(*running));
        });
    }
    {
        let editor = (*editor).clone();
        // A task after the run's verdict is drawn: the editor measures itself anew.
        use_effect_with((*attached, marks), move |(_, marks)| {
            let marks = marks.clone();
            let later = gloo::timers::callback::Timeout::new(0, move || {
                editor.with(|e| {
                    let (line, message) = marks.error.clone().unwrap_or_default();
                    e.mark_error(line, &message);
                    let (line, title) = marks.sent.clone().unwrap_or_default();
                    e.mark_sent(line, &title);
                });
            });
            move || drop(later)
        });
    }
    (*editor).clone()
}

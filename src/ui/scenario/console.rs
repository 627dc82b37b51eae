//! Redis consoles: the input line with its history, and §2's standalone exercise.

use crate::lesson::i18n::k;
use crate::store::parse_line;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ConsoleInputProps {
    pub on_line: Callback<String>,
    /// (command, reply) pairs shown above the input, in redis-cli format.
    pub history: Vec<(String, String)>,
    /// The language of its label and button.
    pub lang: crate::lesson::content::Lang,
}

/// Where ↑ (`back`) or ↓ moves in the lines typed so far, as a shell does: from the
/// line being typed (`None`) to the newest, older, and back down to an empty line.
fn recall(count: usize, at: Option<usize>, back: bool) -> Option<usize> {
    match (at, back) {
        (None, true) => count.checked_sub(1),
        (Some(i), true) => Some(i.saturating_sub(1)),
        (Some(i), false) => Some(i + 1).filter(|&n| n < count),
        (None, false) => None,
    }
}

/// A labelled command line; Enter runs it, ↑ and ↓ bring back the lines typed before.
/// The replies scroll to the newest.
#[function_component(ConsoleInput)]
pub fn console_input(props: &ConsoleInputProps) -> Html {
    let tx = crate::lesson::i18n::Texts::new(props.lang);
    let value = use_state(String::new);
    let at = use_state(|| None::<usize>);
    let pre = use_node_ref();
    {
        let pre = pre.clone();
        // In a task of its own: read in the task that drew, the height would make the
        // browser lay the page out there, on top of the drawing.
        use_effect_with(props.history.len(), move |_| {
            let later = gloo::timers::callback::Timeout::new(0, move || {
                if let Some(el) = pre.cast::<web_sys::Element>() {
                    el.set_scroll_top(el.scroll_height());
                }
            });
            move || drop(later)
        });
    }
    let on_input = {
        let value = value.clone();
        Callback::from(move |e: InputEvent| {
            value.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())
        })
    };
    let on_key = {
        let (value, at) = (value.clone(), at.clone());
        let lines: Vec<String> = props.history.iter().map(|(c, _)| c.clone()).collect();
        Callback::from(move |e: KeyboardEvent| {
            let back = match e.key().as_str() {
                "ArrowUp" => true,
                "ArrowDown" => false,
                _ => return,
            };
            e.prevent_default();
            let next = recall(lines.len(), *at, back);
            value.set(next.and_then(|i| lines.get(i).cloned()).unwrap_or_default());
            at.set(next);
        })
    };
    let on_submit = {
        let (value, at) = (value.clone(), at.clone());
        let on_line = props.on_line.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let line = (*value).trim().to_string();
            if !line.is_empty() {
                on_line.emit(line);
                value.set(String::new());
                at.set(None);
            }
        })
    };
    html! {
        <div class="console">
            <pre class="console-history" aria-live="polite" tabindex="0" ref={pre}>
                { for props.history.iter().map(|(cmd, reply)| html! {
                    <><span class="tok-prompt">{"> "}</span><span class="console-cmd">{ cmd.clone() }</span>{"\n"}
                    <span class={classes!("console-reply", reply.starts_with("(error)").then_some("tok-err"))}>{ crate::ui::engine_worker::in_words(tx, reply) }</span>{"\n"}</>
                }) }
            </pre>
            <form class="console-form" onsubmit={on_submit}>
                <label>{ format!("{} ", tx.t(k::CONSOLE_COMMAND)) }
                    <input type="text" class="console-input" value={(*value).clone()} oninput={on_input} onkeydown={on_key}
                           autocomplete="off" autocapitalize="off" spellcheck="false" placeholder="SET lock:x t1 NX PX 10000" />
                </label>
                <button type="submit">{ tx.t(k::CONSOLE_RUN) }</button>
            </form>
        </div>
    }
}

/// §2's exercise: a store of your own. Its clock starts at 0 and moves only with
/// `DEBUG SLEEP <seconds>`, so PTTL counts down exactly as you tell it to.
#[derive(Properties, PartialEq)]
pub struct ConsoleExerciseProps {
    pub lang: crate::lesson::content::Lang,
}

#[function_component(ConsoleExercise)]
pub fn console_exercise(props: &ConsoleExerciseProps) -> Html {
    let tx = crate::lesson::i18n::Texts::new(props.lang);
    // The store lives in the engine: each line is answered by running every line so far
    // on a fresh store there (`calls::console_reply`; its clock moves only with DEBUG
    // SLEEP, so the same lines give the same replies). Answers come in the order asked.
    let lines = use_mut_ref(Vec::<String>::new);
    let history = use_mut_ref(Vec::<(String, String)>::new);
    let redraw = use_force_update();
    let on_line = {
        let (lines, history) = (lines.clone(), history.clone());
        Callback::from(move |line: String| {
            if matches!(parse_line(&line), Ok(args) if args.is_empty()) {
                return;
            }
            lines.borrow_mut().push(line.clone());
            let arg = lines.borrow().clone();
            let (history, redraw) = (history.clone(), redraw.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let reply = match crate::ui::engine_worker::call(crate::calls::Request::Console(arg)).await {
                    Some(crate::calls::Answer::Console(reply)) => reply,
                    _ => format!("(error) {}", crate::timeline::panel::NO_ENGINE),
                };
                history.borrow_mut().push((line, reply));
                redraw.force_update();
            });
        })
    };
    let history = history.borrow().clone();
    html! {
        <section class="scenario console-exercise" aria-label={tx.t(k::CONSOLE_EXERCISE)}>
            <p class="hint">{ tx.t(k::CONSOLE_TRY) }</p>
            <ConsoleInput {on_line} {history} lang={props.lang} />
        </section>
    }
}

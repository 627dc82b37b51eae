//! Redis consoles: the input line with its history, and §2's standalone exercise.

use crate::store::{parse_line, render, Store};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ConsoleInputProps {
    pub on_line: Callback<String>,
    /// (command, reply) pairs shown above the input, in redis-cli format.
    pub history: Vec<(String, String)>,
    /// The language of its label and button.
    pub lang: crate::lesson::content::Lang,
}

/// A labelled command line; Enter runs it. Up/Down would need more state than it is
/// worth here; the history stays visible instead.
#[function_component(ConsoleInput)]
pub fn console_input(props: &ConsoleInputProps) -> Html {
    let tx = crate::lesson::i18n::Texts::new(props.lang);
    let value = use_state(String::new);
    let on_input = {
        let value = value.clone();
        Callback::from(move |e: InputEvent| {
            value.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())
        })
    };
    let on_submit = {
        let value = value.clone();
        let on_line = props.on_line.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let line = (*value).trim().to_string();
            if !line.is_empty() {
                on_line.emit(line);
                value.set(String::new());
            }
        })
    };
    html! {
        <div class="console">
            <pre class="console-history" aria-live="polite" tabindex="0">
                { for props.history.iter().map(|(cmd, reply)| html! {
                    <><span class="tok-prompt">{"> "}</span><span class="console-cmd">{ cmd.clone() }</span>{"\n"}
                    <span class={classes!("console-reply", reply.starts_with("(error)").then_some("tok-err"))}>{ reply.clone() }</span>{"\n"}</>
                }) }
            </pre>
            <form class="console-form" onsubmit={on_submit}>
                <label>{ format!("{} ", tx.t("console_command")) }
                    <input type="text" class="console-input" value={(*value).clone()} oninput={on_input}
                           autocomplete="off" autocapitalize="off" spellcheck="false" placeholder="SET lock:x t1 NX PX 10000" />
                </label>
                <button type="submit">{ tx.t("console_run") }</button>
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
    let store = use_mut_ref(|| Store::new(1));
    let history = use_state(Vec::<(String, String)>::new);
    let on_line = {
        let store = store.clone();
        let history = history.clone();
        Callback::from(move |line: String| {
            let reply = match parse_line(&line) {
                Ok(args) if args.is_empty() => return,
                Ok(args) => render(&store.borrow_mut().execute(&args)),
                Err(e) => format!("(error) {e}"),
            };
            let mut h = (*history).clone();
            h.push((line, reply));
            history.set(h);
        })
    };
    html! {
        <section class="scenario console-exercise" aria-label={tx.t("console_exercise")}>
            <p class="hint">{ tx.t("console_try") }</p>
            <ConsoleInput {on_line} history={(*history).clone()} lang={props.lang} />
        </section>
    }
}

//! One question: a `<fieldset>` whose `<legend>` is the prompt, answered with labelled
//! controls and a Check button; feedback in a live region, never by colour alone.

use super::{render_inline, CodeBlock};
use crate::lesson::content::Lang;
use crate::lesson::generate::{self, Body, Instance};
use crate::lesson::i18n::{k, Texts};
use crate::lesson::quiz::{
    without_verdict, Attempts, Form, Kind, NotAnswered, NumberProblem, Question, Response,
};
use crate::ui::browser;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct QuestionProps {
    pub question: Rc<Question>,
    pub lang: Lang,
    /// Called with whether a checked answer was right, for every Check that counts as a
    /// try (not for an empty or unreadable answer, nor after the answer was shown).
    pub on_result: Callback<(String, bool)>,
    /// Called when the learner asks to see the explanations before solving it.
    #[prop_or_default]
    pub on_reveal: Callback<String>,
    /// Counted attempts so far (stored progress), shown under the question.
    #[prop_or_default]
    pub attempts: u32,
}

/// A handle to the draft: read it, or change it and re-render.
#[derive(Clone)]
struct DraftHandle {
    cell: std::rc::Rc<std::cell::RefCell<Response>>,
    redraw: UseForceUpdateHandle,
}

impl DraftHandle {
    fn get(&self) -> Response {
        self.cell.borrow().clone()
    }
    fn set(&self, d: Response) {
        *self.cell.borrow_mut() = d;
        self.redraw.force_update();
    }
}

fn fresh_seed(q: &Question) -> u64 {
    match q.kind {
        // A new variant on every visit: a fresh seed from the browser.
        Kind::Generated(_) => browser::random_u64(),
        // Fixed questions: a stable shuffle per question.
        _ => {
            q.id.bytes()
                .fold(17u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64))
        }
    }
}

/// Why an answer could not be checked, in the learner's language.
fn not_answered(t: &Texts, why: NotAnswered, typed: &str) -> String {
    let typed = || vec![("input", typed.trim().to_string())];
    match why {
        NotAnswered::NothingChosen => t.t(k::QUIZ_NOTHING_CHOSEN),
        NotAnswered::NoLine => t.t(k::QUIZ_NO_LINE),
        NotAnswered::Number(NumberProblem::Empty) => t.t(k::QUIZ_NO_NUMBER),
        NotAnswered::Number(NumberProblem::NotANumber) => t.fmt(k::QUIZ_NOT_A_NUMBER, &typed()),
        NotAnswered::Number(NumberProblem::OddGrouping) => t.fmt(k::QUIZ_ODD_GROUPING, &typed()),
        NotAnswered::Number(NumberProblem::AmbiguousComma) => t.fmt(k::QUIZ_AMBIGUOUS_COMMA, &typed()),
    }
}

/// What drawing a question's answer controls needs.
struct AnswerArea<'a> {
    t: &'a Texts,
    lang: Lang,
    dom_id: &'a str,
    current: &'a Response,
    draft: &'a DraftHandle,
    answered: bool,
}

impl AnswerArea<'_> {
    /// Options to choose, one or several; once answered, each says why it is right or wrong.
    fn choice(
        &self,
        options: &[String],
        explanations: &[String],
        correct: &crate::vecmap::VecSet<usize>,
        multiple: bool,
    ) -> Html {
        let dom_id = self.dom_id;
        let kind = if multiple { "checkbox" } else { "radio" };
        html! {
            <ul class="q-options">
                { for options.iter().enumerate().map(|(i, opt)| {
                    let checked = self.current.chosen.contains(&i);
                    let handle = self.draft.clone();
                    let onchange = Callback::from(move |_| {
                        let draft = &handle;
                        let mut d = draft.get();
                        if multiple {
                            if !d.chosen.remove(&i) { d.chosen.insert(i); }
                        } else {
                            d.chosen = [i].into_iter().collect();
                        }
                        draft.set(d);
                    });
                    let input_id = format!("{dom_id}-o{i}");
                    let right = correct.contains(&i);
                    html! {
                        <li class={classes!("q-option", self.answered.then_some(if right { "is-right" } else { "is-wrong" }))}>
                            <input type={kind} id={input_id.clone()} name={dom_id.to_string()} value={i.to_string()}
                                   {checked} {onchange} />
                            <label for={input_id}>{ render_inline(opt, self.lang) }</label>
                            if self.answered {
                                <p class="q-why">
                                    <strong>{ if right { format!("✓ {}", self.t.t(k::QUIZ_RIGHT_OPTION)) } else { format!("✗ {}", self.t.t(k::QUIZ_WRONG_OPTION)) } }</strong>
                                    {" "}{ render_inline(&without_verdict(explanations.get(i).map(String::as_str).unwrap_or_default()), self.lang) }
                                </p>
                            }
                        </li>
                    }
                }) }
            </ul>
        }
    }

    /// A number, with its unit and a hint about how to write it.
    fn numeric(&self, unit: Option<&str>, whole: bool, unreadable: bool) -> Html {
        let dom_id = self.dom_id;
        let draft_c = self.draft.clone();
        let oninput = Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
            draft_c.set(Response {
                number: v,
                ..draft_c.get()
            });
        });
        let input_id = format!("{dom_id}-n");
        let hint_id = format!("{dom_id}-hint");
        html! {
            <>
            <p class="q-numeric">
                <label for={input_id.clone()}>{ self.t.t(k::QUIZ_YOUR_ANSWER) }</label>
                <input type="text" inputmode="decimal" id={input_id} value={self.current.number.clone()} {oninput} autocomplete="off"
                       aria-describedby={hint_id.clone()} aria-invalid={unreadable.then_some("true")} />
                if let Some(u) = unit { <span class="q-unit">{ u.to_string() }</span> }
            </p>
            <p class="hint q-number-hint" id={hint_id}>{ self.t.t(if whole { k::QUIZ_NUMBER_HINT } else { k::QUIZ_NUMBER_HINT_DECIMAL }) }</p>
            </>
        }
    }

    /// Items to put in order, each moved with its ↑ and ↓ buttons (the focus follows it).
    fn order(&self, items: &[String], focus_next: &Rc<std::cell::RefCell<Option<String>>>) -> Html {
        let dom_id = self.dom_id;
        let n = self.current.order.len();
        html! {
            <ol class="q-order">
                { for self.current.order.iter().enumerate().map(|(pos, &item)| {
                    let text = items.get(item).cloned().unwrap_or_default();
                    let up_id = format!("{dom_id}-i{item}-up");
                    let down_id = format!("{dom_id}-i{item}-down");
                    let mv = |delta: isize| {
                        let draft = self.draft.clone();
                        let focus_next = focus_next.clone();
                        let (up_id, down_id) = (up_id.clone(), down_id.clone());
                        Callback::from(move |_| {
                            let mut d = draft.get();
                            let to = pos as isize + delta;
                            if to >= 0 && (to as usize) < d.order.len() {
                                let to = to as usize;
                                d.order.swap(pos, to);
                                // Focus stays with the moved item: on the same
                                // button, or the other one if it reached an end.
                                let at_end = to == 0 || to + 1 == d.order.len();
                                let same = if delta < 0 { &up_id } else { &down_id };
                                let other = if delta < 0 { &down_id } else { &up_id };
                                *focus_next.borrow_mut() = Some(if at_end { other } else { same }.clone());
                                draft.set(d);
                            }
                        })
                    };
                    html! {
                        <li key={item}>
                            <span class="q-order-text">{ render_inline(&text, self.lang) }</span>
                            <span class="q-order-buttons">
                                <button type="button" id={up_id.clone()} disabled={pos == 0} aria-label={self.t.fmt(k::QUIZ_MOVE_UP, &[("item", text.clone())])} onclick={mv(-1)}>{"↑"}</button>
                                <button type="button" id={down_id.clone()} disabled={pos + 1 == n} aria-label={self.t.fmt(k::QUIZ_MOVE_DOWN, &[("item", text.clone())])} onclick={mv(1)}>{"↓"}</button>
                            </span>
                        </li>
                    }
                }) }
            </ol>
        }
    }

    /// The lines of a piece of code, one to pick as the faulty one.
    fn bug(&self, lines: &[String], bug_line: usize) -> Html {
        let dom_id = self.dom_id;
        html! {
        <ol class="q-lines">
            { for lines.iter().enumerate().map(|(i, line)| {
                let n = i + 1;
                let checked = self.current.line == Some(n);
                let handle = self.draft.clone();
                let onchange = Callback::from(move |_| handle.set(Response { line: Some(n), ..handle.get() }));
                let input_id = format!("{dom_id}-l{n}");
                html! {
                    <li class={classes!(self.answered.then_some(if n == bug_line { "is-right" } else { "" }))}>
                        <input type="radio" id={input_id.clone()} name={dom_id.to_string()} {checked} {onchange} />
                        <label for={input_id}>
                            <span class="visually-hidden">{ self.t.fmt(k::QUIZ_LINE, &[("n", n.to_string())]) }{": "}</span>
                            <span class="q-line-no" aria-hidden="true">{ n }</span>
                            <code>{ if line.is_empty() { " ".to_string() } else { line.clone() } }</code>
                        </label>
                    </li>
                }
            }) }
        </ol>
        }
    }
}

/// The verdict of the last Check, and once answered the solution and its explanation.
fn feedback(t: &Texts, lang: Lang, result: &Attempts, current: &Response, inst: &Instance) -> Html {
    let answered = result.shows_answer();
    let verdict = match result.last {
        None => html! {},
        Some(Err(why)) => html! {
            <p class="q-verdict unread">{ not_answered(t, why, &current.number) }</p>
        },
        Some(Ok(ok)) => html! {
            <p class={classes!("q-verdict", if ok { "right" } else { "wrong" })}>
                <strong>{ if ok { format!("✓ {}", t.t(k::QUIZ_CORRECT)) } else { format!("✗ {}", t.t(k::QUIZ_INCORRECT)) } }</strong>
                if result.right_after_reveal() { {" "}{ t.t(k::QUIZ_NOT_COUNTED_AFTER_REVEAL) } }
                else if !ok && !answered { {" "}{ t.t(k::QUIZ_TRY_AGAIN) } }
            </p>
        },
    };
    html! {
        <>
            { verdict }
            if answered {
                <p class="q-solution">{ t.fmt(k::QUIZ_SOLUTION, &[("answer", inst.solution())]) }</p>
                if !inst.explanation.is_empty() { <p class="q-explanation">{ render_inline(&inst.explanation, lang) }</p> }
            }
        </>
    }
}

/// What a question shows: made at once when it needs no engine (or the page has no engine
/// worker), else by the engine's worker, the variant before staying shown meanwhile.
struct Made {
    inst: Option<Rc<Instance>>,
    /// A newer variant is being made.
    busy: bool,
    /// "page" or "worker": where `inst` was made.
    made_in: &'static str,
    /// It could not be made: it needs the simulator, which did not start.
    failed: bool,
}

type InstanceKey = (Rc<Question>, Lang, u64, crate::ui::scenario::PackScenarios);
/// An instance made (or `None`: it could not be), for its key, and where.
type MadeFor = Option<(InstanceKey, Option<Rc<Instance>>, &'static str)>;

/// The instance of `key`'s question: a generated question or a "what happens next?"
/// runs the store or the simulator, in the engine's worker where the page has one, so
/// that neither holds the page's thread.
#[hook]
fn use_instance(key: InstanceKey) -> Made {
    let now = use_memo(key.clone(), |(q, lang, seed, _)| {
        generate::fixed(q, *lang, *seed).map(|inst| Some(Rc::new(inst)))
    });
    let made = use_state(|| None as MadeFor);
    {
        let (made, now) = (made.clone(), now.clone());
        use_effect_with(key.clone(), move |key| {
            let job = match *now {
                Some(_) => None,
                None => ask_worker(key.clone(), made),
            };
            move || drop(job)
        });
    }
    let (inst, busy, made_in) = match (now.as_ref(), made.as_ref()) {
        (Some(inst), _) => (inst.clone(), false, "page"),
        (None, Some((k, inst, made_in))) => (inst.clone(), *k != key, *made_in),
        (None, None) => {
            return Made {
                inst: None,
                busy: true,
                made_in: "",
                failed: false,
            }
        }
    };
    Made {
        failed: inst.is_none(),
        inst,
        busy,
        made_in,
    }
}

/// Asks the engine's worker for `key`'s instance, into `made` (`None` if the worker
/// cannot make it: the question says so). Dropping the job forgets the question.
fn ask_worker(key: InstanceKey, made: UseStateHandle<MadeFor>) -> Option<crate::ui::engine_worker::Job> {
    let (q, lang, seed, pack) = key.clone();
    let job = generate::InstanceJob {
        question: (*q).clone(),
        lang,
        seed,
        scenarios: pack.0.as_ref().clone(),
    };
    let here = {
        let (made, key) = (made.clone(), key.clone());
        move || made.set(Some((key.clone(), None, "worker")))
    };
    use crate::calls::{Answer, Request};
    use crate::ui::engine_worker::Message;
    let on_message = {
        let here = here.clone();
        move |m: &Message| match m.answer() {
            // Shown once the engine has parsed its texts too (the page parses none).
            Some(Answer::Question(inst)) => {
                let (made, key) = (made.clone(), key.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    // The trees the engine made of its filled texts; the rest are the
                    // lesson's own or plain, or (a pack's) asked of the authoring module.
                    crate::lesson::docs::learn(inst.trees.clone());
                    super::learn_trees(inst.texts()).await;
                    made.set(Some((key, Some(Rc::new(*inst)), "worker")));
                });
            }
            _ if m.is_done() => {}
            // The engine's own error: the question says it could not be made.
            _ => here(),
        }
    };
    let handle = crate::ui::engine_worker::submit(&Request::Question(job), on_message, here.clone());
    if handle.is_none() {
        here();
    }
    handle
}

#[function_component(QuestionView)]
pub fn question_view(props: &QuestionProps) -> Html {
    let t = Texts::new(props.lang);
    let q = props.question.clone();
    let seed = {
        let q = q.clone();
        use_state(move || fresh_seed(&q))
    };
    // A pack's own scenarios, for its "what happens next?" questions.
    let pack = use_context::<crate::ui::scenario::PackScenarios>().unwrap_or_default();
    let made = use_instance((q.clone(), props.lang, *seed, pack));
    let on_another = {
        let seed = seed.clone();
        Callback::from(move |_| seed.set(browser::random_u64()))
    };
    let Some(inst) = made.inst else {
        return html! {
            <form class="question" id={format!("q-{}", q.id)} data-question-id={q.id.clone()}
                aria-busy={(!made.failed).then_some("true")}>
                <fieldset>
                    if made.failed {
                        <p class="error" role="alert">{ t.t(k::QUIZ_NO_ENGINE) }</p>
                    } else {
                        <p class="loading" role="status">{ t.t(k::QUIZ_PREPARING) }</p>
                    }
                </fieldset>
            </form>
        };
    };
    html! {
        <QuestionBody question={q} lang={props.lang} on_result={props.on_result.clone()}
            on_reveal={props.on_reveal.clone()} attempts={props.attempts} {inst} seed={*seed}
            busy={made.busy} made_in={made.made_in} {on_another} />
    }
}

#[derive(Properties, PartialEq)]
struct BodyProps {
    question: Rc<Question>,
    lang: Lang,
    on_result: Callback<(String, bool)>,
    on_reveal: Callback<String>,
    attempts: u32,
    inst: Rc<Instance>,
    seed: u64,
    /// A newer variant is being made (the one shown stays until it comes).
    busy: bool,
    made_in: &'static str,
    on_another: Callback<MouseEvent>,
}

/// A question with its instance: the prompt, the answer's controls, Check and feedback.
#[function_component(QuestionBody)]
fn question_body(props: &BodyProps) -> Html {
    let t = Texts::new(props.lang);
    let q = props.question.clone();
    let inst = props.inst.clone();
    let seed = props.seed;
    let draft_cell = {
        let inst = inst.clone();
        use_mut_ref(move || Response {
            order: order_init(&inst.body),
            ..Response::default()
        })
    };
    let redraw = use_force_update();
    let draft = DraftHandle {
        cell: draft_cell.clone(),
        redraw: redraw.clone(),
    };
    let result = use_state(Attempts::default);
    // After an item of an ordering question moves, the id of the button to focus.
    let focus_next = use_mut_ref(|| None::<String>);
    {
        let focus_next = focus_next.clone();
        use_effect(move || {
            if let Some(id) = focus_next.borrow_mut().take() {
                use wasm_bindgen::JsCast;
                if let Some(b) = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.get_element_by_id(&id))
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = b.focus();
                }
            }
        });
    }
    let dom_id = format!("q-{}", q.id);

    // A new variant (or language) starts a new draft.
    {
        let draft = draft.clone();
        let result = result.clone();
        use_effect_with(inst.clone(), move |inst| {
            draft.set(Response {
                order: order_init(&inst.body),
                ..Response::default()
            });
            result.set(Attempts::default());
        });
    }

    let on_submit = {
        let inst = inst.clone();
        let draft = draft.clone();
        let result = result.clone();
        let on_result = props.on_result.clone();
        let id = q.id.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let mut next = (*result).clone();
            let counted = next.check(inst.judge(&draft.get()));
            result.set(next);
            if let Some(ok) = counted {
                on_result.emit((id.clone(), ok));
            }
        })
    };
    let on_reveal = {
        let result = result.clone();
        let on_reveal = props.on_reveal.clone();
        let id = q.id.clone();
        Callback::from(move |_| {
            let mut next = (*result).clone();
            if !next.shows_answer() {
                next.reveal();
                result.set(next);
                on_reveal.emit(id.clone());
            }
        })
    };
    let on_another = props.on_another.clone();
    let answered = result.shows_answer();
    let current = draft.get();

    let area = AnswerArea {
        t: &t,
        lang: props.lang,
        dom_id: &dom_id,
        current: &current,
        draft: &draft,
        answered,
    };
    let body = match &inst.body {
        Body::Choice {
            options,
            explanations,
            correct,
            multiple,
        } => area.choice(options, explanations, correct, *multiple),
        Body::Numeric { unit, .. } => {
            let whole = matches!(inst.form(), Form::Number { whole: true, .. });
            let unreadable = matches!(result.last, Some(Err(NotAnswered::Number(_))));
            area.numeric(unit.as_deref(), whole, unreadable)
        }
        Body::Order { items, .. } => area.order(items, &focus_next),
        Body::Bug { lines, bug_line } => area.bug(lines, *bug_line),
    };
    let feedback = feedback(&t, props.lang, &result, &current, &inst);
    let is_generated = matches!(q.kind, Kind::Generated(_));
    let show_code = !matches!(inst.body, Body::Bug { .. });

    html! {
        <form class="question" id={dom_id.clone()} onsubmit={on_submit} data-question-id={q.id.clone()}
            aria-busy={props.busy.then_some("true")} data-made-in={props.made_in}>
            <fieldset>
                <legend>{ render_inline(&inst.prompt, props.lang) }</legend>
                if show_code {
                    if let Some((code_lang, code)) = &inst.code {
                        <CodeBlock lang={Some(code_lang.clone())} code={code.clone()} ui_lang={props.lang} />
                    }
                }
                if let Some((scenario, pause_ms)) = &inst.scenario {
                    if !answered { <p class="hint">{ t.t(k::PREDICT_PAUSED) }</p> }
                    <super::Deferred>
                        <crate::ui::scenario::ScenarioPanel names={vec![scenario.clone()]} lang={props.lang}
                            hold_at_ms={(!answered).then_some(*pause_ms)} url_state={false} />
                    </super::Deferred>
                }
                { body }
                <div class="q-actions">
                    <button type="submit" class="q-check">{ t.t(k::QUIZ_CHECK) }</button>
                    if is_generated {
                        <button type="button" class="q-another" onclick={on_another}>{ t.t(k::QUIZ_ANOTHER) }</button>
                        <span class="q-variant">{ t.fmt(k::QUIZ_VARIANT, &[("seed", format!("{:x}", seed))]) }</span>
                    }
                    if !answered {
                        <button type="button" class="q-reveal" onclick={on_reveal}>
                            { t.t(if matches!(inst.body, Body::Choice { .. }) { k::QUIZ_REVEAL_EXPLANATIONS } else { k::QUIZ_REVEAL_ANSWER }) }
                        </button>
                    }
                    if props.attempts > 0 {
                        <span class="q-attempts">{ attempts_text(&t, props.attempts) }</span>
                    }
                </div>
                <div class="q-feedback" role="status" aria-live="polite">{ feedback }</div>
            </fieldset>
        </form>
    }
}

/// "Checked once", "Checked 3 times": the counted tries, this one included.
fn attempts_text(t: &Texts, n: u32) -> String {
    if n == 1 {
        t.t(k::QUIZ_ATTEMPTS_ONE)
    } else {
        t.fmt(k::QUIZ_ATTEMPTS, &[("n", n.to_string())])
    }
}

fn order_init(body: &Body) -> Vec<usize> {
    match body {
        Body::Order { items, .. } => (0..items.len()).collect(),
        _ => Vec::new(),
    }
}

//! Browser tests of the quizzes and the progress page.
#![cfg(target_arch = "wasm32")]

use gloo::timers::future::TimeoutFuture;
use lockstep::lesson::content::{builtin, builtin_questions, Lang};
use lockstep::lesson::progress::PROGRESS_KEY;
use lockstep::lesson::quiz::{Kind, Question};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

mod web_common;
use web_common::*;

/// The first question of `kind` in the built-in lesson, and the order of its section.
fn find(pred: impl Fn(&Question) -> bool) -> (Question, u32) {
    let lesson = builtin(Lang::En).expect("lesson");
    let q = builtin_questions()
        .expect("questions")
        .into_iter()
        .find(|q| pred(q))
        .expect("such a question exists");
    let order = lesson
        .sections
        .iter()
        .find(|s| s.id == q.section)
        .expect("its section")
        .order;
    (q, order)
}

fn question_el(root: &Element, id: &str) -> Element {
    query(root, &format!("form[data-question-id=\"{id}\"]"))
        .unwrap_or_else(|| panic!("question {id} is shown"))
}

fn feedback(q: &Element) -> String {
    query(q, ".q-feedback")
        .and_then(|f| f.text_content())
        .unwrap_or_default()
}

fn submit(q: &Element) {
    click(q, "button.q-check");
}

#[wasm_bindgen_test]
async fn a_choice_question_answered_wrong_then_right() {
    let _x = Exclusive::acquire().await;
    let (q, order) = find(|q| matches!(q.kind, Kind::Single { .. }));
    let Kind::Single { correct } = q.kind else {
        unreachable!()
    };
    let root = fresh(&format!("#/distributed-locks/{order}"));
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let el = question_el(&root, &q.id);
    // Structure: a fieldset whose legend is the prompt, labelled radios, a Check button, a live region.
    assert_eq!(
        query(&el, "fieldset legend")
            .and_then(|l| l.text_content())
            .as_deref(),
        Some(q.en.prompt.as_str())
    );
    let radios = query_all(&el, "input[type=radio]");
    assert_eq!(radios.len(), q.en.options.len());
    for r in &radios {
        let id = r.id();
        assert!(
            query(&el, &format!("label[for=\"{id}\"]")).is_some(),
            "radio {id} has a label"
        );
    }
    assert_eq!(
        query(&el, "button.q-check")
            .and_then(|b| b.text_content())
            .as_deref(),
        Some("Check")
    );
    assert_eq!(
        query(&el, ".q-feedback")
            .and_then(|f| f.get_attribute("role"))
            .as_deref(),
        Some("status")
    );

    let wrong = (correct + 1) % radios.len();
    radios[wrong].clone().dyn_into::<HtmlElement>().unwrap().click();
    submit(&el);
    let e = el.clone();
    wait_until("wrong-answer feedback", move || {
        feedback(&e).contains("Not quite")
    })
    .await;
    // A wrong try gives nothing away: no explanations, no answer, until asked or solved.
    assert!(query_all(&el, ".q-why").is_empty(), "{}", feedback(&el));
    assert!(!feedback(&el).contains("The answer is"), "{}", feedback(&el));
    assert!(query(&el, "button.q-reveal").is_some());

    radios[correct].clone().dyn_into::<HtmlElement>().unwrap().click();
    submit(&el);
    let e = el.clone();
    wait_until("right-answer feedback", move || feedback(&e).contains("Correct")).await;
    // Solved: every option now carries its explanation, marked in words, not only colour.
    let whys = query_all(&el, ".q-why");
    assert_eq!(whys.len(), q.en.options.len());
    assert!(whys[correct]
        .text_content()
        .unwrap_or_default()
        .starts_with("✓ Right:"));
    assert!(whys[wrong]
        .text_content()
        .unwrap_or_default()
        .starts_with("✗ Wrong:"));

    let stored = storage().get_item(PROGRESS_KEY).unwrap().unwrap_or_default();
    assert!(
        stored.contains(&format!("\"{}\":{{\"attempts\":2,\"solved\":true}}", q.id)),
        "{stored}"
    );
}

#[wasm_bindgen_test]
async fn a_numeric_question_is_answered_by_keyboard_and_survives_a_reload() {
    let _x = Exclusive::acquire().await;
    let (q, order) = find(|q| matches!(q.kind, Kind::Numeric { .. }));
    let Kind::Numeric { answer, .. } = q.kind else {
        unreachable!()
    };
    let root = fresh(&format!("#/distributed-locks/{order}"));
    let app = Mounted::new(&root);
    mounted(&root).await;
    let el = question_el(&root, &q.id);
    let input: HtmlInputElement = query(&el, "input[type=text]")
        .expect("a number field")
        .dyn_into()
        .unwrap();
    assert!(query(&el, &format!("label[for=\"{}\"]", input.id())).is_some());
    type_into(&input, &format!("{}", answer as i64)).await;
    // Enter in the field submits the form, as a keyboard user would.
    el.clone()
        .dyn_into::<web_sys::HtmlFormElement>()
        .unwrap()
        .request_submit()
        .unwrap();
    let e = el.clone();
    wait_until("the numeric answer is judged right", move || {
        feedback(&e).contains("Correct")
    })
    .await;
    app.unmount();

    let root = new_root();
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let el = question_el(&root, &q.id);
    let attempts = query(&el, ".q-attempts")
        .and_then(|a| a.text_content())
        .unwrap_or_default();
    // One counted try, after a reload too.
    assert_eq!(attempts, "Checked once");
}

#[wasm_bindgen_test]
async fn generated_questions_offer_another_variant() {
    let _x = Exclusive::acquire().await;
    let (q, order) = find(|q| matches!(q.kind, Kind::Generated(_)));
    let root = fresh(&format!("#/distributed-locks/{order}"));
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let variant = |e: &Element| {
        query(e, ".q-variant")
            .and_then(|v| v.text_content())
            .unwrap_or_default()
    };
    // The instance comes from the engine's worker (the question's form replaces its
    // placeholder then).
    let (r, id) = (root.clone(), q.id.clone());
    wait_until("the first variant", move || {
        !variant(&question_el(&r, &id)).is_empty()
    })
    .await;
    let el = question_el(&root, &q.id);
    let first = variant(&el);
    assert!(!query(&el, "legend")
        .and_then(|l| l.text_content())
        .unwrap_or_default()
        .contains('{'));
    click(&el, "button.q-another");
    let e = el.clone();
    wait_until("a new variant", move || variant(&e) != first).await;
}

#[wasm_bindgen_test]
async fn export_reset_and_import_restore_progress() {
    let _x = Exclusive::acquire().await;
    let (q, order) = find(|q| matches!(q.kind, Kind::Single { .. }));
    let Kind::Single { correct } = q.kind else {
        unreachable!()
    };
    let root = fresh(&format!("#/distributed-locks/{order}"));
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let el = question_el(&root, &q.id);
    query_all(&el, "input[type=radio]")[correct]
        .clone()
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
    submit(&el);
    let e = el.clone();
    wait_until("answered", move || feedback(&e).contains("Correct")).await;
    // What "Export progress" downloads is exactly the stored JSON.
    let exported = storage()
        .get_item(PROGRESS_KEY)
        .unwrap()
        .expect("progress stored");

    web_sys::window()
        .unwrap()
        .location()
        .set_hash("#/distributed-locks/progress")
        .unwrap();
    let r = root.clone();
    wait_until("the progress page", move || query(&r, ".progress-page").is_some()).await;
    click(&root, "button.reset");
    let r = root.clone();
    wait_until("the reset asks for confirmation", move || {
        query(&r, "button.reset-yes").is_some()
    })
    .await;
    assert!(
        storage()
            .get_item(PROGRESS_KEY)
            .unwrap()
            .unwrap_or_default()
            .contains(&q.id),
        "not reset before confirming"
    );
    click(&root, "button.reset-yes");
    let r = root.clone();
    wait_until("progress is reset", move || {
        query(&r, ".progress-page .progress-outcome")
            .and_then(|n| n.text_content())
            .unwrap_or_default()
            .contains("reset")
    })
    .await;
    let after_reset = storage().get_item(PROGRESS_KEY).unwrap().unwrap_or_default();
    assert!(!after_reset.contains(&q.id), "{after_reset}");

    // Import the exported file through the file input.
    let input: HtmlInputElement = query(&root, "#import-file")
        .expect("file input")
        .dyn_into()
        .unwrap();
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(&exported));
    let file = web_sys::File::new_with_str_sequence(&parts, "lockstep-progress.json").unwrap();
    let dt = web_sys::DataTransfer::new().unwrap();
    dt.items().add_with_file(&file).unwrap();
    input.set_files(dt.files().as_ref());
    input
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    let id = q.id.clone();
    wait_until("the import restores the answer", move || {
        storage()
            .get_item(PROGRESS_KEY)
            .unwrap()
            .unwrap_or_default()
            .contains(&id)
    })
    .await;
    let text = query(&root, ".progress-page")
        .and_then(|p| p.text_content())
        .unwrap_or_default();
    assert!(text.contains("1 of"), "{text}");

    // A file that is not ours is refused with a notice, and nothing changes.
    let before = storage().get_item(PROGRESS_KEY).unwrap();
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str("not json at all"));
    let bad = web_sys::File::new_with_str_sequence(&parts, "x.json").unwrap();
    let dt = web_sys::DataTransfer::new().unwrap();
    dt.items().add_with_file(&bad).unwrap();
    input.set_files(dt.files().as_ref());
    input
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    let r = root.clone();
    wait_until("the refusal notice", move || {
        query(&r, ".progress-page .progress-outcome")
            .and_then(|n| n.text_content())
            .unwrap_or_default()
            .contains("not a Lockstep")
    })
    .await;
    assert_eq!(storage().get_item(PROGRESS_KEY).unwrap(), before);
}

#[wasm_bindgen_test]
async fn a_predict_question_holds_the_timeline_then_plays_on() {
    let _x = Exclusive::acquire().await;
    // unsafe-del, held at 12 250 ms: A and B have overlapped; B and C will at 12 300.
    let (q, order) = find(|q| matches!(&q.kind, Kind::Predict { scenario, .. } if scenario == "unsafe-del"));
    let Kind::Predict {
        scenario,
        pause_at_ms,
    } = &q.kind
    else {
        unreachable!()
    };
    let (_, correct) = lockstep::lesson::generate::predict(scenario, *pause_at_ms, Lang::En);
    let correct = correct.expect("the scenario runs");
    let root = fresh(&format!("#/distributed-locks/{order}"));
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let el = question_el(&root, &q.id);
    let e = el.clone();
    wait_until("the question's timeline", move || {
        query(&e, "section.scenario svg.timeline").is_some()
    })
    .await;
    let cursor_ms = |el: &Element| -> f64 {
        query(el, ".cursor-time")
            .and_then(|c| c.text_content())
            .and_then(|t| t.split(" ms").next().and_then(|s| s.trim().parse().ok()))
            .unwrap_or(-1.0)
    };
    let held = cursor_ms(&el);
    assert!(held >= 0.0 && held <= *pause_at_ms as f64, "held at {held}");
    // Going to the end stops at the hold point while the question is open.
    click(&el, "section.scenario button[aria-label='Go to end']");
    TimeoutFuture::new(100).await;
    assert!(cursor_ms(&el) <= *pause_at_ms as f64, "{}", cursor_ms(&el));
    // Held, the panel says only what broke up to the hold point, and not whether the
    // rest is safe: that is the prediction asked for.
    let s = lockstep::sim::scenario::builtin(scenario)
        .expect("built-in")
        .expect("parses");
    let bands = lockstep::timeline::build(&s, 1).expect("runs").bands;
    let before = bands.iter().filter(|b| b.from_us <= *pause_at_ms * 1000).count();
    assert!(before < bands.len(), "the run breaks after the hold point");
    let listed = |el: &Element| query_all(el, "section.scenario li.violation-text").len();
    assert!(
        listed(&el) <= before,
        "held, it lists {} of {} violations",
        listed(&el),
        bands.len()
    );
    assert!(
        query(&el, "section.scenario .safe-text").is_none(),
        "held, it does not say safe"
    );
    // Answer right: the run continues by itself and the answer shows on the timeline.
    query_all(&el, "input[type=radio]")[correct]
        .clone()
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
    submit(&el);
    let e = el.clone();
    wait_until("right-answer feedback", move || feedback(&e).contains("Correct")).await;
    let e = el.clone();
    let pause = *pause_at_ms as f64;
    wait_until("the run plays past the hold point", move || cursor_ms(&e) > pause).await;
    // Answered, the whole outcome is said.
    let e = el.clone();
    let all = bands.len();
    wait_until("every violation listed", move || listed(&e) == all).await;
}

/// Lets queued microtasks run (yew renders in one), but no timer.
async fn microtasks() {
    for _ in 0..4 {
        let p = js_sys::Promise::resolve(&wasm_bindgen::JsValue::UNDEFINED);
        let _ = wasm_bindgen_futures::JsFuture::from(p).await;
    }
}

#[wasm_bindgen_test]
async fn the_quiz_is_drawn_after_the_section_text_and_its_scenario() {
    let _x = Exclusive::acquire().await;
    let lesson = builtin(Lang::En).expect("lesson");
    let section = lesson.sections.iter().find(|s| s.order == 3).expect("§3");
    let questions = builtin_questions()
        .expect("questions")
        .into_iter()
        .filter(|q| q.section == section.id)
        .count();
    assert!(questions >= 2, "§3 has a quiz");
    let root = fresh("#/distributed-locks/3");
    let _app = Mounted::new(&root);
    // The first render: the text and the section's own scenario panel (its run asked of
    // the engine's worker), and one busy placeholder per question, none of them drawn yet.
    microtasks().await;
    assert!(
        query(&root, "#section-title").is_some(),
        "the section is drawn at once"
    );
    assert!(query(&root, "article.section section.scenario").is_some());
    assert_eq!(
        query_all(&root, ".quiz .deferred[aria-busy=true]").len(),
        questions
    );
    assert!(query(&root, "form.question").is_none());
    let r = root.clone();
    wait_until("the section's timeline, from the worker", move || {
        query(&r, "article.section section.scenario svg.timeline").is_some()
    })
    .await;
    // A few tasks later: every question, including the scenario panel of each "what
    // happens next?" question, and no placeholder left.
    let r = root.clone();
    wait_until("every question is drawn", move || {
        query_all(&r, "form.question").len() == questions && query(&r, ".deferred").is_none()
    })
    .await;
    // Their runs come from the engine's worker.
    let r = root.clone();
    wait_until("§3's predict questions carry their timelines", move || {
        query(&r, "form.question section.scenario svg.timeline").is_some()
    })
    .await;
}

/// The stored progress record of question `id` ("" if it has none).
fn stored_question(id: &str) -> String {
    let stored = storage().get_item(PROGRESS_KEY).unwrap().unwrap_or_default();
    let key = format!("\"{id}\":");
    stored
        .find(&key)
        .map(|i| stored[i..].split('}').next().unwrap_or_default().to_string())
        .unwrap_or_default()
}

fn radio_or_box(el: &Element, i: usize) -> HtmlElement {
    query_all(el, "input[type=radio], input[type=checkbox]")[i]
        .clone()
        .dyn_into()
        .unwrap()
}

#[wasm_bindgen_test]
async fn nothing_chosen_asks_again_without_counting_a_try() {
    let _x = Exclusive::acquire().await;
    for (what, pred) in [
        (
            "single",
            (|q: &Question| matches!(q.kind, Kind::Single { .. })) as fn(&Question) -> bool,
        ),
        ("multiple", |q| matches!(q.kind, Kind::Multiple { .. })),
        ("bug", |q| matches!(q.kind, Kind::Bug { .. })),
    ] {
        let (q, order) = find(pred);
        let root = fresh(&format!("#/distributed-locks/{order}"));
        let app = Mounted::new(&root);
        mounted(&root).await;
        let el = question_el(&root, &q.id);
        let before = storage().get_item(PROGRESS_KEY).unwrap();
        submit(&el);
        let e = el.clone();
        wait_until("the page asks again", move || {
            feedback(&e).contains("first. Nothing was checked")
        })
        .await;
        let said = feedback(&el);
        assert!(
            !said.contains("Not quite") && !said.contains("The answer is"),
            "{what}: {said}"
        );
        assert!(query_all(&el, ".q-why").is_empty(), "{what}: no explanations");
        assert!(query(&el, ".q-attempts").is_none(), "{what}: no try counted");
        assert_eq!(storage().get_item(PROGRESS_KEY).unwrap(), before, "{what}");
        // Then a real answer counts once.
        radio_or_box(&el, 0).click();
        submit(&el);
        let e = el.clone();
        wait_until("a verdict", move || {
            let f = feedback(&e);
            f.contains("Correct") || f.contains("Not quite")
        })
        .await;
        assert!(
            stored_question(&q.id).contains("\"attempts\":1"),
            "{what}: {}",
            stored_question(&q.id)
        );
        app.unmount();
    }
}

#[wasm_bindgen_test]
async fn an_unreadable_number_says_why_and_is_no_try() {
    let _x = Exclusive::acquire().await;
    let (q, order) = find(|q| matches!(q.kind, Kind::Numeric { answer, .. } if answer >= 1000.0));
    let Kind::Numeric { answer, .. } = q.kind else {
        unreachable!()
    };
    let root = fresh(&format!("#/distributed-locks/{order}"));
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let el = question_el(&root, &q.id);
    let input: HtmlInputElement = query(&el, "input[type=text]").unwrap().dyn_into().unwrap();
    // The field says how numbers are read.
    let hint = input
        .get_attribute("aria-describedby")
        .expect("a described field");
    assert!(text(&el, &format!("#{hint}")).contains("9,778 both mean 9778"));
    let before = storage().get_item(PROGRESS_KEY).unwrap();
    for (typed, why) in [
        ("", "Write a number first"),
        ("abc", "“abc” is not a number"),
        ("97 78", "groups its digits oddly"),
    ] {
        type_into(&input, typed).await;
        submit(&el);
        let e = el.clone();
        wait_until(why, move || feedback(&e).contains(why)).await;
        assert!(feedback(&el).contains("did not count as a try"));
        assert!(!feedback(&el).contains("The answer is"), "{}", feedback(&el));
        assert_eq!(input.get_attribute("aria-invalid").as_deref(), Some("true"));
        assert_eq!(storage().get_item(PROGRESS_KEY).unwrap(), before, "{typed:?}");
    }
    // `9,778` is the number 9778: a comma before three digits groups thousands.
    let n = answer as i64;
    type_into(&input, &format!("{},{:03}", n / 1000, n % 1000)).await;
    submit(&el);
    let e = el.clone();
    wait_until("the grouped answer is right", move || {
        feedback(&e).contains("Correct")
    })
    .await;
    assert_eq!(input.get_attribute("aria-invalid"), None);
    assert_eq!(
        stored_question(&q.id),
        format!("\"{}\":{{\"attempts\":1,\"solved\":true", q.id)
    );
}

#[wasm_bindgen_test]
async fn norwegian_reads_9_778_with_a_no_break_space_and_says_why_in_norwegian() {
    let _x = Exclusive::acquire().await;
    let (q, order) = find(|q| matches!(q.kind, Kind::Numeric { answer, .. } if answer >= 1000.0));
    let Kind::Numeric { answer, .. } = q.kind else {
        unreachable!()
    };
    let root = fresh(&format!("#/distributed-locks/{order}"));
    set_search("?lang=nb");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let el = question_el(&root, &q.id);
    let input: HtmlInputElement = query(&el, "input[type=text]").unwrap().dyn_into().unwrap();
    type_into(&input, "abc").await;
    submit(&el);
    let e = el.clone();
    wait_until("the reason in Norwegian", move || {
        feedback(&e).contains("«abc» er ikke et tall")
    })
    .await;
    let n = answer as i64;
    type_into(&input, &format!("{}\u{a0}{:03}", n / 1000, n % 1000)).await;
    submit(&el);
    let e = el.clone();
    wait_until("the grouped answer is right", move || {
        feedback(&e).contains("Riktig")
    })
    .await;
    assert!(stored_question(&q.id).contains("\"attempts\":1,\"solved\":true"));
    reset_search();
}

/// The verdict words of the page, and the number of times each appears in `s`.
fn count(s: &str, word: &str) -> usize {
    s.matches(word).count()
}

#[wasm_bindgen_test]
async fn choose_all_that_apply_says_right_and_wrong_once_in_both_languages() {
    let _x = Exclusive::acquire().await;
    let (q, order) = find(|q| matches!(q.kind, Kind::Multiple { .. }));
    let Kind::Multiple { correct } = &q.kind else {
        unreachable!()
    };
    for (lang, right, wrong, once) in [
        ("en", "Right:", "Wrong:", "Checked once"),
        ("nb", "Riktig:", "Feil:", "Sjekket én gang"),
    ] {
        let root = fresh(&format!("#/distributed-locks/{order}"));
        set_search(&format!("?lang={lang}"));
        let app = Mounted::new(&root);
        mounted(&root).await;
        let el = question_el(&root, &q.id);
        for &i in correct {
            radio_or_box(&el, i).click();
        }
        submit(&el);
        let e = el.clone();
        wait_until("the option explanations", move || {
            !query_all(&e, ".q-why").is_empty()
        })
        .await;
        for why in query_all(&el, ".q-why") {
            let t = why.text_content().unwrap_or_default();
            assert_eq!(count(&t, right) + count(&t, wrong), 1, "{lang}: {t}");
            // Nor in other words: the explanation does not open with Yes:/No:/Ja:/Nei:.
            let after = t.split_once(':').map(|(_, r)| r.trim_start()).unwrap_or_default();
            for w in ["Yes:", "No:", "Ja:", "Nei:", "Right", "Wrong", "Riktig", "Feil"] {
                assert!(!after.starts_with(w), "{lang}: {t}");
            }
        }
        // The first Check is counted as this one, not as one "before".
        let e = el.clone();
        wait_until("the attempts line", move || query(&e, ".q-attempts").is_some()).await;
        assert_eq!(text(&el, ".q-attempts"), once, "{lang}");
        app.unmount();
    }
    reset_search();
}

#[wasm_bindgen_test]
async fn explanations_show_when_asked_and_then_choosing_the_answer_is_not_a_solve() {
    let _x = Exclusive::acquire().await;
    let (q, order) = find(|q| matches!(q.kind, Kind::Single { .. }));
    let Kind::Single { correct } = q.kind else {
        unreachable!()
    };
    let root = fresh(&format!("#/distributed-locks/{order}"));
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let el = question_el(&root, &q.id);
    assert_eq!(text(&el, "button.q-reveal"), "Show explanations");
    click(&el, "button.q-reveal");
    let e = el.clone();
    wait_until("the explanations", move || !query_all(&e, ".q-why").is_empty()).await;
    assert_eq!(query_all(&el, ".q-why").len(), q.en.options.len());
    assert!(feedback(&el).contains("The answer is"));
    assert!(query(&el, "button.q-reveal").is_none(), "asked once");
    assert_eq!(
        storage()
            .get_item(PROGRESS_KEY)
            .unwrap()
            .map(|s| s.contains(&q.id)),
        Some(false)
    );
    radio_or_box(&el, correct).click();
    submit(&el);
    let e = el.clone();
    wait_until("the right answer, not counted", move || {
        feedback(&e).contains("does not count as solved")
    })
    .await;
    assert_eq!(stored_question(&q.id), "", "neither a try nor a solve");
}

#[wasm_bindgen_test]
async fn focus_follows_the_moved_item_in_an_ordering_question() {
    let _x = Exclusive::acquire().await;
    let (q, order) = find(|q| matches!(q.kind, Kind::Order));
    let root = fresh(&format!("#/distributed-locks/{order}"));
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let el = question_el(&root, &q.id);
    let items = |el: &Element| -> Vec<String> {
        query_all(el, ".q-order li .q-order-text")
            .iter()
            .map(|i| i.text_content().unwrap_or_default())
            .collect()
    };
    let active_label = || {
        document()
            .active_element()
            .and_then(|a| a.get_attribute("aria-label"))
            .unwrap_or_default()
    };
    let press = |b: &Element| {
        let b: HtmlElement = b.clone().dyn_into().unwrap();
        b.focus().unwrap();
        b.click();
    };
    let first = items(&el)[0].clone();
    // Down from the top: the item is second now, and focus is on its own "down".
    press(
        &query_all(&el, ".q-order li")[0]
            .query_selector("button:last-child")
            .unwrap()
            .unwrap(),
    );
    let e = el.clone();
    let f = first.clone();
    wait_until("the item moved", move || items(&e)[1] == f).await;
    TimeoutFuture::new(30).await;
    assert_eq!(active_label(), format!("Move “{first}” down"));
    // Up again to the top, where "up" is disabled: focus goes to its "down".
    press(
        &query_all(&el, ".q-order li")[1]
            .query_selector("button:first-child")
            .unwrap()
            .unwrap(),
    );
    let e = el.clone();
    let f = first.clone();
    wait_until("the item moved back", move || items(&e)[0] == f).await;
    TimeoutFuture::new(30).await;
    assert_eq!(active_label(), format!("Move “{first}” down"));
    // And up from the middle keeps focus on "up".
    let third = items(&el)[2].clone();
    press(
        &query_all(&el, ".q-order li")[2]
            .query_selector("button:first-child")
            .unwrap()
            .unwrap(),
    );
    let e = el.clone();
    let t = third.clone();
    wait_until("the third item moved up", move || items(&e)[1] == t).await;
    TimeoutFuture::new(30).await;
    assert_eq!(active_label(), format!("Move “{third}” up"));
}

#[wasm_bindgen_test]
async fn an_embedding_host_hears_the_last_answer_before_complete() {
    let _x = Exclusive::acquire().await;
    TimeoutFuture::new(200).await;
    let (got, _listener) = collect_messages();
    let origin = web_sys::window().unwrap().location().origin().unwrap();
    let root = fresh("");
    set_search(&format!("?embed=1&show=quiz&section=2&origin={origin}"));
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the questions", move || {
        !query_all(&r, "form.question").is_empty() && query(&r, ".deferred").is_none()
    })
    .await;
    // Each generated question's instance comes from the engine's worker.
    let r = root.clone();
    wait_long("every question made", move || {
        query(&r, "form.question[aria-busy=true]").is_none()
    })
    .await;
    let forms = query_all(&root, "form.question");
    let mut last = String::new();
    for f in &forms {
        // Any readable answer: a check needs one to count.
        if let Some(i) = query(f, "input[type=text]") {
            type_into(&i, "1").await;
        } else if query(f, "input[type=radio], input[type=checkbox]").is_some() {
            radio_or_box(f, 0).click();
        }
        submit(f);
        last = f.get_attribute("data-question-id").unwrap_or_default();
        let (g, id) = (got.clone(), last.clone());
        wait_until("its answer message", move || {
            g.borrow()
                .iter()
                .any(|s| s.contains("\"type\":\"answer\"") && s.contains(&id))
        })
        .await;
    }
    let g = got.clone();
    wait_until("complete", move || {
        g.borrow().iter().any(|s| s.contains("\"type\":\"complete\""))
    })
    .await;
    let m = got.borrow();
    let answer_at = m
        .iter()
        .position(|s| s.contains("\"type\":\"answer\"") && s.contains(&last))
        .unwrap();
    let complete_at = m
        .iter()
        .position(|s| s.contains("\"type\":\"complete\""))
        .unwrap();
    assert!(answer_at < complete_at, "{m:?}");
    drop(m);
    reset_search();
}

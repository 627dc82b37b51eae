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
    // Every option now carries its explanation, marked in words, not only colour.
    let whys = query_all(&el, ".q-why");
    assert_eq!(whys.len(), q.en.options.len());
    assert!(whys[correct]
        .text_content()
        .unwrap_or_default()
        .contains("Right:"));
    assert!(whys[wrong]
        .text_content()
        .unwrap_or_default()
        .contains(q.en.explanations[wrong].as_str()));

    radios[correct].clone().dyn_into::<HtmlElement>().unwrap().click();
    submit(&el);
    let e = el.clone();
    wait_until("right-answer feedback", move || feedback(&e).contains("Correct")).await;

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
    assert!(attempts.contains('1'), "{attempts}");
}

#[wasm_bindgen_test]
async fn generated_questions_offer_another_variant() {
    let _x = Exclusive::acquire().await;
    let (q, order) = find(|q| matches!(q.kind, Kind::Generated(_)));
    let root = fresh(&format!("#/distributed-locks/{order}"));
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let el = question_el(&root, &q.id);
    let variant = |e: &Element| {
        query(e, ".q-variant")
            .and_then(|v| v.text_content())
            .unwrap_or_default()
    };
    let first = variant(&el);
    assert!(!first.is_empty());
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
    let (q, order) = find(|q| matches!(&q.kind, Kind::Predict { scenario, .. } if scenario == "fencing"));
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
    // The first render: the text and the section's own timeline, and one busy
    // placeholder per question, none of them drawn yet.
    microtasks().await;
    assert!(
        query(&root, "#section-title").is_some(),
        "the section is drawn at once"
    );
    assert!(query(&root, "article.section section.scenario svg.timeline").is_some());
    assert_eq!(
        query_all(&root, ".quiz .deferred[aria-busy=true]").len(),
        questions
    );
    assert!(query(&root, "form.question").is_none());
    // A few tasks later: every question, including the scenario panel of each "what
    // happens next?" question, and no placeholder left.
    let r = root.clone();
    wait_until("every question is drawn", move || {
        query_all(&r, "form.question").len() == questions && query(&r, ".deferred").is_none()
    })
    .await;
    let predicts = query_all(&root, "form.question section.scenario svg.timeline").len();
    assert!(predicts >= 1, "§3's predict questions carry their timelines");
}

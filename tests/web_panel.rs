//! Browser tests of what a learner trips over in a scenario panel (issue #20): playback
//! a learner can follow, the cluster view and the console agreeing, commands at the end,
//! a view that frames the events and follows the cursor, the console's history, knobs
//! that stay open, a bad seed said, an unused release script said, a click that seeks,
//! retries folded (#40 item 12) and a lens that keeps its height (item 13).
#![cfg(target_arch = "wasm32")]

use gloo::timers::future::TimeoutFuture;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

mod web_common;
use web_common::*;

fn panel(root: &Element) -> Element {
    query(root, "section.scenario[data-scenario]").expect("a scenario panel")
}

/// The cursor's time in ms, from the line under the scrub bar.
fn cursor_ms(p: &Element) -> f64 {
    text(p, ".cursor-time")
        .split(" ms")
        .next()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(-1.0)
}

async fn open(hash: &str) -> (Element, Mounted) {
    let root = fresh(hash);
    let app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the scenario panel", move || {
        query(&r, "section.scenario svg.timeline").is_some()
    })
    .await;
    (root, app)
}

/// The event number the cursor is on (the "event n of N" under the scrub bar).
fn scrub_index(p: &Element) -> usize {
    query(p, "input.scrub")
        .and_then(|s| s.dyn_into::<HtmlInputElement>().ok())
        .and_then(|s| s.value().parse().ok())
        .unwrap_or(usize::MAX)
}

/// Runs `line` in the panel's console and returns its reply.
async fn console(p: &Element, line: &str) -> String {
    let input: HtmlInputElement = query(p, ".console-input").expect("a console").dyn_into().unwrap();
    let before = query_all(p, ".console-reply").len();
    type_into(&input, line).await;
    submit_form(p, ".console-form");
    let pp = p.clone();
    wait_long("the reply", move || {
        query_all(&pp, ".console-reply").len() > before
    })
    .await;
    query_all(p, ".console-reply")
        .last()
        .and_then(|r| r.text_content())
        .unwrap_or_default()
}

/// At 1× (the speed a panel opens with) playback stops on every event in turn: a
/// learner sees each step, where it used to jump through §3's first events in a frame.
#[wasm_bindgen_test]
async fn playing_at_1x_stops_on_every_event() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=0").await;
    let p = panel(&root);
    let speed: HtmlSelectElement = query(&p, "select[aria-label=Speed]").unwrap().dyn_into().unwrap();
    assert_eq!(speed.value(), "1");
    click(&p, "button[aria-label='Go to start']");
    let pp = p.clone();
    wait_until("the start", move || scrub_index(&pp) == 0).await;
    click(&p, "button[aria-label=Play]");
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..1500 {
        seen.insert(scrub_index(&p));
        if seen.iter().any(|&e| e >= 8) {
            break;
        }
        TimeoutFuture::new(10).await;
    }
    // Jumping over an event would leave it out of `seen`.
    assert!(
        (0..=8).all(|e| seen.contains(&e)),
        "the cursor stopped on {seen:?}"
    );
    click(&p, "button[aria-label=Pause]");
}

/// The PTTL the cluster view shows is what `PTTL` on the node answers at that moment,
/// and `GET` sees the key it shows (§3 right after C's `SET … PX 10000`).
#[wasm_bindgen_test]
async fn the_cluster_view_and_the_console_agree() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=12298&e=31").await;
    let p = panel(&root);
    let pp = p.clone();
    wait_until("the cursor from the URL", move || scrub_index(&pp) == 31).await;
    let nodes = text(&p, ".cluster-nodes");
    let shown: i64 = nodes
        .split("PTTL ≈ ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or_else(|| panic!("a PTTL in {nodes}"));
    let value = nodes
        .split("lock = ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .expect("C's key")
        .to_string();
    assert_eq!(console(&p, "GET lock").await, format!("\"{value}\""));
    assert_eq!(console(&p, "PTTL lock").await, format!("(integer) {shown}"));
    // A read or a failed command makes no change to undo, an unknown one included.
    let reply = console(&p, "FROB lock").await;
    assert!(reply.starts_with("(error) ERR unknown command"), "{reply}");
    assert!(
        query(&p, "button.undo-fork").is_none(),
        "an unknown command made a fork"
    );
    // A write forks; Undo keeps the cursor at the same moment.
    assert_eq!(console(&p, "DEL lock").await, "(integer) 1");
    let pp = p.clone();
    wait_until("the fork", move || query(&pp, "button.undo-fork").is_some()).await;
    // Undo is beside the console that made the fork, not only in the head far above.
    let near = query(&p, ".scenario-console button.undo-fork").expect("Undo beside the console");
    let input = query(&p, ".console-input").expect("the console");
    let gap = near.get_bounding_client_rect().top() - input.get_bounding_client_rect().bottom();
    assert!(gap.abs() < 300.0, "Undo is {gap} px from the console");
    click(&p, ".scenario-console button.undo-fork");
    let pp = p.clone();
    wait_until("the fork is undone", move || {
        query(&pp, "button.undo-fork").is_none()
    })
    .await;
    TimeoutFuture::new(50).await;
    assert_eq!(scrub_index(&p), 31, "{}", text(&p, ".cursor-time"));
}

/// At the end of a run the node still answers.
#[wasm_bindgen_test]
async fn commands_run_at_the_end_of_a_run() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=0").await;
    let p = panel(&root);
    click(&p, "button[aria-label='Go to end']");
    let pp = p.clone();
    wait_until("the end", move || cursor_ms(&pp) >= 25_000.0).await;
    assert!(text(&p, ".cluster-nodes").contains("redis: up"));
    assert_eq!(console(&p, "SET k v").await, "OK");
    assert_eq!(console(&p, "GET k").await, "\"v\"");
}

/// The tick labels of the timeline's axis, ms.
fn tick_labels(p: &Element) -> Vec<f64> {
    query_all(p, "svg .tick text")
        .iter()
        .filter_map(|t| t.text_content()?.parse().ok())
        .collect()
}

/// §1's events all happen in its first 51 ms: the first view frames them, zooming
/// keeps the cursor's moment in view, and the view follows the cursor when it leaves.
#[wasm_bindgen_test]
async fn the_view_frames_the_events_and_zooms_on_the_cursor() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/1?scenario=double-charge-no-lock&seed=1&t=40").await;
    let p = panel(&root);
    let pp = p.clone();
    wait_until("the first view frames 0–51 ms", move || {
        tick_labels(&pp).iter().cloned().fold(0.0, f64::max) < 100.0
    })
    .await;
    let arrows = query_all(&p, "svg g.arrow").len();
    assert!(arrows > 5, "{arrows} arrows in the first view");
    for _ in 0..4 {
        click(&p, "button[aria-label='Zoom in']");
        TimeoutFuture::new(30).await;
    }
    let at = cursor_ms(&p);
    let ticks = tick_labels(&p);
    let (lo, hi) = (
        ticks.iter().cloned().fold(f64::MAX, f64::min),
        ticks.iter().cloned().fold(0.0, f64::max),
    );
    assert!(lo - 5.0 <= at && at <= hi + 5.0, "cursor {at} ms, view {ticks:?}");
    assert!(
        !query_all(&p, "svg g.arrow").is_empty() || !query_all(&p, "svg .mark").is_empty(),
        "an empty view"
    );
    // Stepping to the end: the view pans to keep the cursor visible.
    click(&p, "button[aria-label='Go to end']");
    let pp = p.clone();
    wait_until("the view follows the cursor", move || {
        let end = cursor_ms(&pp);
        tick_labels(&pp).iter().cloned().fold(0.0, f64::max) + 5.0 >= end && end > 500.0
    })
    .await;
}

/// A click on the timeline seeks (#40 item 12): at a tick of the axis, the cursor goes to
/// the last event at or before that moment, and the next event comes after it.
#[wasm_bindgen_test]
async fn a_click_on_the_timeline_seeks_to_its_moment() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/1?scenario=double-charge-no-lock&seed=1&t=0").await;
    let p = panel(&root);
    let pp = p.clone();
    wait_until("the first view frames 0–51 ms", move || {
        tick_labels(&pp).iter().cloned().fold(0.0, f64::max) < 100.0
    })
    .await;
    assert_eq!(cursor_ms(&p), 0.0, "the panel opens at 0 ms");
    // The tick nearest the view's middle, clicked on the axis (no mark or arrow there).
    let ticks: Vec<(f64, Element)> = query_all(&p, "svg .tick text")
        .into_iter()
        .filter_map(|t| Some((t.text_content()?.parse().ok()?, t)))
        .collect();
    let (at_ms, tick) = ticks.get(ticks.len() / 2).cloned().expect("ticks on the axis");
    assert!(at_ms > 0.0, "a tick after the start: {at_ms}");
    let svg = query(&p, "svg.timeline").expect("the timeline");
    let (r, box_) = (svg.get_bounding_client_rect(), tick.get_bounding_client_rect());
    // A click is a PointerEvent in browsers today (and this build has its bindings).
    let init = web_sys::PointerEventInit::new();
    init.set_bubbles(true);
    init.set_client_x((box_.left() + box_.width() / 2.0).round() as i32);
    init.set_client_y((r.bottom() - 2.0).round() as i32);
    let e = web_sys::PointerEvent::new_with_event_init_dict("click", &init).expect("a click");
    tick.dispatch_event(&e).expect("clicked");
    let pp = p.clone();
    wait_until("the cursor moved", move || cursor_ms(&pp) > 0.0).await;
    let now = cursor_ms(&p);
    assert!(
        now <= at_ms + 0.5,
        "the cursor at {now} ms, after the {at_ms} ms clicked"
    );
    click(&p, "button[aria-label='Step forward']");
    let pp = p.clone();
    wait_until("one step on", move || cursor_ms(&pp) != now).await;
    let next = cursor_ms(&p);
    assert!(
        next > at_ms - 0.5,
        "the next event ({next} ms) is not after the {at_ms} ms clicked: the click stopped short"
    );
}

/// The lens over the timeline keeps its height as the cursor moves (#40 item 13: it grew
/// row by row while playing and pushed the timeline down).
#[wasm_bindgen_test]
async fn the_lens_keeps_its_height_as_the_cursor_moves() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/1?scenario=double-charge-no-lock&seed=1&t=0").await;
    let p = panel(&root);
    let height = |p: &Element| {
        query(p, "section.lens")
            .and_then(|l| l.dyn_into::<web_sys::HtmlElement>().ok())
            .map_or(-1, |l| l.offset_height())
    };
    let top = |p: &Element| {
        query(p, "svg.timeline").map_or(f64::NAN, |s| {
            s.get_bounding_client_rect().top() - p.get_bounding_client_rect().top()
        })
    };
    let (h0, t0) = (height(&p), top(&p));
    assert!(h0 > 0, "a lens is drawn");
    let mut seen = Vec::new();
    for _ in 0..8 {
        let before = scrub_index(&p);
        click(&p, "button[aria-label='Step forward']");
        let pp = p.clone();
        wait_until("a step", move || scrub_index(&pp) != before).await;
        TimeoutFuture::new(30).await;
        seen.push((height(&p), top(&p)));
    }
    assert!(
        seen.iter().all(|&(h, t)| h == h0 && (t - t0).abs() < 1.0),
        "the lens was {h0} px and the timeline {t0} px down at the start, then {seen:?}"
    );
}

/// ↑ brings back the last command; the newest reply is scrolled into view.
#[wasm_bindgen_test]
async fn the_console_recalls_lines_and_shows_the_newest_reply() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=0").await;
    let p = panel(&root);
    // The page's own style sheet is not loaded here: give the history its height.
    query(&p, ".console-history")
        .unwrap()
        .set_attribute("style", "display: block; max-height: 5rem; overflow: auto")
        .unwrap();
    for i in 0..10 {
        console(&p, &format!("GET k{i}")).await;
    }
    TimeoutFuture::new(50).await;
    let pre = query(&p, ".console-history").unwrap();
    assert!(pre.scroll_height() > pre.client_height(), "the history overflows");
    assert!(
        pre.scroll_top() + pre.client_height() >= pre.scroll_height() - 2,
        "scrolled to {} of {}",
        pre.scroll_top(),
        pre.scroll_height()
    );
    let input: HtmlInputElement = query(&p, ".console-input").unwrap().dyn_into().unwrap();
    press_key(&input, "ArrowUp");
    TimeoutFuture::new(30).await;
    assert_eq!(input.value(), "GET k9");
    press_key(&input, "ArrowUp");
    TimeoutFuture::new(30).await;
    assert_eq!(input.value(), "GET k8");
    press_key(&input, "ArrowDown");
    TimeoutFuture::new(30).await;
    assert_eq!(input.value(), "GET k9");
    press_key(&input, "ArrowDown");
    TimeoutFuture::new(30).await;
    assert_eq!(input.value(), "");
}

/// The knobs stay open after a rerun; a bad seed is said; the release-script editor
/// says when the scenario's clients do not use the script, and where they do.
#[wasm_bindgen_test]
async fn knobs_stay_open_bad_seeds_are_said_and_unused_scripts_too() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1").await;
    let p = panel(&root);
    query(&p, "details.variant-editor")
        .unwrap()
        .set_attribute("open", "")
        .unwrap();
    let note = text(&p, ".script-unused");
    assert!(
        // The scenario where they do is named by its title, not its id.
        note.contains("plain DEL") && note.contains("“the release in Lua”") && !note.contains("safe-release"),
        "{note}"
    );
    let ttl: HtmlInputElement = query(&p, "input.knob-ttl")
        .expect("a TTL knob")
        .dyn_into()
        .unwrap();
    type_into(&ttl, "20000").await;
    submit_form(&p, "form.knobs");
    let pp = p.clone();
    wait_until("the rerun", move || {
        web_sys::window()
            .unwrap()
            .location()
            .hash()
            .unwrap()
            .contains("ttl=20000")
            && query(&pp, "input.knob-ttl").is_some()
    })
    .await;
    TimeoutFuture::new(50).await;
    let details = query(&p, "details.variant-editor").unwrap();
    assert!(details.has_attribute("open"), "the knobs closed after a rerun");
    let seed: HtmlInputElement = query(&p, ".seed-form input").unwrap().dyn_into().unwrap();
    type_into(&seed, "12abc").await;
    submit_form(&p, ".seed-form");
    let pp = p.clone();
    wait_until("the seed error", move || {
        text(&pp, ".seed-error").contains("“12abc” is not a seed")
    })
    .await;
}

/// The timeline's fold tags (`timeline::fold`), its faint "·" marks (failed attempts)
/// and its arrows.
fn folds(p: &Element) -> Vec<Element> {
    query_all(p, "svg.timeline g.fold")
}

fn faint_marks(p: &Element) -> usize {
    query_all(p, "svg.timeline g.mark.faint").len()
}

fn arrows(p: &Element) -> usize {
    query_all(p, "svg.timeline g.arrow").len()
}

/// #40 item 12: in `safe-release`, C is refused 32 times while B holds the lock. Its
/// first and last tries stay drawn and the 30 between fold into one tag, a button;
/// Enter on it opens them: their marks and messages are drawn, the focus goes to the
/// first of them, and the cursor stays where it was.
#[wasm_bindgen_test]
async fn retries_fold_into_a_tag_that_enter_opens() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=safe-release&seed=1&t=0").await;
    let p = panel(&root);
    let pp = p.clone();
    wait_until("C's retries folded", move || !folds(&pp).is_empty()).await;
    let tags = folds(&p);
    assert_eq!(tags.len(), 1, "one run of retries");
    let tag = tags[0].clone();
    assert_eq!(tag.get_attribute("role").as_deref(), Some("button"));
    assert_eq!(
        tag.get_attribute("aria-label").as_deref(),
        Some("+30 tries by C between 12300 ms and 15390 ms, folded: show them")
    );
    assert_eq!(text(&tag, "text"), "+30 tries");
    assert_eq!(faint_marks(&p), 2, "only C's first and last refusals are drawn");
    let (arrows_folded, at) = (arrows(&p), scrub_index(&p));
    let pos = tag.get_attribute("data-mark").expect("a stop among the marks");
    tag.clone()
        .dyn_into::<web_sys::SvgElement>()
        .expect("an SVG element")
        .focus()
        .expect("focused");
    press_key(&tag, "Enter");
    let pp = p.clone();
    wait_until("the fold opened", move || folds(&pp).is_empty()).await;
    assert_eq!(faint_marks(&p), 32, "every refusal is drawn");
    let more = arrows(&p) - arrows_folded;
    assert!(
        more >= 60,
        "{more} arrows more: 30 SETs and their replies at least"
    );
    assert_eq!(scrub_index(&p), at, "opening a fold does not move the cursor");
    let pp = p.clone();
    wait_until("the focus on the first opened try", move || {
        document().active_element().is_some_and(|e| {
            e.get_attribute("data-mark").as_deref() == Some(pos.as_str()) && pp.contains(Some(&e))
        })
    })
    .await;
    let focused = document().active_element().expect("a focus");
    assert_eq!(focused.get_attribute("class").as_deref(), Some("mark faint"));
}

/// A cursor on an event a fold would hide draws that fold open (nothing the cursor is
/// on is ever hidden); once the cursor leaves it, it folds again.
#[wasm_bindgen_test]
async fn the_cursor_inside_a_fold_opens_it() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=safe-release&seed=1&t=14000").await;
    let p = panel(&root);
    let pp = p.clone();
    // The last event at or before 14 000 ms: one of C's refusals' (12 300 to 15 390 ms).
    wait_until("the cursor from the URL", move || {
        let t = cursor_ms(&pp);
        t > 12300.0 && t <= 14000.0
    })
    .await;
    let pp = p.clone();
    wait_until("the fold the cursor is in drawn open", move || {
        folds(&pp).is_empty()
    })
    .await;
    assert_eq!(faint_marks(&p), 32);
    click(&p, "button[aria-label='Go to start']");
    let pp = p.clone();
    wait_until("the start", move || scrub_index(&pp) == 0).await;
    let pp = p.clone();
    wait_until("the fold closed again", move || folds(&pp).len() == 1).await;
    assert_eq!(faint_marks(&p), 2);
}

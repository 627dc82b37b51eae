//! UI timings in headless Chromium (a measurement, not a test: it asserts only that it
//! ran; the figures go to BENCHMARKS.md). Run with:
//!   bash scripts/web-engine.sh --release   # the engine's worker, as the app ships it
//!   CHROMEDRIVER=/usr/bin/chromedriver cargo test --release --target wasm32-unknown-unknown --test bench_ui -- --nocapture
#![cfg(target_arch = "wasm32")]

use gloo::timers::future::TimeoutFuture;
use lockstep::sim::scenario::parse;
use lockstep::timeline::{build, Model};
use lockstep::ui::scenario::{lens, LensProps, Shared, TimelineSvg};
use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;
use wasm_bindgen_test::*;
use yew::prelude::*;

mod web_common;

wasm_bindgen_test_configure!(run_in_browser);

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The true time shown and the window of the run in view (µs).
type Frame = (u64, (u64, u64));

thread_local! {
    static SETTER: RefCell<Option<Callback<Frame>>> = const { RefCell::new(None) };
}

#[derive(Properties, PartialEq)]
struct BenchProps {
    model: Shared,
}

#[function_component(Bench)]
fn bench(props: &BenchProps) -> Html {
    let state = use_state(|| (0u64, (0u64, props.model.0.end_us)));
    {
        let state = state.clone();
        SETTER.with(|s| *s.borrow_mut() = Some(Callback::from(move |v| state.set(v))));
    }
    // As the panel draws a step: the lens at the cursor's event, then the timeline.
    let cursor = props.model.0.index_at(state.0);
    let lang = lockstep::lesson::content::Lang::En;
    html! {
        <>
            { lens(&LensProps { model: props.model.clone(), cursor, lang }) }
            <TimelineSvg model={props.model.clone()} t_us={state.0} {cursor} view={state.1} on_seek={Callback::noop()} {lang} />
        </>
    }
}

fn big_model() -> Model {
    let mut s = String::from("name = \"bench-ui\"\nend_ms = 60000\n[network]\nlatency_ms = [0.5, 2.0]\n");
    for n in ["A", "B", "C", "D", "E"] {
        let _ = write!(s, "[[nodes]]\nname = \"{n}\"\nservice_ms = 0.1\n");
    }
    for c in 0..3 {
        let _ = write!(
            s,
            "[[clients]]\nname = \"c{c}\"\nalgorithm = \"redlock\"\nnodes = [\"A\", \"B\", \"C\", \"D\", \"E\"]\nttl_ms = 1000\nstart_ms = {}\nretry_delay_ms = [1, 20]\nmax_attempts = 100000\nrepeat = 40\nwork = [\"sleep 5\"]\n",
            c * 3
        );
    }
    let scenario = parse("bench-ui", &s).expect("bench scenario parses");
    build(&scenario, 1).expect("runs")
}

fn p95(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| v[((v.len() as f64 - 1.0) * q).round() as usize];
    (at(0.5), at(0.95))
}

async fn time_updates(updates: &[(u64, (u64, u64))]) -> Vec<f64> {
    let mut out = Vec::new();
    for u in updates {
        let t0 = now();
        SETTER.with(|s| s.borrow().as_ref().map(|cb| cb.emit(*u)));
        // yew renders in microtasks, which all run before this timeout fires; then force
        // layout. The figure is an upper bound: it includes the timer's own delay.
        TimeoutFuture::new(0).await;
        let _ = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.body())
            .map(|b| b.offset_height());
        out.push(now() - t0);
    }
    out
}

#[wasm_bindgen_test]
async fn timeline_step_and_zoom_timings_on_a_10k_event_trace() {
    let t0 = now();
    let model = Rc::new(big_model());
    let build_ms = now() - t0;
    let events = model.trace.len();
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    let _app = yew::Renderer::<Bench>::with_root_and_props(
        root,
        BenchProps {
            model: Shared(model.clone()),
        },
    )
    .render();
    TimeoutFuture::new(50).await;
    let end = model.end_us;
    // 200 single steps through the middle of the run.
    let mid = model.trace.len() / 2;
    let steps: Vec<(u64, (u64, u64))> = (0..200)
        .map(|i| (model.trace[(mid + i).min(model.trace.len() - 1)].t_us, (0, end)))
        .collect();
    let step_ms = time_updates(&steps).await;
    // 100 zoom/pan frames: windows of 2 % to 100 % of the run, sliding.
    let frames: Vec<(u64, (u64, u64))> = (0..100u64)
        .map(|i| {
            let w = end / 50 * (1 + i % 50);
            let a = (end - w) * (i % 10) / 10;
            (end / 2, (a, a + w))
        })
        .collect();
    let zoom_ms = time_updates(&frames).await;
    let (s50, s95) = p95(step_ms);
    let (z50, z95) = p95(zoom_ms);
    web_sys::console::log_1(
        &format!(
            "bench_ui: {events} trace events (model built in {build_ms:.0} ms); step p50 {s50:.2} ms p95 {s95:.2} ms; zoom/pan p50 {z50:.2} ms p95 {z95:.2} ms"
        )
        .into(),
    );
    assert!(events > 5_000, "the trace is big enough to measure: {events}");
}

#[function_component(Hello)]
fn hello() -> Html {
    html! { <p id="hello">{"Hello"}</p> }
}

#[wasm_bindgen_test]
async fn first_render_of_a_section_against_hello_world() {
    // The engine's worker that the app's page names, as the browser tests start it (built
    // by scripts/web-engine.sh): a section's panel waits for its run from there.
    web_common::name_the_engine();
    let doc = web_sys::window().unwrap().document().unwrap();
    let wait_for = |id: &'static str| {
        let doc = doc.clone();
        async move {
            for _ in 0..5000 {
                if doc.query_selector(id).ok().flatten().is_some() {
                    return;
                }
                TimeoutFuture::new(1).await;
            }
        }
    };
    let mut hello_ms = Vec::new();
    let mut section_ms = Vec::new();
    for _ in 0..5 {
        let root = doc.create_element("div").unwrap();
        doc.body().unwrap().append_child(&root).unwrap();
        let t0 = now();
        let h = yew::Renderer::<Hello>::with_root(root.clone()).render();
        wait_for("#hello").await;
        hello_ms.push(now() - t0);
        h.destroy();
        root.remove();

        web_sys::window()
            .unwrap()
            .location()
            .set_hash("#/distributed-locks/3")
            .unwrap();
        let root = doc.create_element("div").unwrap();
        doc.body().unwrap().append_child(&root).unwrap();
        let t0 = now();
        let app = lockstep::ui::mount(root.clone());
        wait_for("section.scenario svg.timeline").await;
        section_ms.push(now() - t0);
        app.destroy();
        root.remove();
    }
    let (h50, _) = p95(hello_ms);
    let (s50, _) = p95(section_ms);
    // Where the section's time goes: loading the built-in lesson (parse every file).
    let mut pack_ms = Vec::new();
    for _ in 0..5 {
        let t0 = now();
        let ok = lockstep::lesson::pack::builtin().is_ok();
        pack_ms.push(now() - t0);
        assert!(ok);
    }
    let (p50, _) = p95(pack_ms);
    // And a section without a scenario, to the first paint of its heading.
    let mut plain_ms = Vec::new();
    for _ in 0..5 {
        web_sys::window()
            .unwrap()
            .location()
            .set_hash("#/distributed-locks/11")
            .unwrap();
        let root = doc.create_element("div").unwrap();
        doc.body().unwrap().append_child(&root).unwrap();
        let t0 = now();
        let app = lockstep::ui::mount(root.clone());
        wait_for("#section-title").await;
        plain_ms.push(now() - t0);
        app.destroy();
        root.remove();
    }
    let (q50, _) = p95(plain_ms);
    // And one scenario panel on its own.
    let mut panel_ms = Vec::new();
    for _ in 0..5 {
        let root = doc.create_element("div").unwrap();
        doc.body().unwrap().append_child(&root).unwrap();
        let t0 = now();
        let app = yew::Renderer::<lockstep::ui::scenario::ScenarioPanel>::with_root_and_props(
            root.clone(),
            lockstep::ui::scenario::ScenarioPanelProps {
                names: vec!["unsafe-del".into()],
                lang: lockstep::lesson::content::Lang::En,
                hold_at_ms: None,
                url_state: false,
            },
        )
        .render();
        wait_for("section.scenario svg.timeline").await;
        panel_ms.push(now() - t0);
        app.destroy();
        root.remove();
    }
    let (r50, _) = p95(panel_ms);
    web_sys::console::log_1(&format!("bench_ui: one scenario panel alone median {r50:.1} ms").into());
    web_sys::console::log_1(&format!("bench_ui: section 11 (no scenario) median {q50:.1} ms").into());
    web_sys::console::log_1(
        &format!("bench_ui: of which loading the built-in lesson: median {p50:.1} ms").into(),
    );
    web_sys::console::log_1(
        &format!("bench_ui: app mount (wasm loaded; the first page itself is prerendered, see e2e/firstload.mjs), hello world median {h50:.1} ms; section 3 with its scenario median {s50:.1} ms; ratio {:.1}×", s50 / h50.max(0.1)).into(),
    );
    assert!(s50 > 0.0);
}

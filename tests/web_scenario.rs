//! Browser tests of the live scenarios: playback, stepping, the cluster view, the
//! console fork, keyboard, and state in the URL.
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

/// The accessible names of the timeline's marks that mention `word`, in time order.
fn marks(p: &Element, word: &str) -> Vec<String> {
    query_all(p, "svg .mark")
        .iter()
        .filter_map(|m| m.get_attribute("aria-label"))
        .filter(|l| l.contains(word))
        .collect()
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
    // The scenario the link names, if it names one, read as the app reads it.
    let named = hash
        .split_once('?')
        .and_then(|(_, query)| lockstep::lesson::route::query_param(query, "scenario"));
    // The panel the tests take (`panel`): the link's scenario, its run drawn and its
    // controls there, no run on its way. (An SVG anywhere was not enough: a fresh-clone
    // run in Firefox once found the panel without its "Go to end" button.)
    wait_until(
        "the scenario panel, drawn, with its controls, not busy",
        move || {
            query(&r, "section.scenario[data-scenario]").is_some_and(|p| {
                !p.has_attribute("aria-busy")
                    && named
                        .as_deref()
                        .is_none_or(|n| p.get_attribute("data-scenario").as_deref() == Some(n))
                    && query(&p, "svg.timeline").is_some()
                    && query(&p, ".controls button").is_some()
            })
        },
    )
    .await;
    (root, app)
}

#[wasm_bindgen_test]
async fn playing_unsafe_del_reaches_the_violation_band_and_log() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3").await;
    let p = panel(&root);
    assert_eq!(p.get_attribute("data-scenario").as_deref(), Some("unsafe-del"));
    // The violation is drawn as a band across the lanes and said in words.
    assert!(query(&p, "svg .band rect").is_some(), "a red band");
    assert!(text(&p, ".violations").contains("both believed they held"));
    // Play at 16× until the end.
    choose(&p, "select[aria-label=Speed]", "16").await;
    click(&p, "button[aria-label=Play]");
    // While it plays, the log does not speak every frame.
    let pp = p.clone();
    wait_until("playing", move || {
        query(&pp, "button[aria-label=Pause]").is_some()
    })
    .await;
    assert_eq!(
        query(&p, "[role=log]")
            .and_then(|l| l.get_attribute("aria-live"))
            .as_deref(),
        Some("off")
    );
    let pp = p.clone();
    wait_until("playback passes 12 300 ms", move || cursor_ms(&pp) > 12_300.0).await;
    let pp = p.clone();
    wait_until("playback stops at the end", move || {
        query(&pp, "button[aria-label=Play]").is_some()
    })
    .await;
    let log = text(&p, "[role=log]");
    assert!(log.contains(" ms · "), "{log}");
    assert_eq!(
        query(&p, "[role=log]")
            .and_then(|l| l.get_attribute("aria-live"))
            .as_deref(),
        Some("polite")
    );
}

#[wasm_bindgen_test]
async fn stepping_back_and_forward_updates_the_cluster_view() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=12300").await;
    let p = panel(&root);
    let pp = p.clone();
    wait_until("the cursor from the URL", move || {
        (cursor_ms(&pp) - 12_300.0).abs() < 5.0
    })
    .await;
    // At 12 300 ms, C has just acquired after A's DEL freed B's key.
    let clients = text(&p, ".cluster-clients");
    assert!(clients.contains("C: holding"), "{clients}");
    let before = cursor_ms(&p);
    click(&p, "button[aria-label='Step back']");
    let pp = p.clone();
    wait_until("step back", move || cursor_ms(&pp) <= before).await;
    let back_events = text(&p, ".cursor-time");
    click(&p, "button[aria-label='Step forward']");
    let pp = p.clone();
    wait_until("step forward", move || text(&pp, ".cursor-time") != back_events).await;
    click(&p, "button[aria-label='Go to start']");
    let pp = p.clone();
    wait_until("back at the start", move || cursor_ms(&pp) == 0.0).await;
    let start = text(&p, ".cluster-clients");
    assert!(!start.contains("holding"), "nobody holds at the start: {start}");
    // Keyboard inside the panel: → steps, End goes to the end.
    let key = |k: &str| {
        let init = web_sys::KeyboardEventInit::new();
        init.set_key(k);
        init.set_bubbles(true);
        let e = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
        query(&p, ".cursor-time").unwrap().dispatch_event(&e).unwrap();
    };
    key("End");
    let pp = p.clone();
    wait_until("End goes to the end", move || cursor_ms(&pp) > 20_000.0).await;
}

#[wasm_bindgen_test]
async fn the_console_runs_a_command_on_the_node_and_forks() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=0").await;
    let p = panel(&root);
    let input: HtmlInputElement = query(&p, ".console-input")
        .expect("a console")
        .dyn_into()
        .unwrap();
    let label = input
        .parent_element()
        .and_then(|l| l.text_content())
        .unwrap_or_default();
    assert!(label.contains("Redis command"), "{label}");
    type_into(&input, "SET lock:x t NX PX 1000").await;
    submit_form(&p, ".console-form");
    let pp = p.clone();
    wait_until("the reply", move || text(&pp, ".console-history").contains("OK")).await;
    assert!(text(&p, ".console-history").contains("SET lock:x t NX PX 1000"));
    // The run is now a fork, which can be undone.
    assert!(query(&p, "button.undo-fork").is_some());
    // And the node's own lock key is refused a second time with NX.
    type_into(&input, "SET lock:x u NX PX 1000").await;
    submit_form(&p, ".console-form");
    let pp = p.clone();
    wait_until("the (nil) reply", move || {
        text(&pp, ".console-history").contains("(nil)")
    })
    .await;
    click(&p, "button.undo-fork");
    let pp = p.clone();
    wait_until("the fork is undone", move || {
        query(&pp, "button.undo-fork").is_none()
    })
    .await;
}

#[wasm_bindgen_test]
async fn a_new_seed_is_shown_and_goes_into_the_url() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/7?scenario=redlock-contention&seed=5&t=0").await;
    let p = panel(&root);
    assert_eq!(
        p.get_attribute("data-scenario").as_deref(),
        Some("redlock-contention")
    );
    assert!(text(&p, ".seed").contains("Seed 5"));
    let input: HtmlInputElement = query(&p, ".seed-form input").unwrap().dyn_into().unwrap();
    type_into(&input, "42").await;
    submit_form(&p, ".seed-form");
    let pp = p.clone();
    wait_until("seed 42", move || text(&pp, ".seed").contains("Seed 42")).await;
    let hash = web_sys::window().unwrap().location().hash().unwrap();
    let pp = p.clone();
    wait_until("the URL holds the seed", move || {
        web_sys::window()
            .unwrap()
            .location()
            .hash()
            .unwrap()
            .contains("seed=42")
            && pp.is_connected()
    })
    .await;
    assert!(hash.starts_with("#/distributed-locks/7"), "{hash}");
}

#[wasm_bindgen_test]
async fn injecting_a_crash_forks_the_timeline() {
    let _x = Exclusive::acquire().await;
    // The last event before 5 000 ms is A's pause at 100 ms: the cursor lands there.
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=5000").await;
    let p = panel(&root);
    let pp = p.clone();
    wait_until("the cursor from the URL", move || {
        (50.0..=5_000.0).contains(&cursor_ms(&pp))
    })
    .await;
    let crash_marks = |p: &Element| marks(p, "crash").len();
    assert_eq!(crash_marks(&p), 0);
    let bands_before = query_all(&p, "svg .band").len();
    // The default fault is "Crash a node" on the only node.
    submit_form(&p, ".fault-form");
    let pp = p.clone();
    wait_until("a crash mark on the timeline", move || crash_marks(&pp) == 1).await;
    assert!(query(&p, "button.undo-fork").is_some());
    // One change, said in words: no "change(s)".
    assert_eq!(text(&p, "button.undo-fork"), "Undo fork (1 change)");
    // With its only node down from the cursor on, nobody can take the lock again.
    let bands_after = query_all(&p, "svg .band").len();
    assert!(bands_after < bands_before, "{bands_before} → {bands_after}");
    click(&p, "button.undo-fork");
    let pp = p.clone();
    wait_until("the original run is back", move || crash_marks(&pp) == 0).await;
}

#[wasm_bindgen_test]
async fn editing_the_release_script_changes_the_outcome_and_bad_lua_is_refused() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=safe-release&seed=1&t=0").await;
    let p = panel(&root);
    let violations = |p: &Element| query_all(p, ".violations li.violation-text").len();
    let before = violations(&p);
    let area: web_sys::HtmlTextAreaElement = query(&p, "textarea.lua")
        .expect("a script editor")
        .dyn_into()
        .unwrap();
    assert_eq!(area.get_attribute("aria-label").as_deref(), Some("Lua script"));
    // A script that does not compile is refused at its line; the run is unchanged.
    type_into(&area, "local ok = 1\nif ok then\n  return (\nend").await;
    submit_form(&p, ".script-editor");
    let pp = p.clone();
    wait_until("the compile error", move || {
        !text(&pp, ".script-error").is_empty()
    })
    .await;
    assert!(text(&p, ".script-error").contains("previous script"));
    assert_eq!(violations(&p), before);
    // Drop the token check: A's late release deletes B's key again and C gets in.
    type_into(&area, "return redis.call('del', KEYS[1])").await;
    submit_form(&p, ".script-editor");
    let pp = p.clone();
    wait_until("more violations with the broken script", move || {
        violations(&pp) > before
    })
    .await;
    assert!(text(&p, ".script-error").is_empty());
}

#[wasm_bindgen_test]
async fn can_this_break_explores_and_loads_the_smallest_counterexample() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=0").await;
    let p = panel(&root);
    click(&p, "button.explore-start");
    let pp = p.clone();
    wait_until("progress is shown", move || {
        query(&pp, "progress").is_some() || query(&pp, ".explore-result").is_some()
    })
    .await;
    let pp = p.clone();
    wait_long("the exploration finishes", move || {
        query(&pp, "button.explore-load").is_some()
    })
    .await;
    let result = text(&p, ".explore-result");
    assert!(result.contains("of 200 trials broke"), "{result}");
    // unsafe-del breaks even without faults; random faults only sometimes prevent it.
    let broke: u32 = result
        .split(" of ")
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(broke > 0, "{result}");
    assert!(result.contains("Smallest: seed"), "{result}");
    let seed_before = text(&p, ".seed");
    click(&p, "button.explore-load");
    let pp = p.clone();
    wait_until("the counterexample's seed is loaded", move || {
        text(&pp, ".seed") != seed_before
    })
    .await;
}

#[wasm_bindgen_test]
async fn broken_and_fixed_side_by_side_on_the_same_seed() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=12300").await;
    let p = panel(&root);
    let toggle: HtmlInputElement = query(&p, ".compare-toggle input")
        .expect("a compare toggle")
        .dyn_into()
        .unwrap();
    // Named by its title, not its id.
    assert!(
        text(&p, ".compare-toggle").contains("“the release in Lua”"),
        "{}",
        text(&p, ".compare-toggle")
    );
    toggle.click();
    let pp = p.clone();
    wait_until("a second timeline", move || {
        query_all(&pp, "svg.timeline").len() == 2
    })
    .await;
    assert_eq!(text(&p, ".compare h3"), "the release in Lua");
    // Both cursors stand at the same true time.
    let cursors: Vec<String> = query_all(&p, "svg.timeline line.cursor")
        .iter()
        .filter_map(|l| l.get_attribute("x1"))
        .collect();
    assert_eq!(cursors.len(), 2);
    // The fixed run has fewer violations than the broken one.
    let broken = query_all(&p, ":scope > .violations li.violation-text").len();
    let fixed = query_all(&p, ".compare .violations li.violation-text").len();
    assert!(fixed < broken, "{fixed} vs {broken}");
}

#[wasm_bindgen_test]
async fn knobs_and_faults_travel_in_the_link() {
    let _x = Exclusive::acquire().await;
    // A TTL longer than A's pause: the shared link shows a run without overlap.
    let (root, app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=0&ttl=30000").await;
    let p = panel(&root);
    assert!(
        query(&p, ".violations li.violation-text").is_none(),
        "{}",
        text(&p, ".violations")
    );
    app.unmount();

    // A crash injected at the cursor is written into the link, and the link brings it back.
    let (root, app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=5000").await;
    let p = panel(&root);
    submit_form(&p, ".fault-form");
    let hash = || web_sys::window().unwrap().location().hash().unwrap();
    wait_until("the link holds the fault", move || hash().contains("faults=")).await;
    let link = hash();
    app.unmount();
    let root = new_root();
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the panel again", move || {
        query(&r, "section.scenario svg.timeline").is_some()
    })
    .await;
    assert_eq!(hash(), link);
    let p = panel(&root);
    let crash = !marks(&p, "crash").is_empty();
    assert!(crash, "the crash came back from the link");
    assert!(query(&p, "button.undo-fork").is_some());
}

/// The number of lanes the timeline says it draws.
fn lanes(p: &Element) -> usize {
    query(p, "svg.timeline")
        .and_then(|s| s.get_attribute("aria-label"))
        .and_then(|l| l.split(" lanes").next()?.rsplit(' ').next()?.parse().ok())
        .unwrap_or(0)
}

#[wasm_bindgen_test]
async fn the_ttl_tradeoff_table_compares_seven_ttls_and_picks_one() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/4?scenario=ttl-workers&seed=1").await;
    let p = panel(&root);
    let pp = p.clone();
    wait_long("the trade-off table", move || {
        query_all(&pp, ".tradeoff-table tbody tr").len() == 7
    })
    .await;
    let rows = query_all(&p, ".tradeoff-table tbody tr");
    let heads: Vec<String> = query_all(&p, ".tradeoff-table thead th")
        .iter()
        .map(|h| h.text_content().unwrap_or_default())
        .collect();
    assert_eq!(heads[1..3], ["Overlaps", "Stale writes"], "{heads:?}");
    let count = |r: &Element, sel: &str| -> usize { text(r, sel).trim().parse().expect("a count") };
    assert_eq!(text(&rows[0], "th"), "300");
    assert!(
        count(&rows[0], "td.overlaps") > 10,
        "TTL 300: {}",
        rows[0].text_content().unwrap_or_default()
    );
    // The stale writes at TTL 300 are the stale writes the checker finds in the same
    // run at TTL 300, computed here on its own.
    let mut at_300 = lockstep::sim::scenario::builtin("ttl-workers")
        .expect("built-in")
        .expect("valid");
    for c in &mut at_300.clients {
        c.ttl_ms = 300.0;
    }
    let run = lockstep::sim::run(&at_300, 1, lockstep::sim::TraceLevel::Semantic).expect("runs");
    let stale_300 = run
        .outcome
        .violations
        .iter()
        .filter(|v| v.kind == lockstep::sim::ViolationKind::StaleWrite)
        .count();
    assert!(stale_300 > 0, "short TTLs write stale");
    assert_eq!(count(&rows[0], "td.stale-writes"), stale_300);
    for sel in ["td.overlaps", "td.stale-writes"] {
        assert_eq!(
            count(&rows[6], sel),
            0,
            "TTL 30 000, {sel}: {}",
            rows[6].text_content().unwrap_or_default()
        );
    }
    assert!(rows[6].text_content().unwrap_or_default().contains("ms"));
    click(&p, "button[aria-label='Show TTL 30000 ms']");
    let pp = p.clone();
    wait_long("the panel reruns at TTL 30 000", move || {
        query(&pp, ".ttl-slider input")
            .and_then(|s| s.get_attribute("aria-valuetext"))
            .as_deref()
            == Some("TTL 30000 ms")
    })
    .await;
    let pp = p.clone();
    wait_long("the table marks the row shown", move || {
        text(&pp, ".tradeoff-table tr.current th") == "30000"
    })
    .await;
    // The panel's run at TTL 30 000 comes from the engine's worker: the busy mark goes.
    let pp = p.clone();
    wait_long("the run at TTL 30 000 says it has no violation", move || {
        text(&pp, ".violations").contains("No violation")
    })
    .await;
    assert!(
        query(&p, ".violations li.violation-text").is_none()
            && text(&p, ".violations").contains("No violation"),
        "no overlap at TTL 30 000: {}",
        text(&p, ".violations")
    );
    let hash = web_sys::window().unwrap().location().hash().unwrap();
    assert!(hash.contains("ttl=30000"), "{hash}");
}

#[wasm_bindgen_test]
async fn the_n_knob_reruns_redlock_with_fewer_masters() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/7?scenario=redlock-baseline&seed=1").await;
    let p = panel(&root);
    let before = lanes(&p);
    assert!(before >= 6, "five masters and the clients: {before}");
    let n: HtmlInputElement = query(&p, "input.knob-n").expect("an N knob").dyn_into().unwrap();
    assert_eq!(n.value(), "5");
    type_into(&n, "3").await;
    submit_form(&p, "form.knobs");
    let pp = p.clone();
    wait_until("two lanes fewer", move || lanes(&pp) == before - 2).await;
    let hash = web_sys::window().unwrap().location().hash().unwrap();
    assert!(hash.contains("n=3"), "{hash}");
    // Out of range is refused with a message, and the run stays.
    let n: HtmlInputElement = query(&p, "input.knob-n").expect("an N knob").dyn_into().unwrap();
    type_into(&n, "12").await;
    submit_form(&p, "form.knobs");
    let pp = p.clone();
    wait_until("the knob error", move || {
        text(&pp, "form.knobs [role=alert]").contains("N (masters, 1–7) must be a number from 1 to")
    })
    .await;
    assert_eq!(lanes(&p), before - 2);
}

/// The scenarios each section's own panel offers, from its Markdown.
fn section_scenarios() -> Vec<(u32, String, Vec<String>)> {
    use lockstep::lesson::markdown::{parse, scenario_blocks};
    let lesson = lockstep::lesson::content::builtin(lockstep::lesson::content::Lang::En).expect("lesson");
    lesson
        .sections
        .iter()
        .filter_map(|s| {
            let names = scenario_blocks(&parse(&s.body));
            (!names.is_empty()).then(|| (s.order, s.id.clone(), names))
        })
        .collect()
}

#[wasm_bindgen_test]
async fn moving_between_sections_shows_each_sections_own_scenario() {
    let _x = Exclusive::acquire().await;
    let sections = section_scenarios();
    assert!(sections.len() >= 4, "several sections have a scenario");
    let (first, ..) = &sections[0];
    let (root, _app) = open(&format!("#/distributed-locks/{first}")).await;
    // Every section with a scenario after every other, both ways, as the pager and
    // links do it (a hash change, no reload).
    let mut order: Vec<usize> = (0..sections.len()).collect();
    order.extend((0..sections.len()).rev());
    for i in order {
        let (n, id, names) = sections[i].clone();
        web_sys::window()
            .unwrap()
            .location()
            .set_hash(&format!("#/distributed-locks/{n}"))
            .unwrap();
        let r = root.clone();
        let want = id.clone();
        wait_until(&format!("section {n} is shown"), move || {
            query(
                &r,
                &format!("article.section[data-section-id=\"{want}\"] section.scenario svg.timeline"),
            )
            .is_some()
        })
        .await;
        let shown = query(&root, "article.section section.scenario[data-scenario]")
            .and_then(|p| p.get_attribute("data-scenario"))
            .unwrap_or_default();
        assert_eq!(shown, names[0], "section {n} ({id}) shows its own first scenario");
    }
}

/// "event N of M" from the line under the scrub bar.
fn cursor_event(p: &Element) -> String {
    let t = text(p, ".cursor-time");
    t.split(" · ").nth(1).unwrap_or_default().to_string()
}

#[wasm_bindgen_test]
async fn a_link_restores_the_exact_event_even_within_one_millisecond() {
    let _x = Exclusive::acquire().await;
    let (root, app) = open("#/distributed-locks/7?scenario=redlock-baseline&seed=1").await;
    let p = panel(&root);
    // Redlock's first requests all go out in the first millisecond.
    for _ in 0..6 {
        click(&p, "button[aria-label='Step forward']");
        TimeoutFuture::new(30).await;
    }
    let pp = p.clone();
    wait_until("the seventh event", move || {
        cursor_event(&pp).starts_with("event 7 of")
    })
    .await;
    assert!(
        cursor_ms(&p) < 1.0,
        "still in the first millisecond: {}",
        cursor_ms(&p)
    );
    let hash = web_sys::window().unwrap().location().hash().unwrap();
    assert!(hash.contains("&t=0&e=6"), "{hash}");
    let seen = cursor_event(&p);
    // Reopening the same link (a reload, or a learner it was sent to).
    app.unmount();
    let (root, app) = open(&hash).await;
    let p = panel(&root);
    let pp = p.clone();
    wait_until("the same event", move || cursor_event(&pp) == seen).await;
    app.unmount();
    // A hand-edited time wins over an event index that is not at that time.
    let (root, _app) = open("#/distributed-locks/7?scenario=redlock-baseline&seed=1&t=5000&e=3").await;
    let p = panel(&root);
    let pp = p.clone();
    // (event 4 is in the first millisecond; the last event at or before 5 000 ms is later)
    wait_until("the cursor at the last event by 5 000 ms", move || {
        let t = cursor_ms(&pp);
        t > 1.0 && t <= 5000.0
    })
    .await;
    assert!(
        !cursor_event(&p).starts_with("event 4 of"),
        "{}",
        cursor_event(&p)
    );
}

#[wasm_bindgen_test]
async fn the_panel_speaks_norwegian_in_the_norwegian_lesson() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/7");
    set_search("?lang=nb");
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the panel", move || {
        query(&r, "section.scenario svg.timeline").is_some()
    })
    .await;
    let p = panel(&root);
    let headings: Vec<String> = query_all(&p, "h3")
        .iter()
        .filter_map(|h| h.text_content())
        .collect();
    assert!(headings.contains(&"Ved markøren".to_string()), "{headings:?}");
    assert!(headings.contains(&"Hendelser".to_string()), "{headings:?}");
    assert!(
        headings.contains(&"Kan dette gå galt?".to_string()),
        "{headings:?}"
    );
    assert!(
        headings.contains(&"Endre kjøringen ved markøren".to_string()),
        "{headings:?}"
    );
    assert_eq!(text(&p, "button.fault-apply"), "Bruk her");
    assert!(
        text(&p, ".cursor-time").contains("hendelse 1 av"),
        "{}",
        text(&p, ".cursor-time")
    );
    assert!(
        text(&p, ".cluster-nodes").contains("oppe"),
        "{}",
        text(&p, ".cluster-nodes")
    );
    // The icon buttons are named in Norwegian too (issue #20).
    assert!(query(&p, "button[aria-label='Spill av']").is_some());
    assert!(query(&p, "button[aria-label='Ett steg fram']").is_some());
    // The timeline and the event log speak it too (screen readers read the log).
    let svg_label = query(&p, "svg.timeline")
        .and_then(|s| s.get_attribute("aria-label"))
        .unwrap_or_default();
    assert!(svg_label.starts_with("Tidslinje for"), "{svg_label}");
    click(&p, "button[aria-label='Gå til slutten']");
    let pp = p.clone();
    wait_until("the last event in the log", move || {
        text(&pp, "[role=log]").contains("kjøringen er slutt")
    })
    .await;
    let log = text(&p, "[role=log]");
    assert!(!log.contains("the run ends"), "{log}");
    // So do the scenario's description and the knobs editor.
    let desc = text(&p, ".scenario-desc");
    assert!(desc.starts_with("Redlock på 5 mastere"), "{desc}");
    assert_eq!(
        text(&p, "details.variant-editor summary"),
        "Endre innstillingene eller Lua-skriptene"
    );
    assert!(text(&p, "form.knobs").contains("Driftfaktor"));
    // A Norwegian learner writes a decimal comma: 0,02 is read as 0.02 (crate::decimal)
    // and the run is made with it; out of range, the bound is said with a comma too.
    type_and_submit(&p, "input.knob-drift", "0,02", "form.knobs").await;
    wait_until("drift 0.02 in the link", || current_hash().contains("drift=0.02")).await;
    type_and_submit(&p, "input.knob-drift", "0,9", "form.knobs").await;
    let pp = p.clone();
    wait_until("the knob error", move || {
        text(&pp, "form.knobs [role=alert]").contains("fra 0 til 0,5")
    })
    .await;
    assert!(current_hash().contains("drift=0.02"), "{}", current_hash());
    reset_search();
}

/// A touch pointer event of `kind` for finger `id` at `x` pixels across `target`.
fn touch(target: &Element, kind: &str, id: i32, x: f64) {
    let r = target.get_bounding_client_rect();
    let init = web_sys::PointerEventInit::new();
    init.set_pointer_id(id);
    init.set_pointer_type("touch");
    init.set_is_primary(id == 1);
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_client_x((r.left() + x) as i32);
    init.set_client_y((r.top() + r.height() / 2.0) as i32);
    let e = web_sys::PointerEvent::new_with_event_init_dict(kind, &init).expect("a pointer event");
    target.dispatch_event(&e).expect("dispatched");
}

#[wasm_bindgen_test]
async fn two_fingers_pinch_the_timeline_and_one_finger_pans_it() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/3");
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the panel", move || {
        query(&r, "section.scenario svg.timeline").is_some()
    })
    .await;
    let p = panel(&root);
    let wrap = query(&p, ".timeline-wrap").expect("the timeline's wrap");
    let w = wrap.get_bounding_client_rect().width();
    let ticks = |p: &Element| text(p, "svg.timeline");
    let pan_left_disabled = |p: &Element| {
        query(p, "button[aria-label='Pan left']")
            .expect("a pan button")
            .has_attribute("disabled")
    };
    assert!(pan_left_disabled(&p), "the whole run is shown at first");
    let before = ticks(&p);
    // Two fingers 10 % of the width apart spread to 50 %: zoom in about five times.
    touch(&wrap, "pointerdown", 1, w * 0.55);
    touch(&wrap, "pointerdown", 2, w * 0.65);
    for step in 1..=4 {
        let d = w * 0.05 * step as f64;
        touch(&wrap, "pointermove", 1, w * 0.55 - d);
        touch(&wrap, "pointermove", 2, w * 0.65 + d);
        TimeoutFuture::new(20).await;
    }
    touch(&wrap, "pointerup", 1, w * 0.35);
    touch(&wrap, "pointerup", 2, w * 0.85);
    let pp = p.clone();
    wait_until("the view to zoom in", move || !pan_left_disabled(&pp)).await;
    let zoomed = ticks(&p);
    assert_ne!(zoomed, before, "the axis shows a narrower window");
    // One finger dragged to the left moves the view later in the run.
    touch(&wrap, "pointerdown", 3, w * 0.6);
    touch(&wrap, "pointermove", 3, w * 0.45);
    TimeoutFuture::new(20).await;
    touch(&wrap, "pointermove", 3, w * 0.3);
    touch(&wrap, "pointerup", 3, w * 0.3);
    let (pp, z) = (p.clone(), zoomed.clone());
    wait_until("the view to pan", move || ticks(&pp) != z).await;
    // A mouse is left alone: it clicks marks and selects text, as before.
    TimeoutFuture::new(50).await;
    let panned = ticks(&p);
    let init = web_sys::PointerEventInit::new();
    init.set_pointer_type("mouse");
    init.set_bubbles(true);
    for kind in ["pointerdown", "pointermove", "pointerup"] {
        let e = web_sys::PointerEvent::new_with_event_init_dict(kind, &init).expect("a pointer event");
        wrap.dispatch_event(&e).expect("dispatched");
    }
    TimeoutFuture::new(50).await;
    assert_eq!(ticks(&p), panned);
}

/// Picks `value` in the `<select>` matching `selector` inside `root`, as a learner would.
async fn choose(root: &Element, selector: &str, value: &str) {
    let s: HtmlSelectElement = query(root, selector)
        .unwrap_or_else(|| panic!("no select {selector}"))
        .dyn_into()
        .unwrap();
    s.set_value(value);
    s.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
    TimeoutFuture::new(30).await;
}

#[wasm_bindgen_test]
async fn persistence_knob_drift_and_delayed_restart_faults() {
    let _x = Exclusive::acquire().await;
    // §7's crash-restart: C restarts empty and C2 gets a majority while C1 holds.
    let (root, _app) = open("#/distributed-locks/7?scenario=redlock-crash-restart&seed=1&t=0").await;
    let p = panel(&root);
    assert!(
        query(&p, ".violations li.violation-text").is_some(),
        "the unsafe run"
    );
    // With fsync on every write the restarted node keeps C1's key: no violation.
    choose(&p, "select.knob-aof", "always").await;
    submit_form(&p, "form.knobs");
    let pp = p.clone();
    wait_until("the safe rerun", move || {
        text(&pp, ".violations").contains("No violation") && !marks(&pp, "restart (aof-always").is_empty()
    })
    .await;
    assert!(
        web_sys::window()
            .unwrap()
            .location()
            .hash()
            .unwrap()
            .contains("aof=always"),
        "the knob goes into the link"
    );
    // A node's clock made to drift 2 % fast, at the cursor: the run forks with a mark.
    choose(&p, "select.fault-kind", "drift").await;
    type_and_submit(&p, "input.fault-pct", "2", ".fault-form").await;
    let pp = p.clone();
    wait_until("a drift mark", move || marks(&pp, "drift +2.0 %").len() == 1).await;
    // Crash a node and bring it back 3 s later, in one step.
    choose(&p, "select.fault-kind", "crash-restart").await;
    type_and_submit(&p, "input.fault-amount", "3000", ".fault-form").await;
    let pp = p.clone();
    wait_until("a crash and a restart", move || {
        marks(&pp, "crash").len() == 1 && marks(&pp, "restart").len() == 1
    })
    .await;
    // Slow one client's link to a node: the log says so and the link carries it.
    choose(&p, "select.fault-kind", "latency").await;
    type_and_submit(&p, "input.fault-amount", "40", ".fault-form").await;
    let hash = || web_sys::window().unwrap().location().hash().unwrap();
    wait_until("the latency in the link", move || hash().contains(":40000:40000")).await;
    // Nonsense is refused with a message, and the run stays as it was.
    choose(&p, "select.fault-kind", "drift").await;
    type_and_submit(&p, "input.fault-pct", "90", ".fault-form").await;
    TimeoutFuture::new(50).await;
    assert!(text(&p, ".fault-form [role=alert]").contains("drift from −50 to 50 %"));
    assert_eq!(marks(&p, "drift").len(), 1);
}

#[wasm_bindgen_test]
async fn the_library_knobs_move_the_abort() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/8?scenario=using-abort-latency&seed=1&t=0").await;
    let p = panel(&root);
    let aborted_at = |p: &Element| marks(p, "abort signal").into_iter().next().unwrap_or_default();
    let before = aborted_at(&p);
    assert!(!before.is_empty(), "the abort is on the timeline");
    for (class, value) in [("input.knob-jitter", "100"), ("input.knob-threshold", "500")] {
        let i: HtmlInputElement = query(&p, class)
            .unwrap_or_else(|| panic!("no {class}"))
            .dyn_into()
            .unwrap();
        assert_eq!(i.value(), value, "{class} shows the library's default");
    }
    // No retries: the failing extension gives up, and the abort fires, sooner.
    let retries: HtmlInputElement = query(&p, "input.knob-retries")
        .expect("a retries knob")
        .dyn_into()
        .unwrap();
    type_into(&retries, "0").await;
    submit_form(&p, "form.knobs");
    let (pp, b) = (p.clone(), before.clone());
    wait_until("the abort moves", move || {
        let now = aborted_at(&pp);
        !now.is_empty() && now != b
    })
    .await;
    let ms = |label: &str| -> f64 {
        label
            .split(" ms")
            .next()
            .unwrap_or("")
            .parse()
            .unwrap_or(f64::NAN)
    };
    assert!(
        ms(&aborted_at(&p)) < ms(&before),
        "{} vs {before}",
        aborted_at(&p)
    );
    assert!(web_sys::window()
        .unwrap()
        .location()
        .hash()
        .unwrap()
        .contains("retries=0"));
}

/// §1 promises two charges: the page says so, and shows the clients working without a
/// lock, not "acquiring" one (issue #20).
#[wasm_bindgen_test]
async fn double_charge_without_a_lock_says_two_charges_and_shows_working_clients() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/1?scenario=double-charge-no-lock&seed=1&t=20").await;
    let p = panel(&root);
    let v = text(&p, ".violations");
    assert!(
        v.contains("charge 42 happened twice: the resource accepted it from A and B"),
        "{v}"
    );
    let clients = text(&p, ".cluster-clients");
    assert!(
        clients.contains("A: working, no lock") && clients.contains("B: working, no lock"),
        "{clients}"
    );
    assert!(!clients.contains("acquiring"), "{clients}");
    // The story so far: both read paid = false.
    let story = text(&p, "ol.story");
    assert!(
        story.contains("A reads paid = false") && story.contains("B reads paid = false"),
        "{story}"
    );
}

/// The event log tells what matters first: whose key expired, whose DEL removed whose
/// key; the mechanics stay below, with the key events standing out (issue #20).
#[wasm_bindgen_test]
async fn the_story_tells_the_expiry_and_the_del_that_removed_another_clients_key() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1&t=12300").await;
    let p = panel(&root);
    let story: Vec<String> = query_all(&p, "ol.story li")
        .iter()
        .filter_map(|l| l.text_content())
        .collect();
    let at = |s: &str| story.iter().position(|l| l.contains(s));
    let expired = at("A's key lock expires on redis");
    let removed = at("A's DEL removes B's key lock on redis");
    assert!(expired.is_some() && removed.is_some(), "{story:#?}");
    assert!(expired < removed, "{story:#?}");
    assert!(story.iter().all(|l| !l.contains(" sends ")), "{story:#?}");
    // The mechanics log is still there, with the story's events in bold.
    assert!(query(&p, ".event-log li").is_some());
    assert!(query(&p, ".event-log li.ev-key strong").is_some());
}

/// "Can this break?" on the fencing scenario does not call its own run broken: the
/// overlap is absorbed by the resource, and what broke is named per property (#20).
#[wasm_bindgen_test]
async fn can_this_break_on_fencing_names_what_broke_and_absorbs_the_overlap() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/9?scenario=fencing&seed=1&t=0").await;
    let p = panel(&root);
    click(&p, "button.explore-start");
    let pp = p.clone();
    wait_long("the exploration finishes", move || {
        query(&pp, ".explore-result").is_some() && query(&pp, "button.explore-start").is_some()
    })
    .await;
    let result = text(&p, ".explore-result");
    assert!(result.contains("of 200 trials broke"), "{result}");
    assert!(!result.contains("no fault at all"), "{result}");
    assert!(
        query(&p, ".explore-properties li[data-property=overlap]").is_none(),
        "{}",
        text(&p, ".explore-properties")
    );
    let absorbed = text(&p, ".explore-properties li[data-property=absorbed]");
    assert!(absorbed.contains("the resource protected its data"), "{absorbed}");
    for li in query_all(&p, ".explore-properties li[data-property]") {
        let t = li.text_content().unwrap_or_default();
        if li.get_attribute("data-property").as_deref() != Some("absorbed") {
            assert!(t.contains(": broken in "), "{t}");
        }
    }
    if query(&p, "button.explore-load").is_some() {
        assert!(result.contains("What broke: "), "{result}");
    }
}

#[wasm_bindgen_test]
async fn a_caption_tells_each_key_moment_and_a_step_by_step_line_moves_the_cursor_there() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/3").await;
    let p = panel(&root);
    let Some(Ok(s)) = lockstep::sim::scenario::builtin("unsafe-del") else {
        panic!("unsafe-del")
    };
    let caption = |p: &Element| text(p, ".caption").trim().to_string();
    // A polite live region, empty before the first key moment (A taking the lock).
    assert_eq!(
        query(&p, ".caption")
            .and_then(|c| c.get_attribute("aria-live"))
            .as_deref(),
        Some("polite")
    );
    assert_eq!(caption(&p), "", "at the start");
    // Step forward until the first caption shows: it is A's, at the moment the
    // cluster view first shows A holding the lock.
    for _ in 0..12 {
        if !caption(&p).is_empty() {
            break;
        }
        let before = text(&p, ".cursor-time");
        click(&p, "button[aria-label='Step forward']");
        let pp = p.clone();
        wait_until("a step", move || text(&pp, ".cursor-time") != before).await;
    }
    assert_eq!(caption(&p), s.captions[0].en);
    assert!(
        text(&p, ".cluster-clients").contains("A: holding"),
        "{}",
        text(&p, ".cluster-clients")
    );
    // The step-by-step list's line "At 10 500, B asks for the lock" is a link to that
    // moment: following it moves the cursor there, and the caption is B's.
    let link = query(&root, "a[href$='scenario=unsafe-del&seed=1&t=10500']").expect("the step's link");
    link.dyn_ref::<web_sys::HtmlElement>().expect("a link").click();
    let r = root.clone();
    wait_until("the cursor at 10 500 ms", move || {
        (cursor_ms(&panel(&r)) - 10_500.0).abs() < 1.0
    })
    .await;
    let pp = panel(&root);
    let want = s.captions[2].en.clone();
    wait_until("B's caption", move || caption(&pp) == want).await;
    assert!(text(&panel(&root), ".cluster-clients").contains("B: holding"));
    // At the end the last moment's caption stays: C took the lock while B worked.
    click(&panel(&root), "button[aria-label='Go to end']");
    let pp = panel(&root);
    let want = s.captions[4].en.clone();
    wait_until("C's caption at the end", move || caption(&pp) == want).await;
}

#[wasm_bindgen_test]
async fn the_timeline_is_drawn_one_to_one_so_its_smallest_type_is_12px() {
    let _x = Exclusive::acquire().await;
    // The app's own stylesheet, so computed sizes are the ones a learner gets.
    let doc = document();
    let style = doc.create_element("style").expect("style");
    style.set_text_content(Some(include_str!("../static/style.css")));
    doc.head().expect("head").append_child(&style).expect("append");
    let (root, _app) = open("#/distributed-locks/7").await;
    let p = panel(&root);
    let window = web_sys::window().expect("window");
    // A desktop's wide panel, then a phone's 360 px: the drawing is laid out at the
    // panel's width (at least 640 px, scrolled sideways on a phone), one viewBox unit
    // per CSS pixel.
    for panel_px in [1100.0, 360.0] {
        p.set_attribute("style", &format!("width: {panel_px}px; margin: 0"))
            .expect("style");
        let pp = p.clone();
        wait_until("the drawing laid out at its box's width", move || {
            let boxed = query(&pp, ".timeline-box").map_or(0.0, |b| f64::from(b.client_width()));
            let drawn = query(&pp, "svg.timeline")
                .and_then(|s| s.get_attribute("width"))
                .and_then(|w| w.parse::<f64>().ok());
            boxed > panel_px - 40.0 && boxed <= panel_px && drawn == Some(boxed.max(640.0))
        })
        .await;
        let svg = query(&p, "svg.timeline").expect("svg");
        let view_w: f64 = svg
            .get_attribute("viewBox")
            .and_then(|v| v.split(' ').nth(2).and_then(|w| w.parse().ok()))
            .expect("viewBox");
        let shown = svg.get_bounding_client_rect().width();
        assert!(
            (shown - view_w).abs() < 0.5,
            "drawn {view_w} units across {shown} px"
        );
        let mut smallest = f64::MAX;
        for t in query_all(&svg, "text") {
            // getComputedStyle(t).fontSize, through js_sys (web-sys's needs a feature).
            let computed = js_sys::Reflect::get(&window, &"getComputedStyle".into())
                .ok()
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                .and_then(|f| f.call1(&window, &t).ok())
                .expect("a computed style");
            let size = js_sys::Reflect::get(&computed, &"fontSize".into())
                .ok()
                .and_then(|v| v.as_string())
                .and_then(|s| s.trim_end_matches("px").parse::<f64>().ok())
                .expect("a font size");
            smallest = smallest.min(size);
        }
        assert!(
            smallest >= 12.0,
            "at {panel_px} px the smallest type is {smallest} px"
        );
        // The lane labels, names of all five masters and both clients, are all there.
        assert!(query_all(&svg, "text.lane-label").len() >= 7);
    }
    // On the phone the drawing scrolls sideways, and it keeps the cursor in sight.
    click(&p, "button[aria-label='Go to end']");
    let pp = p.clone();
    wait_until("the cursor in sight at the end", move || {
        let (Some(wrap), Some(cursor)) = (
            query(&pp, ".timeline-wrap"),
            query(&pp, "svg.timeline line.cursor"),
        ) else {
            return false;
        };
        let x: f64 = cursor
            .get_attribute("x1")
            .and_then(|x| x.parse().ok())
            .unwrap_or(-1.0);
        let left = f64::from(wrap.scroll_left());
        left > 0.0 && x >= left && x <= left + f64::from(wrap.client_width())
    })
    .await;
    style.remove();
}

#[wasm_bindgen_test]
async fn with_three_of_five_masters_crashed_the_tally_reads_2_of_5_and_every_node_is_listed() {
    let _x = Exclusive::acquire().await;
    use lockstep::sim::Fault;
    let s = lockstep::sim::scenario::builtin("redlock-baseline")
        .expect("built-in")
        .expect("parses");
    let names: Vec<String> = s.nodes.iter().map(|n| n.name.clone()).collect();
    assert_eq!(names, ["A", "B", "C", "D", "E"]);
    // Masters A, B and C crash before C1's SETs arrive (pids follow the file's order).
    let crashes: Vec<(u64, Fault)> = (0..3).map(|pid| (0, Fault::Crash(pid))).collect();
    let faults = lockstep::timeline::link::encode_faults(&crashes);
    let (root, _app) = open(&format!(
        "#/distributed-locks/7?scenario=redlock-baseline&seed=1&faults={faults}"
    ))
    .await;
    let p = panel(&root);
    click(&p, "button[aria-label='Go to end']");
    let pp = p.clone();
    wait_until("C1's tally in the cluster view", move || {
        text(&pp, ".cluster-clients").contains("2/5 OK")
    })
    .await;
    let clients = text(&p, ".cluster-clients");
    assert!(clients.contains("2/5 OK: no majority → failed"), "{clients}");
    // On the picture too, over C1's lane.
    let on_picture: Vec<String> = query_all(&p, "svg .tally.failed text")
        .iter()
        .filter_map(|t| t.text_content())
        .collect();
    assert!(on_picture.iter().any(|t| t.starts_with("2/5")), "{on_picture:?}");
    // Every master is listed, the crashed ones as down.
    let nodes: Vec<String> = query_all(&p, ".cluster-nodes li")
        .iter()
        .filter_map(|li| li.text_content())
        .collect();
    assert_eq!(nodes.len(), 5, "{nodes:?}");
    for (i, n) in names.iter().enumerate() {
        let line = nodes
            .iter()
            .find(|l| l.starts_with(&format!("{n}:")))
            .unwrap_or_else(|| panic!("{n} in {nodes:?}"));
        assert_eq!(line.contains("down"), i < 3, "{line}");
    }
}

/// The lens's current row (the newest up to the cursor): its words.
fn lens_now(p: &Element) -> String {
    query(p, ".lens .lens-row.current .lens-text")
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn the_lens_in_section_2_shows_each_set_as_an_arrow_with_its_command_then_its_reply() {
    let _x = Exclusive::acquire().await;
    let (root, _app) = open("#/distributed-locks/2?scenario=double-charge-redis-lock&seed=1").await;
    let p = panel(&root);
    assert_eq!(
        p.get_attribute("data-scenario").as_deref(),
        Some("double-charge-redis-lock")
    );
    // Before anything is sent the lens says so.
    assert!(
        text(&p, ".lens").contains("No message has been sent yet"),
        "{}",
        text(&p, ".lens")
    );
    // Step until A's SET is on its way: the lens's newest row is that command, drawn as
    // an arrow from A's column to redis's, with no reply yet.
    let step = |p: &Element| click(p, "button[aria-label='Step forward']");
    let mut seen_request = false;
    for _ in 0..40 {
        let now = lens_now(&p);
        if now.contains("A → redis: SET lock") && !seen_request {
            seen_request = true;
            assert!(now.contains("NX PX 10000"), "{now}");
            assert!(!now.contains("→ OK"), "the reply is not sent yet: {now}");
            let arrows = query_all(&p, ".lens .lens-row.current svg line.req");
            assert_eq!(arrows.len(), 1, "one request arrow");
            let (x1, x2) = (
                arrows[0].get_attribute("x1").unwrap(),
                arrows[0].get_attribute("x2").unwrap(),
            );
            assert_ne!(x1, x2, "the arrow goes from A's column to redis's");
        }
        // Once the node has answered, the same row carries the reply and its arrow back.
        if seen_request && now.contains("A → redis: SET lock") && now.contains("→ OK") {
            assert_eq!(query_all(&p, ".lens .lens-row.current svg line.rep").len(), 1);
            // What the lens says the node answered is what the node ran, per the log.
            assert!(
                text(&p, "[role=log]").contains("NX PX 10000 for A → OK")
                    || text(&p, ".event-log").contains("→ OK")
            );
            break;
        }
        let before = text(&p, ".cursor-time");
        step(&p);
        let pp = p.clone();
        wait_until("a step", move || text(&pp, ".cursor-time") != before).await;
    }
    assert!(seen_request, "A's SET never showed in the lens");
    assert!(
        lens_now(&p).contains("→ OK"),
        "A's SET never showed its OK: {}",
        lens_now(&p)
    );
    // Then B's SET, answered (nil): B does not get the lock.
    for _ in 0..40 {
        if lens_now(&p).contains("B → redis: SET lock") && lens_now(&p).contains("(nil)") {
            break;
        }
        let before = text(&p, ".cursor-time");
        step(&p);
        let pp = p.clone();
        wait_until("a step", move || text(&pp, ".cursor-time") != before).await;
    }
    assert!(lens_now(&p).contains("B → redis: SET lock"), "{}", lens_now(&p));
    assert!(lens_now(&p).contains("→ (nil)"), "{}", lens_now(&p));
    // The lens never runs ahead of the cursor: at the start again it is empty.
    click(&p, "button[aria-label='Go to start']");
    let pp = p.clone();
    wait_until("the lens back at the start", move || lens_now(&pp).is_empty()).await;
}

#[wasm_bindgen_test]
async fn the_picture_says_who_deleted_whose_key_and_which_write_was_refused() {
    let _x = Exclusive::acquire().await;
    // §3: A's late DEL removes B's key: said on redis's lane, in red.
    let (root, _app) = open("#/distributed-locks/3?scenario=unsafe-del&seed=1").await;
    let p = panel(&root);
    let tags: Vec<String> = query_all(&p, "svg .tag-removed text")
        .iter()
        .filter_map(|t| t.text_content())
        .collect();
    assert!(
        tags.iter().any(|t| t.starts_with("A's DEL removes B's key")),
        "{tags:?}"
    );
    drop(_app);
    // §9: the resource refuses C1's write with token 33 after C2's 34: on its lane.
    let (root, _app) = open("#/distributed-locks/9?scenario=fencing&seed=1").await;
    let p = panel(&root);
    let refused: Vec<String> = query_all(&p, "svg .tag-refused text")
        .iter()
        .filter_map(|t| t.text_content())
        .collect();
    assert!(
        refused.iter().any(|t| t.starts_with("C1: 33 ≤ 34 ✗")),
        "{refused:?}"
    );
}

#[wasm_bindgen_test]
async fn a_cut_off_node_is_a_state_on_its_lane_and_in_the_cluster_view() {
    let _x = Exclusive::acquire().await;
    use lockstep::sim::Fault;
    let s = lockstep::sim::scenario::builtin("redlock-baseline")
        .expect("built-in")
        .expect("parses");
    let names = lockstep::timeline::build(&s, 1).expect("builds").names;
    let pid = |n: &str| names.iter().position(|x| x == n).expect("a process");
    // C1 is cut off from A, B and C from the start.
    let cuts = vec![(
        0,
        Fault::Partition {
            a: pid("C1"),
            b: vec![pid("A"), pid("B"), pid("C")],
            oneway: false,
        },
    )];
    let faults = lockstep::timeline::link::encode_faults(&cuts);
    let (root, _app) = open(&format!(
        "#/distributed-locks/7?scenario=redlock-baseline&seed=1&faults={faults}"
    ))
    .await;
    let p = panel(&root);
    let states: Vec<String> = query_all(&p, "svg .state-cut text")
        .iter()
        .filter_map(|t| t.text_content())
        .collect();
    assert!(states.iter().any(|t| t == "cut off from A, B, C"), "{states:?}");
    click(&p, "button[aria-label='Go to end']");
    let pp = p.clone();
    wait_until("the cluster view at the end", move || {
        text(&pp, ".cluster-clients").contains("C1:")
    })
    .await;
    let clients = text(&p, ".cluster-clients");
    assert!(clients.contains("cut off from A, B, C"), "{clients}");
    let nodes = text(&p, ".cluster-nodes");
    assert!(nodes.contains("cut off from C1"), "{nodes}");
}

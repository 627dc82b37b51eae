//! Browser test: a Norwegian page speaks Norwegian in its scenario panels too, in the
//! words a screen reader reads (accessible names, titles), on buttons, in legends and
//! labels, and in the timeline's own text.
#![cfg(target_arch = "wasm32")]

use lockstep::lesson::content::{builtin, Lang};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

mod web_common;
use web_common::*;

/// English words that are no Norwegian words, as the panels used to say them. Matched
/// as whole words, case-insensitively. (Not: "pause", "start", "node", "token",
/// "scenario", which Norwegian shares, nor words of scenario names such as "crash", nor
/// "in", "out" or "end", which the Lua scripts the arrows' titles quote are full of.)
const ENGLISH: &[&str] = &[
    "play",
    "playback",
    "step",
    "back",
    "forward",
    "go",
    "reset",
    "zoom",
    "pan",
    "left",
    "right",
    "run",
    "redis command",
    "command",
    "paused",
    "storage",
    "down",
    "crashes",
    "holds",
    "stored",
    "keys",
    "pauses",
    "see",
    "each",
    "speed",
    "events",
    "lost",
    "the",
    "of",
    "to see",
    "did not",
    "error",
];

/// The chrome of one panel: attributes a screen reader reads, and the own text of
/// buttons, legends, labels, summaries, headings and the timeline's text and titles.
fn chrome(panel: &Element) -> Vec<String> {
    let mut out = Vec::new();
    for el in query_all(panel, "*") {
        for attr in [
            "aria-label",
            "title",
            "placeholder",
            "aria-valuetext",
            "aria-roledescription",
        ] {
            if let Some(v) = el.get_attribute(attr) {
                out.push(format!("{}[{attr}]: {v}", el.tag_name()));
            }
        }
    }
    let own_text = |el: &Element| -> String {
        let nodes = el.child_nodes();
        (0..nodes.length())
            .filter_map(|i| nodes.item(i))
            .filter(|n| n.node_type() == web_sys::Node::TEXT_NODE)
            .filter_map(|n| n.text_content())
            .collect::<Vec<_>>()
            .join(" ")
    };
    for el in query_all(
        panel,
        "button, legend, label, summary, h3, h4, option, th, svg text, svg title, .scenario-head span",
    ) {
        let t = own_text(&el);
        if !t.trim().is_empty() {
            out.push(format!("{}: {t}", el.tag_name()));
        }
    }
    out
}

fn english_in(s: &str) -> Vec<&'static str> {
    let text = s.split_once(": ").map_or(s, |(_, t)| t).to_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    ENGLISH
        .iter()
        .copied()
        .filter(|m| {
            let m: Vec<&str> = m.split(' ').collect();
            words.windows(m.len()).any(|w| w == m.as_slice())
        })
        .collect()
}

async fn english_left_in_panels(lang: &str, orders: std::ops::RangeInclusive<u32>) -> Vec<String> {
    let lesson = builtin(Lang::Nb).expect("lesson");
    let mut found = Vec::new();
    for section in lesson.sections.iter().filter(|s| orders.contains(&s.order)) {
        let root = fresh(&format!("#/{}/{}", lesson.id, section.order));
        set_search(&format!("?lang={lang}"));
        let app = Mounted::new(&root);
        mounted(&root).await;
        let r = root.clone();
        wait_long("every scenario panel has drawn its run", move || {
            query_all(&r, "section.scenario:not(.console-exercise)")
                .iter()
                .all(|p| query(p, "svg.timeline").is_some() || query(p, ".error").is_some())
        })
        .await;
        for panel in query_all(&root, "section.scenario") {
            // Open the collapsed parts too: what they hold is read when opened.
            for d in query_all(&panel, "details") {
                d.set_attribute("open", "").expect("open");
            }
            for line in chrome(&panel) {
                let words = english_in(&line);
                if !words.is_empty() {
                    found.push(format!("§{} {:?}: {line}", section.order, words));
                }
            }
        }
        app.unmount();
        let _ = root.dyn_ref::<Element>().map(|r| r.remove());
    }
    reset_search();
    found.sort();
    found.dedup();
    found
}

#[wasm_bindgen_test]
async fn the_check_sees_english_on_an_english_page() {
    let _x = Exclusive::acquire().await;
    let english = english_left_in_panels("en", 3..=3).await;
    for word in ["play", "run", "zoom", "reset"] {
        assert!(
            english.iter().any(|l| l.contains(&format!("\"{word}\""))),
            "the English page says {word}:\n{}",
            english.join("\n")
        );
    }
}

async fn no_english_in(orders: std::ops::RangeInclusive<u32>) {
    let left = english_left_in_panels("nb", orders).await;
    assert!(
        left.is_empty(),
        "{} English labels on Norwegian pages:\n{}",
        left.len(),
        left.join("\n")
    );
}

// Every section, a few per test (each test has the runner's time limit).
#[wasm_bindgen_test]
async fn norwegian_scenario_panels_have_no_english_labels_1_to_3() {
    let _x = Exclusive::acquire().await;
    no_english_in(1..=3).await;
}

#[wasm_bindgen_test]
async fn norwegian_scenario_panels_have_no_english_labels_4_to_6() {
    let _x = Exclusive::acquire().await;
    no_english_in(4..=6).await;
}

#[wasm_bindgen_test]
async fn norwegian_scenario_panels_have_no_english_labels_7_to_9() {
    let _x = Exclusive::acquire().await;
    no_english_in(7..=9).await;
}

#[wasm_bindgen_test]
async fn norwegian_scenario_panels_have_no_english_labels_10_to_12() {
    let _x = Exclusive::acquire().await;
    no_english_in(10..=12).await;
}

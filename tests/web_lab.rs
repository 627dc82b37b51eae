//! Browser tests of the labs: a learner's code runs in the sandboxed worker, is attacked
//! and graded in the page; an infinite loop is stopped; the code cannot reach the page's
//! storage or the network; the code survives a reload.
#![cfg(target_arch = "wasm32")]

use gloo::timers::future::TimeoutFuture;
use lockstep::sim::lab::seq::{Draw, FailedTrial};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

mod web_common;
use web_common::*;

const NAIVE: &str = "import crypto from 'node:crypto';
export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  return (await redis.set(key, token, { NX: true, PX: ttlMs })) === 'OK' ? token : null;
}
export async function release(redis, key, token) {
  await redis.del(key);
}
";

fn fixed() -> String {
    NAIVE.replace(
        "  await redis.del(key);",
        "  return redis.eval(\"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0\", { keys: [key], arguments: [token] });",
    )
}

/// The files the page fetches from `labs/` (the test page has no such folder), and the
/// engine's worker named, as the app's page names it.
fn preload() {
    use lockstep::ui::lab::preload;
    name_the_engine();
    preload("harness.js", include_str!("../labs/harness.js"));
    preload("sandbox.html", include_str!("../labs/sandbox.html"));
    preload(
        "safe-release/driver.js",
        include_str!("../labs/safe-release/driver.js"),
    );
    preload(
        "safe-release/solution.js",
        include_str!("../labs/safe-release/solution.js"),
    );
    preload("set-nx/driver.js", include_str!("../labs/set-nx/driver.js"));
}

fn lab(root: &Element, id: &str) -> Element {
    query(root, &format!("section.lab[data-lab={id}]")).expect("the lab panel")
}

/// Clicks the lab's button whose text starts with `button`.
fn press(p: &Element, button: &str) {
    let b = query_all(p, "button")
        .into_iter()
        .find(|b| b.text_content().unwrap_or_default().starts_with(button))
        .unwrap_or_else(|| panic!("no {button} button"));
    b.dyn_ref::<web_sys::HtmlElement>().expect("a button").click();
}

/// §3 opened afresh (no stored progress), once its safe-release lab is drawn: the app
/// (kept mounted while held) and the lab's section.
async fn open_safe_release() -> (Mounted, Element) {
    storage().clear().ok();
    preload();
    let root = fresh("#/distributed-locks/3");
    let app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the lab", move || {
        query(&r, "section.lab[data-lab=safe-release] textarea").is_some()
    })
    .await;
    (app, lab(&root, "safe-release"))
}

async fn run_code(p: &Element, code: &str, button: &str) -> String {
    let editor = query(p, "textarea.lab-editor").expect("an editor");
    type_into(&editor, code).await;
    let b = query_all(p, ".lab-actions button")
        .into_iter()
        .find(|b| b.text_content().unwrap_or_default().starts_with(button))
        .unwrap_or_else(|| panic!("no {button} button"));
    b.dyn_ref::<web_sys::HtmlElement>().expect("a button").click();
    // The last verdict goes while the code runs, and a new one comes.
    let q = p.clone();
    wait_until("the run to start", move || query(&q, ".lab-verdict").is_none()).await;
    let q = p.clone();
    wait_long("a verdict", move || query(&q, ".lab-verdict").is_some()).await;
    text(p, ".lab-verdict")
}

/// A Run's drawing is handed over in slices (#40): the task that draws the verdict does
/// not also draw the timeline's messages, which come in a later task. Read from a
/// MutationObserver, whose callback sees the page as each task left it: no clock.
#[wasm_bindgen_test]
async fn a_runs_drawing_comes_in_slices() {
    let _x = Exclusive::acquire().await;
    let (_app, p) = open_safe_release().await;
    p.set_attribute("data-watched", "").expect("marked");
    js_sys::Function::new_no_args(
        "window.__slices = [];
         const lab = document.querySelector('section.lab[data-watched]');
         new MutationObserver(() => {
           const v = lab.querySelector('.lab-verdict');
           window.__slices.push([!!v && v.textContent.includes('Broken'), lab.querySelectorAll('svg.timeline g.arrow').length]);
         }).observe(lab, { subtree: true, childList: true, characterData: true, attributes: true });",
    )
    .call0(&wasm_bindgen::JsValue::NULL)
    .expect("an observer");
    let verdict = run_code(&p, NAIVE, "Run").await;
    assert!(verdict.contains("Broken in this run"), "{verdict}");
    let q = p.clone();
    wait_until("the timeline's messages", move || {
        !query_all(&q, "svg.timeline g.arrow").is_empty()
    })
    .await;
    let seen = js_sys::JSON::stringify(
        &js_sys::Reflect::get(&web_sys::window().expect("a window"), &"__slices".into()).expect("records"),
    )
    .expect("JSON")
    .as_string()
    .unwrap_or_default();
    let seen: Vec<(bool, usize)> = serde_json::from_str(&seen).expect("records");
    let first = seen
        .iter()
        .position(|(v, _)| *v)
        .expect("a task drew the verdict");
    assert_eq!(
        seen[first].1, 0,
        "the verdict's task drew the messages too: {seen:?}"
    );
    assert!(seen[first..].iter().any(|(_, arrows)| *arrows > 0), "{seen:?}");
}

#[wasm_bindgen_test]
async fn the_naive_release_is_broken_on_the_timeline_and_the_fix_holds() {
    let _x = Exclusive::acquire().await;
    let (_app, p) = open_safe_release().await;
    let verdict = run_code(&p, NAIVE, "Run").await;
    assert!(verdict.contains("Broken in this run (seed 1)"), "{verdict}");
    let broken: Vec<String> = query_all(&p, ".lab-checks li.broken")
        .iter()
        .filter_map(|e| e.text_content())
        .collect();
    // A broken check says what happened, not the rule it broke.
    assert!(
        broken
            .iter()
            .any(|b| b.contains("broken: a release deleted another worker's lock")),
        "{broken:?}"
    );
    assert!(!broken.iter().any(|b| b.contains("broken: no ")), "{broken:?}");
    let held: Vec<String> = query_all(&p, ".lab-checks li.held")
        .iter()
        .filter_map(|e| e.text_content())
        .collect();
    assert!(
        held.iter()
            .any(|h| h.contains("held: every worker finished its jobs")),
        "{held:?}"
    );
    // The run is drawn, the cursor sits on the release that deleted someone else's key,
    // and the URL names the trial so the link replays it.
    assert!(query(&p, "svg.timeline").is_some());
    // A screen reader hears the verdict and the checks, not the timeline (its live
    // region once held 6 820 characters of it).
    let status = query(&p, ".lab-status[aria-live]").expect("the verdict's live region");
    let heard = status.text_content().unwrap_or_default();
    assert!(heard.contains("Broken in this run (seed 1)"), "{heard}");
    assert!(
        status
            .query_selector("svg, .lab-violations, .lab-now")
            .ok()
            .flatten()
            .is_none(),
        "{heard}"
    );
    assert!(
        heard.chars().count() < 1_000,
        "{} characters announced: {heard}",
        heard.chars().count()
    );
    let now = text(&p, ".lab-now");
    assert!(now.contains("deletes lock:report while it holds"), "{now}");
    // The hint ladder (#40 item 14): one rung per click, the first from this run's own
    // facts (its first violation), the last the shape of the code; then no more button.
    let first_violation = text(&p, ".lab-violations li");
    for n in 1..=3 {
        press(&p, &format!("Hint ({n} of 3)"));
        let q = p.clone();
        wait_until("a hint", move || query_all(&q, ".lab-hints li").len() == n).await;
    }
    let hints: Vec<String> = query_all(&p, ".lab-hints li")
        .iter()
        .filter_map(|l| l.text_content())
        .collect();
    assert!(
        hints[0].starts_with(&first_violation),
        "{hints:?} / {first_violation}"
    );
    assert!(hints[2].contains("EVAL") || hints[2].contains("SET"), "{hints:?}");
    assert!(!query_all(&p, ".lab-hints button")
        .iter()
        .any(|b| b.text_content().unwrap_or_default().starts_with("Hint")));
    let hash = web_sys::window().unwrap().location().hash().unwrap();
    assert!(hash.contains("lab=safe-release&trial=1"), "{hash}");
    // The first violation in words names the two workers and the moment.
    let first = text(&p, ".lab-violations li");
    assert!(
        first.contains("release deleted the lock while it held"),
        "{first}"
    );

    let verdict = run_code(&p, &fixed(), "Run").await;
    assert!(verdict.contains("Every check held in this run"), "{verdict}");
    assert!(query(&p, ".lab-checks li.broken").is_none());
    // Typing alone saves too, a moment after the last key.
    let editor = query(&p, "textarea.lab-editor").expect("an editor");
    type_into(&editor, &format!("{}// typed\n", fixed())).await;
    wait_until("the typed code saved", || {
        storage()
            .get_item("lockstep.progress.v2")
            .ok()
            .flatten()
            .unwrap_or_default()
            .contains("// typed")
    })
    .await;
    type_into(&editor, &fixed()).await;
    let verdict = run_code(&p, &fixed(), "Run").await;
    assert!(verdict.contains("Every check held in this run"), "{verdict}");
    // The code is in the learner's progress: a reload brings it back.
    let stored = storage()
        .get_item("lockstep.progress.v2")
        .ok()
        .flatten()
        .unwrap_or_default();
    assert!(
        stored.contains("safe-release") && stored.contains("redis.eval"),
        "{stored}"
    );
    drop(_app);
    // A reload: the same storage, a new app.
    set_hash("#/distributed-locks/3");
    let root = new_root();
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the lab again", move || {
        query(&r, "section.lab[data-lab=safe-release] textarea").is_some()
    })
    .await;
    let r = root.clone();
    wait_until("the saved code in the editor", move || {
        query(&r, "section.lab[data-lab=safe-release] textarea")
            .and_then(|e| e.dyn_ref::<web_sys::HtmlTextAreaElement>().map(|t| t.value()))
            .is_some_and(|v| v == fixed())
    })
    .await;
    storage().clear().ok();
}

#[wasm_bindgen_test]
async fn an_infinite_loop_is_stopped_and_the_page_keeps_answering() {
    let _x = Exclusive::acquire().await;
    let (_app, p) = open_safe_release().await;
    let looping = NAIVE.replace("  await redis.del(key);", "  for (;;) {}");
    // While it runs, the lab says so and offers Stop; then it names the worker and the
    // function the loop never left (#40 item 8).
    let editor = query(&p, "textarea.lab-editor").expect("an editor");
    type_into(&editor, &looping).await;
    press(&p, "Run");
    let q = p.clone();
    wait_until("Running… with Stop", move || {
        text(&q, ".lab-status").contains("Running your code")
            && query_all(&q, ".lab-actions button")
                .iter()
                .any(|b| b.text_content().as_deref() == Some("Stop"))
    })
    .await;
    let q = p.clone();
    wait_long("a verdict", move || query(&q, ".lab-verdict").is_some()).await;
    let verdict = text(&p, ".lab-verdict");
    assert!(verdict.contains("infinite loop"), "{verdict}");
    assert!(verdict.contains("It never returned from release()."), "{verdict}");
    assert!(
        ["A: ", "B: ", "C: "].iter().any(|w| verdict.starts_with(w)),
        "the worker is named: {verdict}"
    );
    // Stop ends a run at once: nothing graded, no loop waited out.
    press(&p, "Run");
    let q = p.clone();
    wait_until("Running… again", move || {
        text(&q, ".lab-status").contains("Running your code")
    })
    .await;
    press(&p, "Stop");
    let q = p.clone();
    wait_long("the stopped run's verdict", move || {
        query(&q, ".lab-verdict").is_some()
    })
    .await;
    let verdict = text(&p, ".lab-verdict");
    assert!(verdict.contains("Stopped after 0 trials"), "{verdict}");
    // The page answers: the next event button steps the (empty) timeline's neighbours,
    // and a new Run works at once.
    TimeoutFuture::new(10).await;
    let verdict = run_code(&p, &fixed(), "Run").await;
    assert!(verdict.contains("Every check held"), "{verdict}");
    // No sandbox is left behind: each run removes its frame. The spares opened for the
    // next session hold no code, and there are never more than a session takes.
    assert!(
        document()
            .query_selector_all("iframe.lab-spare")
            .unwrap()
            .length()
            <= 2
    );
    assert!(
        document()
            .query_selector_all("iframe.lab-sandbox:not(.lab-spare)")
            .unwrap()
            .length()
            == 0
    );
    storage().clear().ok();
}

#[wasm_bindgen_test]
async fn learner_code_cannot_reach_storage_or_the_network() {
    let _x = Exclusive::acquire().await;
    preload();
    storage().set_item("secret", "page-only").ok();
    // It takes the lock as NAIVE does and releases it with a plain DEL, so that the
    // lab's Run breaks it and hands back its tape: the run, replayed, holds what it logged.
    let probe = NAIVE.replace(
        "  return (await redis.set",
        "  const g = new Function('return this')();
  console.log([typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof importScripts,
    typeof localStorage, typeof indexedDB, typeof g.fetch, typeof document].join(' '));
  let reached = 'no';
  try { await g.constructor.prototype.fetch('/'); reached = 'yes'; } catch (e) { reached = 'no'; }
  console.log('fetch reached: ' + reached);
  return (await redis.set",
    );
    let broken = run_once("safe-release", &probe)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
        .expect("the plain DEL broke the lab's Run");
    let t = replayed("safe-release", &broken);
    let notes: Vec<String> = t
        .trace
        .iter()
        .filter_map(|e| match &e.kind {
            lockstep::sim::TraceKind::Note { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert!(!notes.is_empty(), "{:?}", t.code_error);
    assert!(
        notes
            .iter()
            .any(|n| n == "undefined undefined undefined undefined undefined undefined undefined undefined"),
        "{notes:?}"
    );
    assert!(notes.iter().any(|n| n == "fetch reached: no"), "{notes:?}");
    assert!(notes.iter().all(|n| !n.contains("page-only")));
    storage().remove_item("secret").ok();
}

/// The attack suite's faked grades (tests/labs/attacks), run in the browser's sandbox:
/// its realm is locked down before the learner's code runs, so none turns the wrong
/// release (a plain DEL, broken by the lab's own Run) into a pass.
#[wasm_bindgen_test]
async fn no_faked_grade_passes_in_the_browser_sandbox() {
    let _x = Exclusive::acquire().await;
    preload();
    let attacks = [
        (
            "safe-release",
            "fake-array-push",
            include_str!("labs/attacks/fake-array-push.js"),
        ),
        (
            "safe-release",
            "fake-caller",
            include_str!("labs/attacks/fake-caller.js"),
        ),
        (
            "safe-release",
            "fake-date-now",
            include_str!("labs/attacks/fake-date-now.js"),
        ),
        (
            "safe-release",
            "fake-global-lock-table",
            include_str!("labs/attacks/fake-global-lock-table.js"),
        ),
        (
            "safe-release",
            "fake-implicit-global",
            include_str!("labs/attacks/fake-implicit-global.js"),
        ),
        (
            "safe-release",
            "fake-json-stringify",
            include_str!("labs/attacks/fake-json-stringify.js"),
        ),
        (
            "safe-release",
            "fake-newline",
            include_str!("labs/attacks/fake-newline.js"),
        ),
        (
            "safe-release",
            "fake-promise-then",
            include_str!("labs/attacks/fake-promise-then.js"),
        ),
        (
            "safe-release",
            "fake-string",
            include_str!("labs/attacks/fake-string.js"),
        ),
        (
            "safe-release",
            "fake-tojson",
            include_str!("labs/attacks/fake-tojson.js"),
        ),
        (
            "set-nx",
            "fake-token-from-nowhere",
            include_str!("labs/attacks/fake-token-from-nowhere.js"),
        ),
    ];
    for (lab, name, code) in attacks {
        match run_once(lab, code).await {
            // Refused before it ran: patching a frozen built-in throws at the top of
            // the learner's module (strict code), which is where these tricks start.
            Err(e) => assert!(
                e.contains("read only") || e.contains("not extensible") || e.contains("TypeError"),
                "{name}: {e}"
            ),
            // The engine graded it broken; its tape, replayed, is graded the same.
            Ok(Some(f)) => {
                let t = replayed(lab, &f);
                assert!(t.code_error.is_some() || !t.passed(), "{name}: the replay passed");
            }
            Ok(None) => panic!("{name} passed the lab's Run in the browser"),
        }
    }
    // The sandbox's own built-ins stay frozen for the next learner's code, which is
    // graded as it deserves: the reference release passes in the same sandbox.
    let t = run_once("safe-release", &fixed())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(t.is_none(), "{t:?}");
}

/// The lab's Run of `code` (seed 1), made by the engine in a sandbox: its trial if it broke.
async fn run_once(lab: &str, code: &str) -> Result<Option<FailedTrial>, String> {
    lockstep::ui::lab::trials_in_sandboxes(lab, code, Draw::Run, 1, 1).await
}

/// A trial the engine in the sandbox found broken, replayed from its tape (Run's draw).
fn replayed(lab: &str, f: &FailedTrial) -> lockstep::sim::lab::TrialResult {
    let lab = lockstep::labs::shown(lab)
        .expect("a built-in lab")
        .expect("it reads");
    f.replay(&lab, Draw::Run).unwrap_or_else(|e| panic!("{e}"))
}

#[wasm_bindgen_test]
async fn a_link_with_code_puts_it_in_the_editor_without_running_it() {
    let _x = Exclusive::acquire().await;
    storage().clear().ok();
    preload();
    let code = "export async function acquire(redis, key, ttlMs) { return null; } // ä & ?\nexport async function release() {}\n";
    let encoded = String::from(js_sys::encode_uri_component(code));
    let root = fresh(&format!("#/distributed-locks/3?lab=safe-release&code={encoded}"));
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the lab", move || {
        query(&r, "section.lab[data-lab=safe-release] textarea").is_some()
    })
    .await;
    let p = lab(&root, "safe-release");
    let value = query(&p, "textarea")
        .and_then(|e| e.dyn_ref::<web_sys::HtmlTextAreaElement>().map(|t| t.value()))
        .unwrap_or_default();
    assert_eq!(value, code);
    assert!(
        text(&p, ".lab-note").contains("has not run"),
        "{}",
        text(&p, ".lab-note")
    );
    // Nothing ran: no verdict, no sandbox but the idle spares (no code in them).
    TimeoutFuture::new(300).await;
    assert!(query(&p, ".lab-verdict").is_none());
    assert_eq!(
        document()
            .query_selector_all("iframe.lab-sandbox:not(.lab-spare)")
            .unwrap()
            .length(),
        0
    );
    // Another lab's panel keeps its own starter.
    storage().clear().ok();
}

#[wasm_bindgen_test]
async fn one_lab_embedded_alone_tells_its_host_how_each_run_went() {
    let _x = Exclusive::acquire().await;
    storage().clear().ok();
    preload();
    let origin = web_sys::window().unwrap().location().origin().unwrap();
    let (got, _listener) = collect_messages();
    // Section 2's page, asked for the safe-release lab (section 3's) alone.
    let root = fresh("#/distributed-locks/2");
    set_search(&format!("?embed=1&show=lab&lab=safe-release&origin={origin}"));
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the lab alone", move || {
        query(&r, "section.lab[data-lab=safe-release] textarea").is_some()
    })
    .await;
    assert!(
        query(&root, "article.section").is_none(),
        "only the lab, not the section"
    );
    assert_eq!(query_all(&root, "section.lab").len(), 1);
    let p = lab(&root, "safe-release");
    let verdict = run_code(&p, NAIVE, "Run").await;
    assert!(verdict.contains("Broken in this run"), "{verdict}");
    let g = got.clone();
    wait_until("a lab message", move || {
        g.borrow().iter().any(|s| s.contains("\"type\":\"lab\""))
    })
    .await;
    let message = got
        .borrow()
        .iter()
        .find(|s| s.contains("\"type\":\"lab\""))
        .cloned()
        .unwrap_or_default();
    let m: serde_json::Value = serde_json::from_str(&message).expect("JSON");
    assert_eq!(m["source"], "lockstep", "{message}");
    assert_eq!(m["lab"], "safe-release", "{message}");
    assert_eq!(m["outcome"], "broken", "{message}");
    assert_eq!(m["passed"], false, "{message}");
    // The first check the panel shows broken.
    let first = query(&p, ".lab-checks li.broken").and_then(|l| l.get_attribute("data-check"));
    assert_eq!(m["check"].as_str(), first.as_deref(), "{message}");
    assert!(first.is_some());
    // "Copy a link with your code" says whether it copied; refused (the test page's
    // document may lack the focus the clipboard wants), it shows the link to copy.
    let b = query_all(&p, ".lab-actions button")
        .into_iter()
        .find(|b| b.text_content().unwrap_or_default() == "Copy a link with your code")
        .expect("the copy button");
    b.dyn_ref::<web_sys::HtmlElement>().expect("a button").click();
    let q = p.clone();
    wait_until("the copy to answer", move || {
        query(&q, "input.lab-link").is_some()
            || query_all(&q, ".lab-actions button")
                .iter()
                .any(|b| b.text_content().as_deref() == Some("Link copied"))
    })
    .await;
    if let Some(input) = query(&p, "input.lab-link") {
        let link = input
            .dyn_ref::<web_sys::HtmlInputElement>()
            .map(|i| i.value())
            .unwrap_or_default();
        assert!(
            link.contains("lab=safe-release") && link.contains("&code="),
            "{link}"
        );
    }
    reset_search();
    storage().clear().ok();
}

#[wasm_bindgen_test]
async fn a_syntax_error_names_its_line_and_the_button_selects_that_line() {
    let _x = Exclusive::acquire().await;
    let (_app, p) = open_safe_release().await;
    let broken = NAIVE.replace("  await redis.del(key);", "  await redis.del(key;");
    let verdict = run_code(&p, &broken, "Run").await;
    let line = broken.lines().position(|l| l.contains("redis.del(key;")).unwrap() + 1;
    assert!(verdict.contains(&format!("line {line}")), "{verdict}");
    let b = query_all(&p, ".lab-verdict button")
        .into_iter()
        .find(|b| {
            b.text_content()
                .unwrap_or_default()
                .contains(&format!("line {line}"))
        })
        .expect("a button that shows the line");
    b.dyn_ref::<web_sys::HtmlElement>().unwrap().click();
    TimeoutFuture::new(30).await;
    let t = query(&p, "textarea")
        .unwrap()
        .dyn_into::<web_sys::HtmlTextAreaElement>()
        .unwrap();
    let (start, end) = (
        t.selection_start().unwrap().unwrap(),
        t.selection_end().unwrap().unwrap(),
    );
    let selected: String = t
        .value()
        .encode_utf16()
        .skip(start as usize)
        .take((end - start) as usize)
        .map(|u| u as u8 as char)
        .collect();
    assert_eq!(selected, "  await redis.del(key;");
    storage().clear().ok();
}

/// "Try to break it" in the browser (the engine's groups, in the panel's sandboxes) names
/// the failing trial and trial seed that `lockstep lab run --seed S --trials N` names:
/// tests/fixtures/first-failing-trials.txt, which tests/labs_node.rs checks against
/// the command line.
#[wasm_bindgen_test]
async fn the_browser_names_the_first_failing_trial_the_cli_names() {
    let _x = Exclusive::acquire().await;
    preload();
    let lines = include_str!("fixtures/first-failing-trials.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    for line in lines {
        let f: Vec<&str> = line.split_whitespace().collect();
        let n = |i: usize| f[i].parse::<u64>().unwrap_or_else(|e| panic!("{line}: {e}"));
        let (lab, file) = (f[0], f[1]);
        // The learner's file, as the test server serves the crate's folder.
        let code = lockstep::ui::pack_loader::fetch_text(&format!("/{file}"), 1 << 20)
            .await
            .unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let (seed, trials, failing, trial_seed) = (n(2), n(3) as u32, n(4) as u32, n(5));
        let broken = lockstep::ui::lab::trials_in_sandboxes(lab, &code, Draw::Trials, seed, trials)
            .await
            .unwrap_or_else(|e| panic!("{line}: {e}"))
            .unwrap_or_else(|| panic!("{line}: no trial broke in the browser"));
        assert_eq!(
            (broken.trial + 1, broken.seed),
            (failing, trial_seed),
            "{line}: the browser's first failing trial and its seed"
        );
    }
}

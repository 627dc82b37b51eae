//! Browser tests of the lesson reader (wasm-bindgen-test in headless Chromium).
//! They mount the real app into the page and read the DOM, as a learner would see it.
#![cfg(target_arch = "wasm32")]

use gloo::timers::future::TimeoutFuture;
use lockstep::lesson::progress::{LANG_KEY, PROGRESS_KEY};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

mod web_common;
use web_common::*;

#[wasm_bindgen_test]
async fn app_mounts_with_a_table_of_contents_of_twelve_links() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/1");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let nav = query(&root, "nav.toc").expect("a <nav> table of contents");
    assert!(
        nav.get_attribute("aria-label").is_some_and(|l| !l.is_empty()),
        "the nav has an aria-label"
    );
    let links = query_all(&nav, "ol a");
    assert_eq!(links.len(), 12);
    assert_eq!(
        links[6].get_attribute("href").as_deref(),
        Some("#/distributed-locks/7")
    );
    let current = query_all(&nav, "a[aria-current=page]");
    assert_eq!(current.len(), 1);
    assert_eq!(
        current[0].get_attribute("href").as_deref(),
        Some("#/distributed-locks/1")
    );
    assert_eq!(heading(&root), "Why distributed locks?");
}

#[wasm_bindgen_test]
async fn next_previous_and_direct_links_change_the_section() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/1");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let first = heading(&root);

    click(&root, ".pager-next");
    let r = root.clone();
    let f = first.clone();
    wait_until("next shows section 2", move || heading(&r) != f).await;
    // The route; §2's scenario panel keeps its state after it (`?scenario=…`).
    let hash = web_sys::window().unwrap().location().hash().unwrap();
    assert_eq!(hash.split('?').next(), Some("#/distributed-locks/2"), "{hash}");
    let second = heading(&root);

    click(&root, ".pager-prev");
    let r = root.clone();
    wait_until("previous shows section 1 again", move || heading(&r) == first).await;

    // A direct link (the URL hash), as a shared link or the back button would set it.
    web_sys::window()
        .unwrap()
        .location()
        .set_hash("#/distributed-locks/7")
        .unwrap();
    let r = root.clone();
    wait_until("the link to section 7 shows it", move || {
        query(&r, "article.section")
            .and_then(|a| a.get_attribute("data-section-id"))
            .as_deref()
            == Some("redlock")
    })
    .await;
    assert_ne!(heading(&root), second);

    // Keyboard: N goes forward, but not while typing in a field.
    let key = |k: &str, target: &web_sys::EventTarget| {
        let init = web_sys::KeyboardEventInit::new();
        init.set_key(k);
        init.set_bubbles(true);
        let e = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
        target.dispatch_event(&e).unwrap();
    };
    let input = document().create_element("input").unwrap();
    root.append_child(&input).unwrap();
    key("n", &input);
    TimeoutFuture::new(100).await;
    assert_eq!(
        query(&root, "article.section")
            .and_then(|a| a.get_attribute("data-section-id"))
            .as_deref(),
        Some("redlock")
    );
    key("n", &document().body().unwrap());
    let r = root.clone();
    wait_until("N moves to section 8", move || {
        query(&r, "article.section")
            .and_then(|a| a.get_attribute("data-section-id"))
            .as_deref()
            == Some("redlock-library")
    })
    .await;
}

#[wasm_bindgen_test]
async fn switching_language_changes_the_heading_and_html_lang() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/3");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let english = heading(&root);
    click(&root, ".lang-switch button[data-lang=nb]");
    let r = root.clone();
    let e = english.clone();
    wait_until("the heading is Norwegian", move || {
        heading(&r) != e && !heading(&r).is_empty()
    })
    .await;
    let lang = document()
        .document_element()
        .and_then(|h| h.get_attribute("lang"));
    assert_eq!(lang.as_deref(), Some("nb"));
    assert_eq!(storage().get_item(LANG_KEY).unwrap().as_deref(), Some("nb"));
    assert!(web_sys::window()
        .unwrap()
        .location()
        .search()
        .unwrap()
        .contains("lang=nb"));
    // Still section 3.
    assert_eq!(
        query(&root, "article.section")
            .and_then(|a| a.get_attribute("data-section-id"))
            .as_deref(),
        Some("safe-release")
    );
    click(&root, ".lang-switch button[data-lang=en]");
    let r = root.clone();
    wait_until("back to English", move || heading(&r) == english).await;
}

#[wasm_bindgen_test]
async fn progress_survives_a_remount() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/4");
    let app = Mounted::new(&root);
    mounted(&root).await;
    click(&root, ".pager-next");
    let r = root.clone();
    wait_until("section 4, left for 5, is read", move || {
        query_all(&r, "nav.toc li.visited").len() == 1
    })
    .await;
    app.unmount();

    // A reload: same storage, no hash → resumes at the last section; the one left is read,
    // the one only opened is not.
    set_hash("");
    let root = new_root();
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let visited: Vec<String> = query_all(&root, "nav.toc li.visited a")
        .iter()
        .filter_map(|a| a.get_attribute("href"))
        .collect();
    assert_eq!(visited, vec!["#/distributed-locks/4".to_string()]);
    assert_eq!(
        query(&root, "article.section")
            .and_then(|a| a.get_attribute("data-section-id"))
            .as_deref(),
        Some("watchdog")
    );
    assert!(storage()
        .get_item(PROGRESS_KEY)
        .unwrap()
        .is_some_and(|v| v.contains("\"visited\":[\"ttl\"]") && v.contains("\"last\":5")));
}

#[wasm_bindgen_test]
async fn corrupt_progress_shows_the_notice_and_is_replaced() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/2");
    storage().set_item(PROGRESS_KEY, "{not json").unwrap();
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let r = root.clone();
    wait_until("a notice is shown", move || query(&r, ".notice").is_some()).await;
    let text = query(&root, ".notices")
        .and_then(|n| n.text_content())
        .unwrap_or_default();
    assert!(text.contains("could not be read"), "{text}");
    assert_eq!(
        query(&root, ".notices")
            .and_then(|n| n.get_attribute("role"))
            .as_deref(),
        Some("status")
    );
    // The page still works and the stored value is valid again.
    assert_eq!(query_all(&root, "nav.toc ol a").len(), 12);
    let stored = storage().get_item(PROGRESS_KEY).unwrap().unwrap_or_default();
    assert!(stored.starts_with("{\"v\":2"), "{stored}");
    click(&root, ".notice button");
    let r = root.clone();
    wait_until("the notice is dismissed", move || query(&r, ".notice").is_none()).await;
}

#[wasm_bindgen_test]
async fn unknown_section_is_not_a_dead_end() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/99");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    assert!(query(&root, "article.not-found").is_some());
    let link = query(&root, "article.not-found a").and_then(|a| a.get_attribute("href"));
    assert_eq!(link.as_deref(), Some("#/distributed-locks/1"));
}

#[wasm_bindgen_test]
async fn code_blocks_are_highlighted_and_have_a_copy_button() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/3");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let lua = query(&root, "figure.code code.language-lua").expect("a Lua code block in section 3");
    assert!(lua.text_content().unwrap_or_default().contains("redis.call"));
    assert!(query(&lua, ".tok-kw").is_some(), "keywords are highlighted");
    let button = query(&root, "figure.code button.copy").expect("a copy button");
    assert!(button.get_attribute("aria-label").is_some_and(|l| !l.is_empty()));
}

#[wasm_bindgen_test]
async fn progress_from_the_previous_version_is_migrated() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/1");
    let v1 = r#"{"v":1,"lessons":{"distributed-locks":{"visited":["ttl","watchdog"],"last":5}}}"#;
    storage().set_item("lockstep.progress.v1", v1).unwrap();
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let r = root.clone();
    wait_until("the two sections read before marked read", move || {
        query_all(&r, "nav.toc li.visited").len() == 2
    })
    .await;
    assert!(query(&root, ".notice").is_none(), "a migration is not an error");
    let stored = storage().get_item(PROGRESS_KEY).unwrap().unwrap_or_default();
    assert!(
        stored.starts_with("{\"v\":2") && stored.contains("watchdog"),
        "{stored}"
    );
    assert_eq!(storage().get_item("lockstep.progress.v1").unwrap(), None);
}

#[wasm_bindgen_test]
async fn the_decision_guide_leads_one_question_at_a_time() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/11");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let guide = query(&root, ".guide[role=group]").expect("a decision guide");
    let steps = |g: &web_sys::Element| query_all(g, ".guide-step").len();
    let answer = |g: &web_sys::Element, step: usize, label: &str| {
        let step = query_all(g, ".guide-step")
            .into_iter()
            .nth(step)
            .expect("that step");
        let b = query_all(&step, "button")
            .into_iter()
            .find(|b| b.text_content().unwrap_or_default().starts_with(label))
            .unwrap_or_else(|| panic!("no answer {label}"));
        b.dyn_ref::<web_sys::HtmlElement>().expect("a button").click();
    };
    assert_eq!(steps(&guide), 1, "only the first question at first");
    assert!(text(&guide, ".guide-question").starts_with("Question 1 of 4:"));
    // Wrong → the note, and question 2; No → question 3; Yes → fencing.
    answer(&guide, 0, "Wrong");
    let g = guide.clone();
    wait_until("question 2", move || steps(&g) == 2).await;
    assert!(text(&guide, ".guide-note").contains("correctness lock"));
    answer(&guide, 1, "No");
    let g = guide.clone();
    wait_until("question 3", move || steps(&g) == 3).await;
    answer(&guide, 2, "Yes");
    let g = guide.clone();
    wait_until("the recommendation", move || {
        text(&g, "[role=status]").contains("Use fencing")
    })
    .await;
    assert_eq!(steps(&guide), 3, "no question after a recommendation");
    // Changing the first answer drops the ones after it.
    answer(&guide, 0, "Only wasteful");
    let g = guide.clone();
    wait_until("the efficiency lock", move || {
        text(&g, "[role=status]").contains("efficiency lock") && steps(&g) == 1
    })
    .await;
    let pressed = query(&guide, "button[aria-pressed=true]").expect("the chosen answer is marked");
    assert!(pressed
        .text_content()
        .unwrap_or_default()
        .starts_with("Only wasteful"));
    // A reload (the app mounted again on the same storage) finds the same path.
    drop(_app);
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let r = root.clone();
    wait_until("the answers back after a reload", move || {
        query(&r, ".guide[role=group]")
            .map(|g| text(&g, "[role=status]").contains("efficiency lock"))
            .unwrap_or(false)
    })
    .await;
    let guide = query(&root, ".guide[role=group]").expect("the guide again");
    assert_eq!(steps(&guide), 1);
    click(&guide, "button.guide-again");
    let g = guide.clone();
    wait_until("a fresh start", move || {
        text(&g, "[role=status]").is_empty() && query(&g, "button[aria-pressed=true]").is_none()
    })
    .await;
}

/// What the prerender script relies on: the app says when its first frame is drawn, and
/// while `window.lockstepPrerender` is set, what differs per visit (the quiz's questions)
/// stays behind its placeholder; without the flag the placeholders fill in.
#[wasm_bindgen_test]
async fn a_prerender_snapshot_is_the_first_frame_and_ready_is_announced() {
    let _x = Exclusive::acquire().await;
    let window = web_sys::window().expect("a window");
    let html = window
        .document()
        .and_then(|d| d.document_element())
        .expect("<html>");
    let flag = |on: bool| {
        js_sys::Reflect::set(&window, &"lockstepPrerender".into(), &on.into()).expect("set the flag");
    };
    for prerendering in [true, false] {
        flag(prerendering);
        html.remove_attribute("data-lockstep").expect("reset");
        let root = fresh("#/distributed-locks/3");
        let app = Mounted::new(&root);
        let r = root.clone();
        wait_until("the section", move || query(&r, "#section-title").is_some()).await;
        let h = html.clone();
        wait_until("data-lockstep=ready", move || {
            h.get_attribute("data-lockstep").as_deref() == Some("ready")
        })
        .await;
        // Far longer than the zero-delay timer that fills the placeholders.
        TimeoutFuture::new(300).await;
        let busy = query_all(&root, ".deferred[aria-busy=true]").len();
        if prerendering {
            assert!(
                busy > 0,
                "the quiz's questions wait behind placeholders in a snapshot"
            );
        } else {
            assert_eq!(busy, 0, "the placeholders fill in when not prerendering");
        }
        app.unmount();
    }
    flag(false);
}

fn location() -> web_sys::Location {
    web_sys::window().expect("a window").location()
}

/// Issue #20: opening `/` or `/?lang=nb` and using the page wrote the scenario's state
/// into the query (`/?lang=nb?scenario=…`), and such a link then opened in English.
#[wasm_bindgen_test]
async fn the_query_stays_as_opened_and_the_scenario_state_goes_in_the_hash() {
    let _x = Exclusive::acquire().await;
    for search in ["", "?lang=nb"] {
        let root = fresh("");
        set_search(search);
        let app = Mounted::new(&root);
        mounted(&root).await;
        wait_until("the scenario's state is in the URL", || {
            location().href().unwrap_or_default().contains("scenario=")
        })
        .await;
        let hash = location().hash().unwrap();
        assert_eq!(
            location().search().unwrap(),
            search,
            "the query is what was opened"
        );
        assert!(
            hash.starts_with("#/distributed-locks/1?scenario=double-charge-no-lock&seed=1&t=0&e=0"),
            "{hash}"
        );
        app.unmount();
    }

    // A link corrupted that way opens in its language, and is repaired.
    let root = fresh("#/distributed-locks/3");
    set_search("?lang=nb?scenario=unsafe-del&seed=4&t=0&e=0");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    assert_eq!(
        document()
            .document_element()
            .and_then(|h| h.get_attribute("lang"))
            .as_deref(),
        Some("nb")
    );
    assert_eq!(location().search().unwrap(), "?lang=nb");
    let r = root.clone();
    wait_until("the link's seed, now read from the hash", move || {
        text(&r, "section.scenario .seed").contains("4")
    })
    .await;
    assert!(
        location()
            .hash()
            .unwrap()
            .starts_with("#/distributed-locks/3?scenario=unsafe-del&seed=4"),
        "{}",
        location().hash().unwrap()
    );
    reset_search();
}

/// The README says `?lang=nb` is remembered: a later visit without it is in Norwegian.
#[wasm_bindgen_test]
async fn lang_in_the_query_is_remembered() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/2");
    set_search("?lang=nb");
    let app = Mounted::new(&root);
    mounted(&root).await;
    assert_eq!(storage().get_item(LANG_KEY).unwrap().as_deref(), Some("nb"));
    app.unmount();
    reset_search();
    let root = new_root();
    let _app = Mounted::new(&root);
    mounted(&root).await;
    assert_eq!(
        document()
            .document_element()
            .and_then(|h| h.get_attribute("lang"))
            .as_deref(),
        Some("nb"),
        "a later visit without ?lang= is still in Norwegian"
    );
    assert!(query(&root, ".lang-switch button[data-lang=nb][aria-pressed=true]").is_some());
}

/// A new visitor has read nothing: a section counts as read once the learner leaves it
/// or scrolls to its end.
#[wasm_bindgen_test]
async fn a_first_visitor_has_read_nothing_until_leaving_or_scrolling_to_the_end() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/3");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let read = |r: &web_sys::Element| text(r, "nav.toc .toc-progress");
    assert_eq!(read(&root), "0 of 12 sections read");
    assert!(query(&root, "nav.toc li.visited").is_none());
    // Scrolled to the end of §3: read.
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 1.0e7);
    let r = root.clone();
    wait_until("§3 read once scrolled to its end", move || {
        read(&r) == "1 of 12 sections read"
    })
    .await;
    let visited = query(&root, "nav.toc li.visited a").and_then(|a| a.get_attribute("href"));
    assert_eq!(visited.as_deref(), Some("#/distributed-locks/3"));
    // §4 opened: not read yet; left for §5: read.
    click(&root, ".pager-next");
    let r = root.clone();
    wait_until("§4", move || heading(&r).starts_with("TTL")).await;
    assert_eq!(read(&root), "1 of 12 sections read");
    click(&root, ".pager-next");
    let r = root.clone();
    wait_until("§4 read once left", move || read(&r) == "2 of 12 sections read").await;
    web_sys::window().unwrap().scroll_to_with_x_and_y(0.0, 0.0);
}

/// Import and reset say what they did next to their buttons, politely, and each new
/// action replaces what the last one said (no "imported" after a reset).
#[wasm_bindgen_test]
async fn progress_notices_appear_by_their_controls_and_replace_each_other() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/progress");
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the progress page", move || query(&r, ".progress-page").is_some()).await;
    let outcome = |r: &web_sys::Element| text(r, ".progress-page .progress-outcome");
    let status = query(&root, ".progress-page .progress-outcome").expect("a status next to the buttons");
    assert_eq!(status.get_attribute("role").as_deref(), Some("status"));
    assert_eq!(status.get_attribute("aria-live").as_deref(), Some("polite"));

    let import = |body: &str| {
        let input: web_sys::HtmlInputElement = query(&root, "#import-file").unwrap().dyn_into().unwrap();
        let parts = js_sys::Array::of1(&body.into());
        let file = web_sys::File::new_with_str_sequence(&parts, "progress.json").unwrap();
        let dt = web_sys::DataTransfer::new().unwrap();
        dt.items().add_with_file(&file).unwrap();
        input.set_files(dt.files().as_ref());
        input
            .dispatch_event(&web_sys::Event::new("change").unwrap())
            .unwrap();
    };
    import(r#"{"v":2,"lessons":{"distributed-locks":{"visited":["ttl"]}}}"#);
    let r = root.clone();
    wait_until("imported", move || outcome(&r).contains("imported")).await;
    import("not a progress file");
    let r = root.clone();
    wait_until("the failed import", move || {
        outcome(&r).contains("not a Lockstep progress file")
    })
    .await;
    assert!(!outcome(&root).contains("imported and"), "{}", outcome(&root));
    click(&root, ".progress-page button.reset");
    let r = root.clone();
    wait_until("the confirmation", move || {
        query(&r, "button.reset-yes").is_some()
    })
    .await;
    click(&root, "button.reset-yes");
    let r = root.clone();
    wait_until("reset", move || outcome(&r) == "Progress was reset.").await;
    assert_eq!(
        text(&root, ".notices"),
        "",
        "nothing about it at the top of the page, far from the buttons"
    );
}

#[wasm_bindgen_test]
async fn a_debate_link_in_section_11_opens_its_scenario_in_section_7() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/11");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let selector = "a[href=\"#/distributed-locks/7?scenario=redlock-clock-jump\"]";
    assert!(
        query(&root, selector).is_some(),
        "§11 links the clock-jump argument to its scenario"
    );
    click(&root, selector);
    let r = root.clone();
    wait_long("§7 with the clock-jump scenario", move || {
        heading(&r) == "The Redlock algorithm"
            && query(&r, "section.scenario[data-scenario=\"redlock-clock-jump\"]").is_some()
    })
    .await;
    // §7's panel would show its first scenario otherwise.
    assert!(query(&root, "section.scenario[data-scenario=\"redlock-baseline\"]").is_none());
}

/// In the browser, progress is read and written with the browser's own JSON
/// (`lockstep::json`): it reads a stored progress as serde_json does, writes a text that
/// serde_json reads back equal, and rejects what serde_json rejects. (One known
/// difference, which loses nothing: an empty array where a map belongs reads as an empty
/// map, since a JavaScript array is an object with no keys; and serde_json reads a struct
/// from an array, `[2]`, which the browser's refuses.)
#[wasm_bindgen_test]
fn the_browsers_json_reads_and_writes_progress_as_serde_json_does() {
    use lockstep::lesson::progress::Progress;
    let stored = r#"{"v":2,"lessons":{"distributed-locks":{"visited":["watchdog","ttl"],"last":5,
        "questions":{"q-ttl":{"attempts":3,"solved":true},"q-a":{"attempts":1,"solved":false}},
        "quick_check":{"correct":4,"total":6},
        "labs":{"safe-release":{"code":"export async function release() {\n  // \"quoted\" é ✓\n}","runs":2,"passed":false}}},
        "other":{"visited":[],"last":null,"extra":"ignored"}}}"#;
    let (ours, discarded) = Progress::load(Some(stored));
    assert_eq!(discarded, None);
    let native: Progress = serde_json::from_str(stored).expect("serde_json reads it");
    assert_eq!(ours, native);
    let lesson = ours.lesson("distributed-locks").expect("the lesson");
    assert_eq!(lesson.visited.iter().collect::<Vec<_>>(), ["ttl", "watchdog"]);
    assert_eq!(lesson.labs["safe-release"].runs, 2);
    let written = ours.to_json();
    let back: Progress = serde_json::from_str(&written).expect("serde_json reads what the page writes");
    assert_eq!(back, native);
    let as_values = |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap();
    assert_eq!(
        as_values(&written),
        as_values(&serde_json::to_string(&native).unwrap())
    );
    let broken = [
        "",
        "{",
        r#"{"v":"two"}"#,
        r#"{"v":2,"lessons":["x"]}"#,
        r#"{"v":2,"lessons":{"x":{"last":-1}}}"#,
        r#"{"v":2,"lessons":{"x":{"visited":"ttl"}}}"#,
        r#"{"v":2,"lessons":{"x":{"questions":{"q":{"attempts":1.5,"solved":true}}}}}"#,
    ];
    for broken in broken {
        assert_eq!(
            Progress::load(Some(broken)).1.is_some(),
            serde_json::from_str::<Progress>(broken).is_err(),
            "{broken}"
        );
    }
}

/// The shipped build's panics trap without a hook (scripts/trunk.sh): a trap that escapes
/// an event's handler or a future shows the error panel, once; a page's other errors do not.
#[wasm_bindgen_test]
async fn a_trap_shows_the_error_panel_once() {
    let _x = Exclusive::acquire().await;
    let panels = || query_all(&document().body().unwrap(), ".error-panel");
    let dispatch = |script: &str| {
        js_sys::Function::new_no_args(script)
            .call0(&wasm_bindgen::JsValue::NULL)
            .expect("the event is dispatched");
    };
    lockstep::ui::panic::show_on_trap();
    dispatch(
        "window.dispatchEvent(new ErrorEvent('error', { error: new TypeError('a script of the page') }))",
    );
    dispatch("window.dispatchEvent(new PromiseRejectionEvent('unhandledrejection', { promise: Promise.resolve(), reason: 'no' }))");
    assert!(panels().is_empty(), "only our module's traps show the panel");
    dispatch("window.dispatchEvent(new ErrorEvent('error', { error: new WebAssembly.RuntimeError('unreachable') }))");
    let shown = panels();
    assert_eq!(shown.len(), 1);
    let panel = &shown[0];
    assert_eq!(panel.get_attribute("role").as_deref(), Some("alert"));
    assert_eq!(text(panel, "h2"), "Something went wrong");
    assert_eq!(text(panel, "pre"), "RuntimeError: unreachable");
    assert!(query(panel, "a.button").is_some(), "a way out: reload");
    dispatch("window.dispatchEvent(new PromiseRejectionEvent('unhandledrejection', { promise: Promise.resolve(), reason: new WebAssembly.RuntimeError('again') }))");
    assert_eq!(panels().len(), 1, "one panel, however many traps follow");
    panel.remove();
    dispatch("window.dispatchEvent(new PromiseRejectionEvent('unhandledrejection', { promise: Promise.resolve(), reason: new WebAssembly.RuntimeError('in a future') }))");
    assert_eq!(panels().len(), 1, "a trap in a future shows it too");
    assert_eq!(text(&panels()[0], "pre"), "RuntimeError: in a future");
    panels()[0].remove();
}

//! Browser tests of embedding: embed mode, the postMessage API, and the share dialog.
#![cfg(target_arch = "wasm32")]

use gloo::timers::future::TimeoutFuture;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

mod web_common;
use web_common::*;

/// Sets `location.search` (without reloading) and the hash; fresh storage and root.
fn embed_page(search: &str, hash: &str) -> Element {
    let root = fresh(hash);
    let w = web_sys::window().unwrap();
    let url = format!(
        "{}{search}{}",
        w.location().pathname().unwrap(),
        w.location().hash().unwrap()
    );
    w.history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        .unwrap();
    root
}

#[wasm_bindgen_test]
async fn embed_mode_shows_the_chosen_section_without_navigation() {
    let _x = Exclusive::acquire().await;
    let root = embed_page("?embed=1&section=9", "");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    assert!(query(&root, "nav.toc").is_none(), "no table of contents");
    assert!(query(&root, "header.topbar").is_none(), "no site header");
    assert!(query(&root, ".pager").is_none(), "no previous/next");
    assert_eq!(
        query(&root, "article.section")
            .and_then(|a| a.get_attribute("data-section-id"))
            .as_deref(),
        Some("fencing-tokens")
    );
    reset_search();
}

#[wasm_bindgen_test]
async fn embed_a_single_scenario_with_chosen_controls() {
    let _x = Exclusive::acquire().await;
    let root = embed_page(
        "?embed=1&show=scenario&section=3&controls=play,scrub&theme=dark",
        "",
    );
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the scenario alone", move || {
        query(&r, "section.scenario svg").is_some()
    })
    .await;
    assert!(query(&root, "article.section").is_none(), "only the scenario");
    assert!(query(&root, "button[aria-label=Play]").is_some());
    assert!(query(&root, ".scrub").is_some());
    assert!(
        query(&root, "button[aria-label='Step back']").is_none(),
        "steps were not asked for"
    );
    assert!(query(&root, ".console-input").is_none(), "nor the console");
    let theme = document()
        .document_element()
        .and_then(|h| h.get_attribute("data-theme"));
    assert_eq!(theme.as_deref(), Some("dark"));
    reset_search();
    document()
        .document_element()
        .unwrap()
        .remove_attribute("data-theme")
        .unwrap();
}

#[wasm_bindgen_test]
async fn messages_go_to_the_named_origin_and_goto_is_obeyed() {
    let _x = Exclusive::acquire().await;
    let origin = web_sys::window().unwrap().location().origin().unwrap();
    let (got, _listener) = collect_messages();
    let root = embed_page(&format!("?embed=1&show=quiz&section=2&origin={origin}"), "");
    let _app = Mounted::new(&root);
    let g = got.clone();
    wait_until("ready and section", move || {
        let m = g.borrow();
        m.iter().any(|s| s.contains("\"type\":\"ready\""))
            && m.iter().any(|s| s.contains("\"type\":\"section\""))
    })
    .await;
    assert!(
        got.borrow().iter().all(|s| s.contains("\"source\":\"lockstep\"")),
        "{:?}",
        got.borrow()
    );
    // Answer a question: an `answer` message says which and whether it was right.
    let r = root.clone();
    wait_until("a question", move || {
        query(&r, "form.question input[type=radio]").is_some()
    })
    .await;
    let form = query_all(&root, "form.question")
        .into_iter()
        .find(|f| query(f, "input[type=radio]").is_some())
        .unwrap();
    query_all(&form, "input[type=radio]")[0]
        .clone()
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
    TimeoutFuture::new(30).await;
    click(&form, "button.q-check");
    let g = got.clone();
    wait_until("an answer message", move || {
        g.borrow().iter().any(|s| s.contains("\"type\":\"answer\""))
    })
    .await;
    // The host says goto section 5: the embedded page follows.
    let goto = js_sys::JSON::parse(r#"{"source":"lockstep-host","type":"goto","section":5}"#).unwrap();
    web_sys::window().unwrap().post_message(&goto, &origin).unwrap();
    let g = got.clone();
    wait_until("the section message for 5", move || {
        g.borrow().iter().any(|s| s.contains("\"section\":5"))
    })
    .await;
    // A section the lesson lacks: ignored, not "page not found". A message posted after
    // it arrives after the app has handled it.
    let goto = js_sys::JSON::parse(r#"{"source":"lockstep-host","type":"goto","section":99}"#).unwrap();
    web_sys::window().unwrap().post_message(&goto, &origin).unwrap();
    let after = js_sys::JSON::parse(r#"{"source":"lockstep-test","type":"after-99"}"#).unwrap();
    web_sys::window().unwrap().post_message(&after, &origin).unwrap();
    let g = got.clone();
    wait_until("the message after goto 99", move || {
        g.borrow().iter().any(|s| s.contains("after-99"))
    })
    .await;
    TimeoutFuture::new(100).await;
    assert!(
        query(&root, ".not-found").is_none(),
        "goto 99 opened 'Page not found'"
    );
    assert!(
        query(&root, "section.quiz").is_some(),
        "still section 5's questions"
    );
    reset_search();
}

#[wasm_bindgen_test]
async fn other_origins_get_nothing_and_are_ignored() {
    let _x = Exclusive::acquire().await;
    // Messages an earlier test's page posted (to "*") may still be on their way: let
    // them arrive before listening.
    TimeoutFuture::new(200).await;
    let (got, _listener) = collect_messages();
    let root = embed_page("?embed=1&section=2&origin=https://other.example", "");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    // A goto from this page (not https://other.example) must be ignored.
    let origin = web_sys::window().unwrap().location().origin().unwrap();
    let goto = js_sys::JSON::parse(r#"{"source":"lockstep-host","type":"goto","section":7}"#).unwrap();
    web_sys::window().unwrap().post_message(&goto, &origin).unwrap();
    TimeoutFuture::new(300).await;
    assert_eq!(
        query(&root, "article.section")
            .and_then(|a| a.get_attribute("data-section-id"))
            .as_deref(),
        Some("set-nx-px")
    );
    // Everything the app sent went to https://other.example, so this window saw only the goto it posted.
    assert!(
        got.borrow().iter().all(|s| s.contains("lockstep-host")),
        "{:?}",
        got.borrow()
    );
    reset_search();
}

#[wasm_bindgen_test]
async fn the_share_dialog_offers_the_exact_link_and_an_iframe() {
    let _x = Exclusive::acquire().await;
    let root = fresh("#/distributed-locks/3?scenario=unsafe-del&seed=7&t=12300");
    let _app = Mounted::new(&root);
    mounted(&root).await;
    click(&root, "#share-button");
    let r = root.clone();
    wait_until("the dialog", move || query(&r, "[role=dialog]").is_some()).await;
    let dialog = query(&root, "[role=dialog]").unwrap();
    assert_eq!(dialog.get_attribute("aria-modal").as_deref(), Some("true"));
    let link: web_sys::HtmlInputElement = query(&dialog, "#share-link").unwrap().dyn_into().unwrap();
    assert!(
        link.value().contains("scenario=unsafe-del") && link.value().contains("seed=7"),
        "{}",
        link.value()
    );
    let snippet: web_sys::HtmlTextAreaElement = query(&dialog, "#share-embed").unwrap().dyn_into().unwrap();
    assert!(
        snippet.value().starts_with("<iframe src=") && snippet.value().contains("embed=1"),
        "{}",
        snippet.value()
    );
    assert!(snippet.value().contains("title="));
    let before_hash = link.value().split('#').next().unwrap_or_default().to_string();
    assert!(
        !before_hash.contains("scenario="),
        "the state is in the hash: {}",
        link.value()
    );
    // The embed's choices: only the scenario, without its console, in dark colours.
    let legends: Vec<String> = query_all(&dialog, "fieldset legend")
        .iter()
        .filter_map(|l| l.text_content())
        .collect();
    assert_eq!(legends, ["What the embed shows", "Scenario controls it offers"]);
    assert!(
        query(&dialog, "input[name=share-show][value=lab]").is_some(),
        "§3 has a lab to embed alone"
    );
    click(&dialog, "input[name=share-show][value=scenario]");
    click(&dialog, "input[name=share-control][value=console]");
    let theme: web_sys::HtmlSelectElement = query(&dialog, "#share-theme").unwrap().dyn_into().unwrap();
    theme.set_value("dark");
    theme
        .dispatch_event(&web_sys::Event::new("change").unwrap())
        .unwrap();
    let d = dialog.clone();
    wait_until("the snippet follows the choices", move || {
        let v = query(&d, "#share-embed")
            .and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
            .map(|t| t.value())
            .unwrap_or_default();
        v.contains("show=scenario")
            && v.contains("theme=dark")
            && v.contains("controls=play,step,scrub,speed,seed,zoom,faults,editor")
    })
    .await;
    let snippet: web_sys::HtmlTextAreaElement = query(&dialog, "#share-embed").unwrap().dyn_into().unwrap();
    assert!(
        snippet
            .value()
            .contains("#/distributed-locks/3?scenario=unsafe-del&amp;seed=7")
            || snippet
                .value()
                .contains("#/distributed-locks/3?scenario=unsafe-del&seed=7"),
        "{}",
        snippet.value()
    );
    // The snippet lets the embedded page copy, and §3's lab can be embedded alone.
    assert!(
        snippet.value().contains("allow=\"clipboard-write\""),
        "{}",
        snippet.value()
    );
    click(&dialog, "input[name=share-show][value=lab]");
    let d = dialog.clone();
    wait_until("the snippet embeds the lab alone", move || {
        let v = query(&d, "#share-embed")
            .and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
            .map(|t| t.value())
            .unwrap_or_default();
        v.contains("show=lab") && v.contains("lab=safe-release")
    })
    .await;
    // Copy says what happened: copied, or refused by the browser (a test page's document
    // may not have the focus the clipboard asks for), then the text is selected to copy.
    let copy = query_all(&dialog, ".copy-row button")
        .into_iter()
        .next()
        .expect("the link's Copy");
    copy.dyn_ref::<HtmlElement>().expect("a button").click();
    let c = copy.clone();
    wait_until("copy answers", move || {
        matches!(c.text_content().as_deref(), Some("Copied" | "Not copied"))
    })
    .await;
    let said = query(&dialog, ".copy-blocked")
        .and_then(|p| p.text_content())
        .unwrap_or_default();
    if copy.text_content().as_deref() == Some("Not copied") {
        assert!(said.contains("may not use the clipboard"), "{said}");
        let active = document().active_element().map(|e| e.id());
        assert_eq!(
            active.as_deref(),
            Some("share-link"),
            "the link is selected to copy"
        );
    } else {
        assert!(said.is_empty(), "{said}");
    }
    // Escape closes it.
    press_key(&link, "Escape");
    let r = root.clone();
    wait_until("the dialog closes", move || query(&r, "[role=dialog]").is_none()).await;
}

//! Browser tests of lesson packs: a good pack loads, a broken one lists every mistake,
//! and a pack full of injection attempts renders as inert text.
#![cfg(target_arch = "wasm32")]

use lockstep::lesson::pack::load_files;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

mod web_common;
use web_common::*;

macro_rules! files {
    ($dir:literal: $($path:literal),* $(,)?) => {
        vec![$(($path.to_string(), include_str!(concat!("../packs/", $dir, "/", $path)).to_string())),*]
    };
}

fn example() -> Vec<(String, String)> {
    files!("example": "pack.toml", "sections/en/01-lease.md", "sections/en/02-renew.md", "sections/nb/01-lease.md",
        "sections/nb/02-renew.md", "quiz/01-lease.toml", "quiz/02-renew.toml", "scenarios/lease-short.toml")
}

fn broken() -> Vec<(String, String)> {
    files!("broken": "pack.toml", "sections/en/01-start.md", "sections/en/02-more.md", "sections/nb/01-start.md",
        "sections/nb/02-more.md", "quiz/01-start.toml", "quiz/02-more.toml", "quiz/03-unlisted.toml",
        "scenarios/taken-name.toml", "scenarios/bad-type.toml")
}

fn xss() -> Vec<(String, String)> {
    files!("xss": "pack.toml", "sections/en/01-attempts.md", "sections/en/02-more.md", "quiz/01-attempts.toml",
        "scenarios/xss-names.toml")
}

/// Puts `files` where a learner's chosen files go and opens the page with `?pack=local`.
fn open_local(files: &[(String, String)]) -> Element {
    let root = fresh("");
    let w = web_sys::window().unwrap();
    w.session_storage()
        .unwrap()
        .unwrap()
        .set_item("lockstep.pack.files", &lockstep::wire::to_text(files).unwrap())
        .unwrap();
    let _ = w
        .session_storage()
        .unwrap()
        .unwrap()
        .remove_item("lockstep.pack.skipped");
    let url = format!("{}?pack=local", w.location().pathname().unwrap());
    w.history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        .unwrap();
    root
}

#[wasm_bindgen_test]
async fn the_example_pack_loads_with_its_sections_and_scenario() {
    let _x = Exclusive::acquire().await;
    let files = example();
    let pack = load_files(&files).expect("the example pack is valid");
    let root = open_local(&files);
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let lesson = pack
        .lesson(lockstep::lesson::content::Lang::En)
        .expect("an English lesson");
    assert_eq!(heading(&root), lesson.sections[0].title);
    let links = query_all(&root, "nav.toc ol a");
    assert_eq!(links.len(), lesson.sections.len());
    assert_eq!(links[0].get_attribute("href"), Some(format!("#/{}/1", pack.id)));
    reset_search();
}

#[wasm_bindgen_test]
async fn a_broken_pack_lists_every_mistake_with_file_and_line() {
    let _x = Exclusive::acquire().await;
    let files = broken();
    let expected = load_files(&files).expect_err("the broken pack is broken");
    let root = open_local(&files);
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the error list", move || {
        query(&r, ".content-errors li").is_some()
    })
    .await;
    let items = query_all(&root, ".content-errors li");
    assert_eq!(items.len(), expected.len(), "all mistakes at once");
    assert!(items.len() >= 5);
    let first = items[0].text_content().unwrap_or_default();
    assert_eq!(first, expected[0].to_string());
    assert!(
        query(&root, ".content-errors")
            .and_then(|e| e.get_attribute("role"))
            .as_deref()
            == Some("alert")
    );
    reset_search();
}

#[wasm_bindgen_test]
async fn the_xss_pack_renders_as_inert_text() {
    let _x = Exclusive::acquire().await;
    let files = xss();
    let root = open_local(&files);
    let _app = Mounted::new(&root);
    mounted(&root).await;
    for n in 1..=2 {
        web_sys::window()
            .unwrap()
            .location()
            .set_hash(&format!("#/{}/{n}", load_files(&files).expect("loads").id))
            .unwrap();
        gloo::timers::future::TimeoutFuture::new(100).await;
        for tag in [
            "script",
            "img",
            "iframe",
            "object",
            "embed",
            "style",
            "svg a",
            "form[action]",
        ] {
            assert!(
                query(&root, &format!("article {tag}")).is_none(),
                "a <{tag}> got into section {n}"
            );
        }
        for a in query_all(&root, "a[href]") {
            let href = a.get_attribute("href").unwrap_or_default().to_ascii_lowercase();
            assert!(
                href.starts_with("http") || href.starts_with('#'),
                "unsafe link {href}"
            );
        }
        for el in query_all(&root, "article *") {
            let attrs = el.get_attribute_names();
            for i in 0..attrs.length() {
                let name = attrs.get(i).as_string().unwrap_or_default();
                assert!(
                    !name.starts_with("on"),
                    "an event handler attribute {name} in section {n}"
                );
            }
        }
    }
    let text = query(&root, "article")
        .and_then(|a| a.text_content())
        .unwrap_or_default();
    assert!(text.contains('<'), "the attempts are shown as text");
    reset_search();
}

#[wasm_bindgen_test]
async fn a_pack_loads_from_an_address() {
    let _x = Exclusive::acquire().await;
    let single = include_str!("../packs/single/lease-mini.toml");
    let pack = load_files(&[("lease-mini.toml".to_string(), single.to_string())])
        .expect("the single-file pack is valid");
    let root = fresh("");
    let w = web_sys::window().unwrap();
    let encoded = js_sys::encode_uri_component(&format!(
        "data:text/plain;charset=utf-8,{}",
        js_sys::encode_uri_component(single)
    ));
    let url = format!(
        "{}?pack={}",
        w.location().pathname().unwrap(),
        String::from(encoded)
    );
    w.history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        .unwrap();
    let _app = Mounted::new(&root);
    mounted(&root).await;
    let lesson = pack.lesson(lockstep::lesson::content::Lang::En).expect("English");
    assert_eq!(heading(&root), lesson.sections[0].title);
    reset_search();
}

#[wasm_bindgen_test]
async fn a_one_language_pack_is_read_in_its_language_without_a_switch() {
    let _x = Exclusive::acquire().await;
    // An English-only pack whose question has English texts only, opened by a reader
    // who asked for Norwegian.
    let pack = "id = \"en-only\"\nlanguages = [\"en\"]\ntitle = { en = \"English only\" }\n\
        [[section]]\nlang = \"en\"\nid = \"intro\"\ntitle = \"Leases in English\"\norder = 1\nbody = '''\nText.\n'''\n\
        [[question]]\nid = \"q-en\"\nsection = \"intro\"\nkind = \"single\"\ncorrect = [0]\n\
        [question.en]\nprompt = \"Which one?\"\noptions = [\"This\", \"That\"]\nexplanations = [\"Yes.\", \"No.\"]\n";
    let files = vec![("en-only.toml".to_string(), pack.to_string())];
    load_files(&files).expect("valid with English texts only");
    let root = open_local(&files);
    set_search("?pack=local&lang=nb");
    let w = web_sys::window().unwrap();
    let _app = Mounted::new(&root);
    mounted(&root).await;
    assert_eq!(heading(&root), "Leases in English");
    assert!(query(&root, ".lang-switch").is_none(), "nothing to switch to");
    let html_lang = w
        .document()
        .unwrap()
        .document_element()
        .unwrap()
        .get_attribute("lang");
    assert_eq!(
        html_lang.as_deref(),
        Some("en"),
        "the page says what language it is in"
    );
    let legend = query(&root, "form[data-question-id=\"q-en\"] legend").and_then(|l| l.text_content());
    assert_eq!(legend.as_deref(), Some("Which one?"));
    // The app's own texts are English too (the Check button).
    let check = query(&root, "button.q-check").and_then(|b| b.text_content());
    assert_eq!(check.as_deref(), Some("Check"));
    reset_search();
}

#[wasm_bindgen_test]
async fn a_deeply_nested_pack_shows_its_error_not_a_stuck_page() {
    let _x = Exclusive::acquire().await;
    // 1 000 `>` on one line ran the page out of stack ("memory access out of bounds")
    // and left it on "Loading the lesson pack…".
    let single = format!(
        "id = \"deep\"\nlanguages = [\"en\"]\ntitle = {{ en = \"Deep\" }}\n[[section]]\nlang = \"en\"\n\
         id = \"s\"\ntitle = \"S\"\norder = 1\nbody = '''\nFine.\n\n{} x\n'''\n",
        ">".repeat(1_000)
    );
    let expected = load_files(&[("deep.toml".to_string(), single.clone())]).expect_err("too deep");
    assert_eq!(expected.len(), 1);
    let root = fresh("");
    let w = web_sys::window().unwrap();
    let encoded = js_sys::encode_uri_component(&format!(
        "data:text/plain;charset=utf-8,{}",
        js_sys::encode_uri_component(&single)
    ));
    let url = format!(
        "{}?pack={}",
        w.location().pathname().unwrap(),
        String::from(encoded)
    );
    w.history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        .unwrap();
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the error list", move || {
        query(&r, ".content-errors li").is_some()
    })
    .await;
    let items = query_all(&root, ".content-errors li");
    assert_eq!(items.len(), 1);
    let text = items[0].text_content().unwrap_or_default();
    // The same error as natively, whatever the page calls the fetched file.
    let tail = expected[0].to_string();
    let tail = tail.split_once(":12:").map(|(_, t)| t).unwrap_or("?");
    assert!(text.contains(&format!(":12:{tail}")), "{text}");
    assert!(
        tail.starts_with(" body: Markdown nested 33 levels deep"),
        "{tail}"
    );
    // The page is alive: the error is in view, nothing is loading any more.
    let page = root.text_content().unwrap_or_default();
    assert!(!page.contains("Loading the lesson pack"), "{page}");
    reset_search();
}

/// Issue #20: a pack address that answers 404 left "The lesson files have mistakes:
/// HTTP 404" and nothing else. It says what failed and offers the built-in lesson.
#[wasm_bindgen_test]
async fn a_pack_address_that_answers_404_offers_the_built_in_lesson() {
    let _x = Exclusive::acquire().await;
    let root = fresh("");
    set_search("?lang=nb&pack=no-such-folder/pack.toml");
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the pack's failure", move || query(&r, "main h1").is_some()).await;
    assert_eq!(text(&root, "main h1"), "Denne leksjonspakken kunne ikke åpnes");
    assert!(text(&root, "main").contains("no-such-folder/pack.toml"));
    assert!(
        text(&root, ".content-errors li").contains("HTTP 404"),
        "{}",
        text(&root, "main")
    );
    assert_eq!(
        query(&root, ".content-errors")
            .and_then(|e| e.get_attribute("role"))
            .as_deref(),
        Some("alert")
    );
    assert!(query(&root, "header .brand-name").is_some(), "a header");
    let path = web_sys::window().unwrap().location().pathname().unwrap();
    let builtin = query(&root, "main a")
        .and_then(|a| a.get_attribute("href"))
        .expect("a way to the built-in lesson");
    assert_eq!(
        builtin,
        format!("{path}?lang=nb"),
        "the same page without the pack"
    );
    reset_search();
}

/// Issue #21: a pack address whose file is huge (or never ends) was downloaded whole
/// before its size was checked. A declared length over the limit is refused before a byte
/// is read; a body without one (a stream) is read chunk by chunk and given up on past
/// the limit.
#[wasm_bindgen_test]
async fn a_file_over_the_size_limit_is_not_downloaded_whole() {
    use lockstep::ui::pack_loader::{fetch_text, read_bounded, FetchError};
    let whole = 6 * 1024 * 1024;
    let limit = 1024 * 1024;
    let bytes = js_sys::Uint8Array::new_with_length(whole as u32);
    bytes.fill(b'x', 0, whole as u32);
    let parts = js_sys::Array::of1(&bytes);
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).unwrap();
    let url = web_sys::Url::create_object_url_with_blob(&blob).unwrap();
    match fetch_text(&url, limit).await {
        Err(FetchError::TooBig { read }) => assert_eq!(read, 0, "read before refusing"),
        Err(FetchError::Failed(m)) => panic!("failed instead: {m}"),
        Ok(t) => panic!("read all {} bytes", t.len()),
    }
    // Within the limit, the same address is read whole.
    match fetch_text(&url, whole).await {
        Ok(t) => assert_eq!(t.len(), whole),
        Err(_) => panic!("a file within the limit was refused"),
    }
    let _ = web_sys::Url::revoke_object_url(&url);
    // A body of unknown length that never ends, 64 KiB a chunk: reading stops within one
    // chunk past the limit (a loader that reads the whole body never returns).
    let endless = js_sys::Function::new_no_args(
        "return new ReadableStream({ pull(c) { c.enqueue(new Uint8Array(65536).fill(120)); } });",
    )
    .call0(&wasm_bindgen::JsValue::NULL)
    .unwrap();
    let streamed = web_sys::Response::new_with_opt_readable_stream(Some(&endless.unchecked_into())).unwrap();
    match read_bounded(&streamed, limit).await {
        Err(Some(FetchError::TooBig { read })) => {
            assert!(read > limit, "stopped at {read}, before the limit");
            assert!(
                read <= limit + 65536,
                "read {read} bytes, more than a chunk past the limit"
            );
        }
        Err(_) => panic!("the stream failed"),
        Ok(b) => panic!("an endless stream ended after {} bytes", b.len()),
    }
}

/// A chosen file too large to read is named with its limit, and what depends on it
/// (its section) does not turn into more errors.
#[wasm_bindgen_test]
async fn a_chosen_file_too_large_to_read_is_named() {
    let _x = Exclusive::acquire().await;
    let files = example();
    let big = files
        .iter()
        .find(|(p, _)| p.starts_with("sections/en/"))
        .map(|(p, _)| p.clone())
        .unwrap();
    let kept: Vec<(String, String)> = files.into_iter().filter(|(p, _)| *p != big).collect();
    let root = open_local(&kept);
    let reason = "it is larger than 2097152 bytes, the most a pack file may be; not downloaded further";
    web_sys::window()
        .unwrap()
        .session_storage()
        .unwrap()
        .unwrap()
        .set_item(
            "lockstep.pack.skipped",
            &lockstep::wire::to_text(&[(big.clone(), reason.to_string())][..]).unwrap(),
        )
        .unwrap();
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the pack's errors", move || {
        query(&r, ".content-errors li").is_some()
    })
    .await;
    let errors = text(&root, ".content-errors");
    assert!(
        errors.contains(&format!("{big}:1: file: cannot read: {reason}")),
        "{errors}"
    );
    assert!(!errors.contains("listed but was not found"), "{errors}");
    let _ = web_sys::window()
        .unwrap()
        .session_storage()
        .unwrap()
        .unwrap()
        .remove_item("lockstep.pack.skipped");
    reset_search();
}

macro_rules! fixture {
    ($dir:literal: $($path:literal),* $(,)?) => {
        vec![$(($path.to_string(), include_str!(concat!("fixtures/packs/", $dir, "/", $path)).to_string())),*]
    };
}

#[wasm_bindgen_test]
async fn a_packs_own_lab_shows_in_its_section_and_runs_with_the_packs_driver() {
    let _x = Exclusive::acquire().await;
    storage().clear().ok();
    let files = fixture!("lab-ok": "pack.toml", "sections/en/01-team.md", "labs/team-lock/lab.toml",
        "labs/team-lock/scenario.toml", "labs/team-lock/driver.js", "labs/team-lock/starter.js",
        "labs/team-lock/solution.js");
    let pack = load_files(&files).expect("the fixture pack is valid");
    let lab = pack.lab("team-lock").expect("its lab");
    // Only what every lab shares comes from the app's labs/: the driver and solution are
    // the pack's (nothing preloads labs/team-lock/, which the app does not have).
    lockstep::ui::lab::preload("harness.js", include_str!("../labs/harness.js"));
    lockstep::ui::lab::preload("sandbox.html", include_str!("../labs/sandbox.html"));
    let root = open_local(&files);
    let _app = Mounted::new(&root);
    let r = root.clone();
    wait_until("the pack's lab", move || {
        query(&r, "section.lab[data-lab=team-lock] textarea").is_some()
    })
    .await;
    let p = query(&root, "section.lab[data-lab=team-lock]").expect("the lab panel");
    assert_eq!(text(&p, "h2"), "Lab: the team's lock");
    assert!(
        text(&p, "p").starts_with("Write acquire and release for the team's lock"),
        "{}",
        text(&p, "p")
    );
    let editor = query(&p, "textarea.lab-editor").expect("an editor");
    let shown = editor
        .dyn_ref::<web_sys::HtmlTextAreaElement>()
        .map(|t| t.value());
    assert_eq!(shown.as_deref(), Some(lab.starter.as_str()), "the pack's starter");
    // The built-in lab in the same section still shows.
    assert!(query(&root, "section.lab[data-lab=set-nx]").is_some());

    type_into(&editor, &lab.solution).await;
    let run = query_all(&p, ".lab-actions button")
        .into_iter()
        .find(|b| b.text_content().unwrap_or_default() == "Run")
        .expect("Run");
    run.dyn_ref::<web_sys::HtmlElement>().expect("a button").click();
    let q = p.clone();
    wait_long("a verdict", move || query(&q, ".lab-verdict").is_some()).await;
    let verdict = text(&p, ".lab-verdict");
    assert!(
        verdict.contains("Every check held in this run (seed 1)"),
        "{verdict}"
    );
    // Its solution is the pack's, shown without a fetch.
    let show = query_all(&p, ".lab-actions button")
        .into_iter()
        .find(|b| b.text_content().unwrap_or_default() == "Show a solution")
        .expect("the solution button");
    show.dyn_ref::<web_sys::HtmlElement>().expect("a button").click();
    let q = p.clone();
    wait_until("the solution", move || query(&q, ".lab-solution").is_some()).await;
    assert!(
        text(&p, ".lab-solution").contains("fixture pack's \"team-lock\" lab"),
        "{}",
        text(&p, ".lab-solution")
    );
    storage().clear().ok();
    reset_search();
}

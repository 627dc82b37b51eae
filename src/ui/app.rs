//! The root component: owns the reader state, syncs it with the URL and storage, and
//! lays out the page (header, contents, section, pager).

use crate::lesson::boot_rules::{NEXT_KEYS, PREV_KEYS};
use crate::lesson::content::Lang;
use crate::lesson::embed::{EmbedConfig, Show};
use crate::lesson::i18n::{k, Texts};
use crate::lesson::progress::{LabOutcome, Score};
use crate::lesson::progress::{Progress, LANG_KEY, LEGACY_PROGRESS_KEYS, PROGRESS_KEY};
use crate::lesson::route::{
    hash_route, query_param, repair_url, with_query_param, without_query_param, Route,
};
use crate::lesson::state::{Action, Lessons, Notice, ReaderState, View};
use crate::ui::browser;
use crate::ui::components::{
    content_errors_view, lang_switch_view, notices_view, pack_failed_view, pager_view, toc_view,
    ContentErrorsProps, LangSwitchProps, NoticesProps, PackFailedProps, PagerProps, ProgressPage, Quiz,
    SectionView, ShareDialog, TocProps,
};
use crate::ui::embed;
use crate::ui::pack_loader;
use crate::ui::scenario::PackScenarios;
use gloo::events::EventListener;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// yew's wrapper around the pure reducer in `lesson::state`.
#[derive(Clone, PartialEq)]
struct Reader(ReaderState);

impl Reducible for Reader {
    type Action = Action;
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let next = self.0.reduce(action);
        sync_hash(&next, true);
        Rc::new(Reader(next))
    }
}

/// State → URL: the hash names the route shown (a new history entry with `push`, so the
/// back button returns). Done with the transition, before anything is drawn, so a
/// scenario panel that writes its state after the route finds the right route there.
/// What follows the route (a scenario's state) is kept while the route stays.
fn sync_hash(s: &ReaderState, push: bool) {
    let Some(want) = s.hash() else { return };
    if hash_route(&browser::hash()) != hash_route(&want) {
        if push {
            browser::set_hash(&want);
        } else {
            browser::replace_hash(&want);
        }
    }
}

/// A link an older version corrupted (`?lang=nb?scenario=…`) gets its query back, and
/// the scenario's state moves into the hash; any other query is left exactly as opened.
fn repair_address() {
    if let Some((search, hash)) = repair_url(&browser::search(), &browser::hash()) {
        browser::replace_search_and_hash(&search, &hash);
    }
}

/// The language at start-up: `?lang=` wins (and is remembered), then the remembered
/// choice, then the browser's.
pub(crate) fn initial_lang() -> Lang {
    let asked = query_param(&browser::search(), "lang").and_then(|c| Lang::from_code(&c));
    if let Some(lang) = asked {
        let _ = browser::storage_set(LANG_KEY, lang.code());
    }
    asked
        .or_else(|| {
            browser::storage_get(LANG_KEY)
                .ok()
                .flatten()
                .and_then(|c| Lang::from_code(&c))
        })
        .or_else(|| browser::navigator_language().and_then(|c| Lang::from_code(&c)))
        .unwrap_or(Lang::En)
}

/// The built-in lesson, as a pack: compiled at build time and checked there (and by
/// `tests/pack.rs`) by the loader an instructor's pack goes through.
fn load_lessons() -> Result<Lessons, Vec<String>> {
    let pack = crate::lesson::pack::builtin_compiled();
    pack.reader_lessons()
        .ok_or_else(|| vec!["the built-in lesson has no sections".to_string()])
}

#[function_component(App)]
pub fn app() -> Html {
    // The first frame is in the page: the loader may now hand focus and clicks over.
    use_effect_with((), |_| browser::announce_ready());
    // `?pack=<url>` (or `?pack=local` for files the learner chose) swaps the lesson.
    let pack = use_memo((), |_| {
        query_param(&browser::search(), "pack").filter(|p| !p.trim().is_empty())
    });
    if let Some(source) = pack.as_ref() {
        return html! { <PackApp source={source.clone()} /> };
    }
    match load_lessons() {
        Ok(lessons) => html! { <Reader_ lessons={Rc::new(lessons)} /> },
        Err(errors) => content_errors_view(&ContentErrorsProps { errors }),
    }
}

#[derive(Clone, PartialEq)]
enum PackLoad {
    Loading,
    Ready(Rc<Lessons>, PackScenarios, crate::ui::lab::PackLabs),
    Failed(Vec<String>),
}

#[derive(Properties, PartialEq)]
struct PackAppProps {
    source: String,
}

/// A lesson pack: fetched and validated first; every mistake is listed at once.
#[function_component(PackApp)]
fn pack_app(props: &PackAppProps) -> Html {
    let load = use_state(|| PackLoad::Loading);
    {
        let load = load.clone();
        use_effect_with(props.source.clone(), move |source| {
            let source = source.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let result = if source == "local" {
                    pack_loader::from_session().await
                } else {
                    pack_loader::from_url(&source).await
                };
                load.set(match result {
                    Ok(pack) => match pack.reader_lessons() {
                        Some(lessons) => PackLoad::Ready(
                            Rc::new(lessons),
                            PackScenarios(Rc::new(pack.scenarios.clone())),
                            crate::ui::lab::PackLabs(Rc::new(
                                pack.labs.iter().map(|l| l.lab.clone()).collect(),
                            )),
                        ),
                        None => PackLoad::Failed(vec![format!("{source}: the pack has no sections")]),
                    },
                    Err(errors) => PackLoad::Failed(errors),
                });
            });
        });
    }
    match &*load {
        PackLoad::Loading => html! { <p class="loading" role="status">{ "Loading the lesson pack…" }</p> },
        PackLoad::Failed(errors) => {
            // The built-in lesson: this page without `pack=` (and without the pack's route).
            let path = web_sys::window()
                .and_then(|w| w.location().pathname().ok())
                .unwrap_or_default();
            let builtin = format!("{path}{}", without_query_param(&browser::search(), "pack"));
            pack_failed_view(&PackFailedProps {
                lang: initial_lang(),
                source: props.source.clone(),
                errors: errors.clone(),
                builtin,
            })
        }
        PackLoad::Ready(lessons, scenarios, labs) => html! {
            <ContextProvider<PackScenarios> context={scenarios.clone()}>
                <ContextProvider<crate::ui::lab::PackLabs> context={labs.clone()}>
                    <Reader_ lessons={lessons.clone()} />
                </ContextProvider<crate::ui::lab::PackLabs>>
            </ContextProvider<PackScenarios>>
        },
    }
}

#[derive(Properties, PartialEq)]
struct ReaderProps {
    lessons: Rc<Lessons>,
}

#[allow(non_camel_case_types)]
#[function_component(Reader_)]
fn reader(props: &ReaderProps) -> Html {
    let lessons = props.lessons.clone();
    let embed_cfg: Rc<EmbedConfig> = use_memo((), |_| EmbedConfig::from_query(&browser::search()));
    let start_section = embed_cfg.section;
    let state = use_reducer(move || initial_reader(lessons, start_section));
    let s = &state.0;
    let t = Texts::new(s.lang);

    use_embed_bridge(embed_cfg.clone(), state.dispatcher(), s);

    use_route_and_keys(state.dispatcher());

    use_document_effects(s, &t, state.dispatcher());
    use_read_at_end(s.current(), state.dispatcher());

    let Handlers {
        on_lang,
        on_answer,
        on_quick_done,
        on_embed_complete,
        on_import,
        on_reset,
        on_dismiss,
        on_prev,
        on_next,
    } = handlers(&state.dispatcher(), &embed_cfg);
    let lab_store = lab_store(&state, &embed_cfg);
    let menu_open = use_state(|| false);
    let toggle_menu = {
        let menu_open = menu_open.clone();
        Callback::from(move |_| menu_open.set(!*menu_open))
    };
    let close_menu = {
        let menu_open = menu_open.clone();
        Callback::from(move |_| menu_open.set(false))
    };

    let lesson = s.lesson();
    let main = match &s.view {
        View::Section(order) => match lesson.section(*order) {
            Some(section) => html! {
                <>
                    <SectionView key={section.id.clone()} lessons={s.lessons.clone()} lang={s.lang} order={section.order} />
                    <Quiz key={format!("{}-{}", section.id, s.lang.code())}
                          lessons={s.lessons.clone()} lang={s.lang} section_id={section.id.clone()}
                          progress={s.progress.clone()} on_answer={on_answer.clone()}
                          on_complete={(lesson.next_order(*order).is_none()).then(|| on_quick_done.clone())} />
                    { pager_view(&PagerProps {
                        lang: s.lang,
                        prev: lesson.prev_order(*order).and_then(|o| lesson.section(o)).map(|x| x.title.clone()),
                        next: lesson.next_order(*order).and_then(|o| lesson.section(o)).map(|x| x.title.clone()),
                        on_prev: on_prev.clone(),
                        on_next: on_next.clone(),
                    }) }
                </>
            },
            None => html! {},
        },
        View::Progress => html! {
            <ProgressPage lessons={s.lessons.clone()} lang={s.lang} progress={s.progress.clone()} {on_import} {on_reset} outcome={s.outcome.clone()} />
        },
        View::NotFound(hash) => html! {
            <article class="section not-found">
                <h1 id="section-title" tabindex="-1">{ t.t(k::NOT_FOUND_TITLE) }</h1>
                <p>{ t.t(k::NOT_FOUND_BODY) }{" "}<code>{ hash.clone() }</code></p>
                <p><a href={Route::section_hash(&lesson.id, lesson.first_order())}>{ t.t(k::NOT_FOUND_LINK) }</a></p>
            </article>
        },
    };

    if embed_cfg.embed {
        let body = match (&s.view, embed_cfg.show) {
            (View::Section(order), Show::Scenario) => {
                let names: Vec<String> = crate::lesson::pack::section_scenarios(lesson, *order);
                let key = names.join(" ");
                html! { <crate::ui::scenario::ScenarioPanel {key} {names} lang={s.lang} /> }
            }
            (View::Section(order), Show::Lab) => {
                match crate::lesson::pack::embedded_lab(lesson, *order, embed_cfg.lab.as_deref()) {
                    Some(id) => crate::ui::lab::host::lab_view(&id, s.lang),
                    None => main,
                }
            }
            (View::Section(order), show) => match lesson.section(*order) {
                Some(section) => html! {
                    <>
                        if show == Show::Section {
                            <SectionView key={section.id.clone()} lessons={s.lessons.clone()} lang={s.lang} order={section.order} />
                        }
                        <Quiz key={format!("{}-{}", section.id, s.lang.code())}
                              lessons={s.lessons.clone()} lang={s.lang} section_id={section.id.clone()}
                              progress={s.progress.clone()} on_answer={on_answer.clone()}
                              on_complete={Some(if lesson.next_order(*order).is_none() { on_quick_done.clone() } else { on_embed_complete.clone() })} />
                    </>
                },
                None => html! {},
            },
            _ => main,
        };
        return html! {
            <ContextProvider<Rc<EmbedConfig>> context={embed_cfg.clone()}>
            <ContextProvider<crate::ui::lab::LabStore> context={lab_store}>
                <main id="main" class="embedded" tabindex="-1">
                    { notices_view(&NoticesProps { notices: s.notices.clone(), lang: s.lang, on_dismiss: on_dismiss.clone() }) }
                    { body }
                </main>
            </ContextProvider<crate::ui::lab::LabStore>>
            </ContextProvider<Rc<EmbedConfig>>>
        };
    }

    html! {
        <ContextProvider<Rc<EmbedConfig>> context={embed_cfg.clone()}>
        <ContextProvider<crate::ui::lab::LabStore> context={lab_store}>
        <div class={classes!("layout", menu_open.then_some("menu-open"))}>
            <a class="skip-link" href="#main" onclick={Callback::from(|e: MouseEvent| {
                e.prevent_default();
                if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("main")).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
                    let _ = el.focus();
                }
            })}>{ t.t(k::SKIP_TO_CONTENT) }</a>
            <header class="topbar">
                <button class="menu-button" type="button" aria-expanded={menu_open.to_string()} aria-controls="toc" onclick={toggle_menu}>
                    { t.t(k::MENU) }
                </button>
                <div class="brand">
                    <span class="brand-name">{ t.t(k::APP_NAME) }</span>
                    <span class="brand-tagline">{ s.lessons.pack_title(s.lang).map_or_else(|| t.t(k::TAGLINE), str::to_string) }</span>
                </div>
                <ShareDialog lang={s.lang} labs={s.current().map(|o| crate::lesson::pack::section_labs(s.lesson(), o)).unwrap_or_default()} />
                if s.lessons.languages().len() > 1 {
                    { lang_switch_view(&LangSwitchProps { lang: s.lang, on_change: on_lang.clone() }) }
                }
            </header>
            { toc_view(&TocProps { lessons: s.lessons.clone(), current: s.current(), on_progress_page: s.view == View::Progress, progress: s.progress.clone(), lang: s.lang, on_navigate: close_menu.clone() }) }
            <main id="main" tabindex="-1">
                { notices_view(&NoticesProps { notices: s.notices.clone(), lang: s.lang, on_dismiss: on_dismiss.clone() }) }
                { main }
                <p class="shortcuts">{ t.t(k::SHORTCUTS) }</p>
            </main>
        </div>
        </ContextProvider<crate::ui::lab::LabStore>>
        </ContextProvider<Rc<EmbedConfig>>>
    }
}

/// The reader's callbacks: each dispatches its action (and tells an embedding host
/// what it asked to hear).
struct Handlers {
    on_lang: Callback<Lang>,
    on_answer: Callback<(String, bool)>,
    on_quick_done: Callback<Score>,
    on_embed_complete: Callback<Score>,
    on_import: Callback<String>,
    on_reset: Callback<()>,
    on_dismiss: Callback<usize>,
    on_prev: Callback<()>,
    on_next: Callback<()>,
}

fn handlers(dispatch: &UseReducerDispatcher<Reader>, cfg: &Rc<EmbedConfig>) -> Handlers {
    let on_lang = {
        let dispatch = dispatch.clone();
        Callback::from(move |lang: Lang| {
            let dispatch = dispatch.clone();
            // The language's words first (`crate::text`: a part of the lesson's text per
            // language); where they cannot come, the page stays in its language and says so.
            wasm_bindgen_futures::spawn_local(async move {
                match crate::ui::texts::load_texts(lang).await {
                    Err(e) => {
                        web_sys::console::warn_1(
                            &format!("Lockstep: no text in {}: {e}", lang.code()).into(),
                        );
                        dispatch.dispatch(Action::Notify(Notice::LanguageUnavailable(lang)));
                        return;
                    }
                    // The built-in lesson was made without these words: again, with them.
                    Ok(true) => {
                        if let Ok(lessons) = load_lessons() {
                            dispatch.dispatch(Action::Builtin(Rc::new(lessons)));
                        }
                    }
                    Ok(false) => {}
                }
                let _ = browser::storage_set(LANG_KEY, lang.code());
                browser::replace_search(&with_query_param(&browser::search(), "lang", lang.code()));
                dispatch.dispatch(Action::SetLang(lang));
            });
        })
    };
    let on_answer = {
        let dispatch = dispatch.clone();
        let cfg = cfg.clone();
        Callback::from(move |(question, correct): (String, bool)| {
            embed::send(
                &cfg,
                "answer",
                &[
                    ("question", question.as_str().into()),
                    ("correct", correct.into()),
                ],
            );
            dispatch.dispatch(Action::Answered { question, correct })
        })
    };
    let on_quick_done = {
        let dispatch = dispatch.clone();
        let cfg = cfg.clone();
        Callback::from(move |score: Score| {
            embed::send(
                &cfg,
                "complete",
                &[("correct", score.correct.into()), ("total", score.total.into())],
            );
            dispatch.dispatch(Action::QuickCheckDone(score))
        })
    };
    // An embedded section's questions all answered: tell the host (the quick check
    // also records its score, above).
    let on_embed_complete = {
        let cfg = cfg.clone();
        Callback::from(move |score: Score| {
            embed::send(
                &cfg,
                "complete",
                &[("correct", score.correct.into()), ("total", score.total.into())],
            );
        })
    };
    let on_import = {
        let dispatch = dispatch.clone();
        Callback::from(move |text: String| {
            let (progress, discarded) = Progress::load(Some(&text));
            if discarded.is_some() || text.trim().is_empty() {
                dispatch.dispatch(Action::Notify(Notice::ImportFailed));
            } else {
                dispatch.dispatch(Action::Import(progress));
            }
        })
    };
    let on_reset = {
        let dispatch = dispatch.clone();
        Callback::from(move |_| dispatch.dispatch(Action::ResetProgress))
    };
    let on_dismiss = {
        let dispatch = dispatch.clone();
        Callback::from(move |i: usize| dispatch.dispatch(Action::Dismiss(i)))
    };
    let on_prev = {
        let dispatch = dispatch.clone();
        Callback::from(move |_| dispatch.dispatch(Action::Prev))
    };
    let on_next = {
        let dispatch = dispatch.clone();
        Callback::from(move |_| dispatch.dispatch(Action::Next))
    };
    Handlers {
        on_lang,
        on_answer,
        on_quick_done,
        on_embed_complete,
        on_import,
        on_reset,
        on_dismiss,
        on_prev,
        on_next,
    }
}

/// What the labs keep in the learner's progress: their code, and which code passed when.
/// An embedding page hears each graded run: `{type: "lab", lab, outcome, passed, check}`.
fn lab_store(state: &UseReducerHandle<Reader>, cfg: &Rc<EmbedConfig>) -> crate::ui::lab::LabStore {
    let dispatch = state.dispatcher();
    let on_code =
        Callback::from(move |(lab, code): (String, String)| dispatch.dispatch(Action::LabCode { lab, code }));
    let dispatch = state.dispatcher();
    let cfg = cfg.clone();
    let on_run = Callback::from(
        move |(lab, outcome, broke): (String, LabOutcome, Option<String>)| {
            embed::send(
                &cfg,
                "lab",
                &[
                    ("lab", lab.as_str().into()),
                    ("outcome", outcome.word().into()),
                    ("passed", (outcome == LabOutcome::Passed).into()),
                    ("check", broke.map_or(wasm_bindgen::JsValue::NULL, Into::into)),
                ],
            );
            dispatch.dispatch(Action::LabRun {
                lab,
                outcome,
                today: browser::today(),
            })
        },
    );
    crate::ui::lab::LabStore {
        saved: Rc::new(
            state
                .0
                .progress
                .lesson(&state.0.lesson().id)
                .map(|l| l.labs.clone())
                .unwrap_or_default(),
        ),
        on_code,
        on_run,
    }
}

/// The reader as the page opens: the address repaired, progress loaded (an older
/// version's key migrated), the route from the embed link or the hash.
fn initial_reader(lessons: Rc<Lessons>, start_section: Option<u32>) -> Reader {
    repair_address();
    // The current key, else an older version's (migrated by `Progress::load`, then
    // written back under the current key by the save effect below, and removed).
    let stored = browser::storage_get(PROGRESS_KEY).map(|v| {
        v.or_else(|| {
            LEGACY_PROGRESS_KEYS.iter().find_map(|k| {
                let old = browser::storage_get(k).ok().flatten();
                if old.is_some() {
                    browser::storage_remove(k);
                }
                old
            })
        })
    });
    let (progress, discarded) = Progress::load(stored.clone().ok().flatten().as_deref());
    let route = match start_section {
        // `section=N` in an embed link wins over the hash.
        Some(order) => Route::Section {
            lesson: lessons.en.id.clone(),
            order,
        },
        None => Route::parse(&browser::hash()),
    };
    let mut s = ReaderState::new(lessons, initial_lang(), route, progress);
    if let Some(why) = discarded {
        s = s.reduce(Action::Notify(Notice::ProgressDiscarded(why)));
    }
    if stored.is_err() {
        s = s.reduce(Action::Notify(Notice::StorageUnavailable));
    }
    // No new history entry: `/` and the section it opens are one place.
    sync_hash(&s, false);
    Reader(s)
}

/// Embedding: theme, `ready`, the host's `goto`, `resize` as the content grows, and a
/// `section` message when the learner moves.
#[hook]
fn use_embed_bridge(embed_cfg: Rc<EmbedConfig>, dispatch: UseReducerDispatcher<Reader>, s: &ReaderState) {
    {
        let cfg = embed_cfg.clone();
        use_effect_with((), move |_| {
            browser::set_document_theme(cfg.theme.attr());
            embed::send(&cfg, "ready", &[]);
            let listener = embed::listen(&cfg, move |goto| {
                if let Some(order) = goto.section {
                    // A section the lesson lacks is ignored, not "page not found".
                    dispatch.dispatch(Action::Goto(order));
                }
                if let Some(step) = goto.step {
                    embed::dispatch_step(step);
                }
            });
            let reporter = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.body())
                .and_then(|b| embed::report_resizes((*cfg).clone(), &b));
            move || {
                drop(listener);
                drop(reporter);
            }
        });
    }
    {
        let cfg = embed_cfg.clone();
        let current = s.current();
        let id = current.and_then(|o| s.lesson().section(o)).map(|x| x.id.clone());
        use_effect_with(current, move |current| {
            if let Some(order) = current {
                embed::send(
                    &cfg,
                    "section",
                    &[
                        ("section", (*order).into()),
                        (
                            "id",
                            id.as_deref()
                                .map_or(wasm_bindgen::JsValue::NULL, wasm_bindgen::JsValue::from),
                        ),
                    ],
                );
            }
        });
    }
}

/// URL → state (links, the back button, a hand-edited address) and the section keys.
#[hook]
fn use_route_and_keys(dispatch: UseReducerDispatcher<Reader>) {
    // URL → state: links, the back button, a hand-edited address.
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let window = web_sys::window();
            let listener = window.map(|w| {
                EventListener::new(&w, "hashchange", move |_| {
                    dispatch.dispatch(Action::Route(Route::parse(&browser::hash())));
                })
            });
            move || drop(listener)
        });
    }

    // Keyboard: N/] next, P/[ previous; never while typing, never with modifiers,
    // and the arrow keys stay free for the timeline.
    {
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let document = web_sys::window().and_then(|w| w.document());
            let listener = document.map(|d| {
                EventListener::new(&d, "keydown", move |event| {
                    let Some(e) = event.dyn_ref::<KeyboardEvent>() else {
                        return;
                    };
                    if e.ctrl_key() || e.meta_key() || e.alt_key() || e.default_prevented() || is_typing(e) {
                        return;
                    }
                    let key = e.key();
                    if NEXT_KEYS.contains(&key.as_str()) {
                        dispatch.dispatch(Action::Next);
                    } else if PREV_KEYS.contains(&key.as_str()) {
                        dispatch.dispatch(Action::Prev);
                    }
                })
            });
            move || drop(listener)
        });
    }
}

/// State → the document: its language and title, the stored progress, and the focus on
/// a new section's heading.
#[hook]
fn use_document_effects(s: &ReaderState, t: &Texts, dispatch: UseReducerDispatcher<Reader>) {
    // State → document language and title (the URL follows in `Reader::reduce`).
    {
        let lang = s.lang;
        // A pack's page names the pack, not the built-in lesson.
        let name = match s.lessons.pack_title(s.lang) {
            Some(pack) => format!("{pack} · {}", t.t(k::APP_NAME)),
            None => t.t(k::APP_NAME),
        };
        let title = match s.current().and_then(|o| s.lesson().section(o)) {
            Some(sec) => format!("{} · {name}", sec.title),
            None => name,
        };
        use_effect_with((lang, title), move |(lang, title)| {
            browser::set_document_lang(lang.code());
            browser::set_title(title);
        });
    }

    // State → storage. A failed write is reported once, and the lesson carries on.
    {
        let progress = s.progress.clone();
        let dispatch = dispatch.clone();
        use_effect_with(progress, move |p| {
            if browser::storage_set(PROGRESS_KEY, &p.to_json()).is_err() {
                dispatch.dispatch(Action::Notify(Notice::StorageUnavailable));
            }
        });
    }

    // Moving to another section starts at its top with focus on its heading.
    {
        let current = s.current();
        let first = use_mut_ref(|| true);
        use_effect_with(current, move |_| {
            if std::mem::replace(&mut *first.borrow_mut(), false) {
                return;
            }
            browser::scroll_to_top();
            if let Some(h) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("section-title"))
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = h.focus();
            }
        });
    }
}

/// Scrolled to the end of the section `current`: it is read (`Action::ReadToEnd`). Only
/// a real scroll counts, so a short section that fits the window is read once it is left.
#[hook]
fn use_read_at_end(current: Option<u32>, dispatch: UseReducerDispatcher<Reader>) {
    use_effect_with(current, move |current| {
        let listener = current.zip(web_sys::window()).map(|(order, w)| {
            let done = std::cell::Cell::new(false);
            EventListener::new(&w, "scroll", move |_| {
                if !done.get() && browser::scrolled_to_end_of("article.section") {
                    done.set(true);
                    dispatch.dispatch(Action::ReadToEnd(order));
                }
            })
        });
        move || drop(listener)
    });
}

/// True when the key press belongs to a text field, a select or editable content.
fn is_typing(e: &KeyboardEvent) -> bool {
    let Some(target) = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else {
        return false;
    };
    matches!(
        target.tag_name().to_ascii_uppercase().as_str(),
        "INPUT" | "TEXTAREA" | "SELECT"
    ) || target
        .dyn_ref::<web_sys::HtmlElement>()
        .is_some_and(|h| h.is_content_editable())
}

//! The progress page: what was read and answered, export / import / reset.

use super::notices::notice_text;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::lesson::progress::{LabStatus, Progress};
use crate::lesson::route::{hash_with_state, Route};
use crate::lesson::state::{Lessons, Notice};
use crate::ui::browser;
use std::rc::Rc;
use yew::prelude::*;

/// Each lab in the lesson, where the learner is with it (true to the code in its editor),
/// linked to the lab itself by its section's title; nothing when the lesson has no lab.
fn labs_table(lessons: &Lessons, lang: Lang, p: &Progress) -> Html {
    let t = Texts::new(lang);
    let lesson = lessons.get(lang);
    let rows: Vec<Html> = lesson
        .sections
        .iter()
        .flat_map(|s| {
            let labs = crate::lesson::markdown::lab_blocks(&crate::lesson::docs::doc(&s.body));
            let several = labs.len() > 1;
            labs.into_iter().map(move |id| (s, id, several))
        })
        .map(|(s, id, several)| {
            let status = match p.lab(&lesson.id, &id).map(|l| l.status()) {
                Some(LabStatus::Passed { on }) => t.fmt(k::PROGRESS_LAB_PASSED, &[("date", on.to_string())]),
                Some(LabStatus::Tried {
                    passed_before: Some(on),
                }) => t.fmt(k::PROGRESS_LAB_TRIED_BEFORE, &[("date", on.to_string())]),
                Some(LabStatus::Tried { passed_before: None }) => t.t(k::PROGRESS_LAB_TRIED),
                _ => t.t(k::PROGRESS_LAB_NOT_STARTED),
            };
            let href = hash_with_state(&Route::section_hash(&lesson.id, s.order), &format!("lab={id}"));
            let name = match several {
                true => format!("{}. {} ({id})", s.order, s.title),
                false => format!("{}. {}", s.order, s.title),
            };
            html! { <li data-lab={id}><a {href}>{ name }</a>{ ": " }{ status }</li> }
        })
        .collect();
    if rows.is_empty() {
        return html! {};
    }
    html! {
        <>
            <h2>{ t.t(k::PROGRESS_LABS) }</h2>
            <ul class="progress-labs">{ for rows }</ul>
        </>
    }
}

#[derive(Properties, PartialEq)]
pub struct ProgressPageProps {
    pub lessons: Rc<Lessons>,
    pub lang: Lang,
    pub progress: Progress,
    /// The text of a chosen file, to import.
    pub on_import: Callback<String>,
    pub on_reset: Callback<()>,
    /// What the last import or reset did, shown next to those buttons.
    #[prop_or_default]
    pub outcome: Option<Notice>,
}

#[function_component(ProgressPage)]
pub fn progress_page(props: &ProgressPageProps) -> Html {
    let t = Texts::new(props.lang);
    let lesson = props.lessons.get(props.lang);
    let confirming = use_state(|| false);
    let p = &props.progress;
    let read = p.visited_count(&lesson.id);
    let quick = p.lesson(&lesson.id).and_then(|l| l.quick_check);

    let on_export = {
        let json = p.to_json();
        Callback::from(move |_| browser::download("lockstep-progress.json", "application/json", &json))
    };
    let on_file = {
        let on_import = props.on_import.clone();
        Callback::from(move |e: Event| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            let on_import = on_import.clone();
            browser::read_first_file(&input, move |text| on_import.emit(text));
            input.set_value("");
        })
    };
    let ask = {
        let confirming = confirming.clone();
        Callback::from(move |_| confirming.set(true))
    };
    let cancel = {
        let confirming = confirming.clone();
        Callback::from(move |_| confirming.set(false))
    };
    let reset = {
        let confirming = confirming.clone();
        let on_reset = props.on_reset.clone();
        Callback::from(move |_| {
            confirming.set(false);
            on_reset.emit(());
        })
    };

    html! {
        <article class="section progress-page">
            <h1 id="section-title" tabindex="-1">{ t.t(k::PROGRESS_TITLE) }</h1>
            <p>{ t.fmt(k::PROGRESS, &[("read", read.to_string()), ("total", lesson.sections.len().to_string())]) }</p>
            <p class="quick-check-result">{ match quick {
                Some(s) => t.fmt(k::PROGRESS_QUICK_CHECK, &[("correct", s.correct.to_string()), ("total", s.total.to_string())]),
                None => t.t(k::PROGRESS_QUICK_CHECK_NONE),
            } }</p>
            <div class="table-wrap" tabindex="0">
                <table>
                    <thead><tr>
                        <th scope="col">{ t.t(k::PROGRESS_COL_SECTION) }</th>
                        <th scope="col">{ t.t(k::PROGRESS_COL_READ) }</th>
                        <th scope="col">{ t.t(k::PROGRESS_COL_QUESTIONS) }</th>
                    </tr></thead>
                    <tbody>
                        { for lesson.sections.iter().map(|s| {
                            let qs: Vec<_> = props.lessons.questions_for(&s.id).collect();
                            let solved = qs.iter().filter(|q| p.question(&lesson.id, &q.id).is_some_and(|r| r.solved)).count();
                            let tried = qs.iter().filter(|q| p.question(&lesson.id, &q.id).is_some()).count();
                            html! {
                                <tr>
                                    <td><a href={Route::section_hash(&lesson.id, s.order)}>{ format!("{}. {}", s.order, s.title) }</a></td>
                                    <td>{ if p.is_visited(&lesson.id, &s.id) { format!("✓ {}", t.t(k::YES)) } else { t.t(k::NO) } }</td>
                                    <td>{ if qs.is_empty() { "–".to_string() } else {
                                        t.fmt(k::PROGRESS_SOLVED, &[("solved", solved.to_string()), ("tried", tried.to_string()), ("total", qs.len().to_string())])
                                    } }</td>
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
            { labs_table(&props.lessons, props.lang, p) }
            <h2>{ t.t(k::PACK_TITLE) }</h2>
            <p>{ t.t(k::PACK_BODY) }</p>
            <div class="progress-actions">
                <input type="file" id="pack-file" class="visually-hidden" accept=".toml" onchange={Callback::from(|e: Event| {
                    crate::ui::pack_loader::open_chosen(&e.target_unchecked_into());
                })} />
                <label class="button-like" for="pack-file">{ t.t(k::PACK_OPEN_FILE) }</label>
                <input type="file" id="pack-folder" class="visually-hidden" webkitdirectory=true multiple=true onchange={Callback::from(|e: Event| {
                    crate::ui::pack_loader::open_chosen(&e.target_unchecked_into());
                })} />
                <label class="button-like" for="pack-folder">{ t.t(k::PACK_OPEN_FOLDER) }</label>
            </div>
            <h2>{ t.t(k::PROGRESS_KEEP_TITLE) }</h2>
            <p>{ t.t(k::PROGRESS_KEEP_BODY) }</p>
            <div class="progress-actions">
                <button type="button" class="export" onclick={on_export}>{ t.t(k::PROGRESS_EXPORT) }</button>
                <input type="file" id="import-file" class="visually-hidden" accept="application/json,.json" onchange={on_file} />
                <label class="import button-like" for="import-file">{ t.t(k::PROGRESS_IMPORT) }</label>
                if *confirming {
                    <span class="confirm" role="group" aria-label={t.t(k::PROGRESS_RESET_CONFIRM)}>
                        <span>{ t.t(k::PROGRESS_RESET_CONFIRM) }</span>
                        <button type="button" class="reset-yes danger" onclick={reset}>{ t.t(k::PROGRESS_RESET_YES) }</button>
                        <button type="button" class="reset-no" onclick={cancel}>{ t.t(k::CANCEL) }</button>
                    </span>
                } else {
                    <button type="button" class="reset" onclick={ask}>{ t.t(k::PROGRESS_RESET) }</button>
                }
            </div>
            // Always in the page, so that what is put in it is announced (politely); each
            // import or reset replaces what the last one said.
            <p class="progress-outcome" role="status" aria-live="polite">
                { props.outcome.as_ref().map(|n| notice_text(&t, n)).unwrap_or_default() }
            </p>
        </article>
    }
}

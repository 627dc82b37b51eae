use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::lesson::progress::{LabStatus, Progress};
use crate::lesson::route::Route;
use crate::lesson::state::Lessons;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TocProps {
    pub lessons: Rc<Lessons>,
    pub lang: Lang,
    pub current: Option<u32>,
    pub progress: Progress,
    /// Whether the progress page is shown.
    #[prop_or_default]
    pub on_progress_page: bool,
    /// Called when a link is followed (closes the menu on phones).
    pub on_navigate: Callback<()>,
}

/// A section's labs in the contents: a mark that says whether they are passed (every
/// one of them, with the code in their editors), tried, or not started.
fn lab_mark(progress: &Progress, lesson: &str, section: &crate::lesson::section::Section, t: &Texts) -> Html {
    let labs = crate::lesson::markdown::lab_blocks(&crate::lesson::docs::doc(&section.body));
    if labs.is_empty() {
        return html! {};
    }
    let statuses: Vec<_> = labs
        .iter()
        .map(|id| {
            progress
                .lab(lesson, id)
                .map_or(LabStatus::NotStarted, |l| l.status())
        })
        .collect();
    let (mark, words, class) = if statuses.iter().all(|s| matches!(s, LabStatus::Passed { .. })) {
        ("lab ✓", k::TOC_LAB_PASSED, "toc-lab passed")
    } else if statuses.iter().any(|s| *s != LabStatus::NotStarted) {
        ("lab …", k::TOC_LAB_TRIED, "toc-lab tried")
    } else {
        ("lab", k::TOC_LAB, "toc-lab")
    };
    html! {
        <span class={class}><span aria-hidden="true">{ mark }</span><span class="visually-hidden">{ format!(" ({})", t.t(words)) }</span></span>
    }
}

/// The table of contents: one link per section, the current one marked for assistive
/// technology with `aria-current`, read ones marked with a check and a word.
pub fn toc(props: &TocProps) -> Html {
    let t = Texts::new(props.lang);
    let lesson = props.lessons.get(props.lang);
    let read = props.progress.visited_count(&lesson.id);
    let total = lesson.sections.len();
    html! {
        <nav id="toc" class="toc" aria-label={t.t(k::CONTENTS_LABEL)}>
            <h2 class="toc-title">{ t.t(k::CONTENTS) }</h2>
            <p class="toc-progress">{ t.fmt(k::PROGRESS, &[("read", read.to_string()), ("total", total.to_string())]) }</p>
            <ol>
                { for lesson.sections.iter().map(|s| {
                    let current = props.current == Some(s.order);
                    let visited = props.progress.is_visited(&lesson.id, &s.id);
                    let on_navigate = props.on_navigate.clone();
                    html! {
                        <li class={classes!(visited.then_some("visited"), current.then_some("current"))}>
                            <a href={Route::section_hash(&lesson.id, s.order)}
                               aria-current={current.then_some("page")}
                               onclick={Callback::from(move |_| on_navigate.emit(()))}>
                                <span class="toc-num" aria-hidden="true">{ s.order }</span>
                                <span class="toc-text">{ s.title.clone() }</span>
                                if visited {
                                    <span class="toc-read"><span aria-hidden="true">{"✓"}</span><span class="visually-hidden">{ format!(" ({})", t.t(k::VISITED)) }</span></span>
                                }
                                { lab_mark(&props.progress, &lesson.id, s, &t) }
                            </a>
                        </li>
                    }
                }) }
            </ol>
            <p class="toc-progress-link">
                <a href={Route::progress_hash(&lesson.id)} aria-current={props.on_progress_page.then_some("page")}
                   onclick={{ let n = props.on_navigate.clone(); Callback::from(move |_| n.emit(())) }}>
                    { t.t(k::PROGRESS_LINK) }
                </a>
            </p>
        </nav>
    }
}

use super::markdown::doc;
use super::markdown::render;
use super::panels::block_panel;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::lesson::state::Lessons;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SectionProps {
    pub lessons: Rc<Lessons>,
    pub lang: Lang,
    pub order: u32,
}

/// One section: its number, title and Markdown body.
#[function_component(SectionView)]
pub fn section_view(props: &SectionProps) -> Html {
    let t = Texts::new(props.lang);
    let lesson = props.lessons.get(props.lang);
    let Some(section) = lesson.section(props.order) else {
        return html! {};
    };
    // Decoding is cheap (a few hundred µs) and only reruns when the props change.
    let body = use_memo(
        (props.lessons.clone(), props.lang, props.order),
        |(lessons, lang, order)| {
            lessons
                .get(*lang)
                .section(*order)
                .map(|s| doc(&s.body))
                .unwrap_or_default()
        },
    );
    html! {
        <article class="section" data-section-id={section.id.clone()}>
            <p class="section-kicker">{ t.fmt(k::SECTION_OF, &[("n", section.order.to_string()), ("total", lesson.sections.len().to_string())]) }</p>
            <h1 id="section-title" tabindex="-1">{ section.title.clone() }</h1>
            { render(&body, props.lang, section_panel) }
        </article>
    }
}

/// The panel a fenced block of a section's body names: ```lab blocks name a lab
/// (labs/<id>/) to write and run here; the other panels are [`block_panel`]'s.
fn section_panel(block: &str, code: &str, lang: Lang) -> Option<Html> {
    match block {
        "lab" => Some(crate::ui::lab::host::lab_view(code.trim(), lang)),
        _ => block_panel(block, code, lang),
    }
}

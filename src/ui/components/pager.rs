use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PagerProps {
    pub lang: Lang,
    /// Titles of the neighbouring sections, if any.
    pub prev: Option<String>,
    pub next: Option<String>,
    pub on_prev: Callback<()>,
    pub on_next: Callback<()>,
}

/// Previous / next buttons under a section. A missing neighbour shows no button.
/// The visible text is the whole name (no `aria-label`), so a speech user can say what
/// they see (WCAG 2.5.3).
pub fn pager(props: &PagerProps) -> Html {
    let t = Texts::new(props.lang);
    let prev = props.on_prev.clone();
    let next = props.on_next.clone();
    html! {
        <nav class="pager" aria-label={format!("{} / {}", t.t(k::PREVIOUS), t.t(k::NEXT))}>
            if let Some(title) = &props.prev {
                <button type="button" class="pager-prev" onclick={Callback::from(move |_| prev.emit(()))}>
                    <span class="pager-dir"><span aria-hidden="true">{"← "}</span>{ t.t(k::PREVIOUS_SECTION) }</span>
                    <span class="pager-title">{ title.clone() }</span>
                </button>
            }
            if let Some(title) = &props.next {
                <button type="button" class="pager-next" onclick={Callback::from(move |_| next.emit(()))}>
                    <span class="pager-dir">{ t.t(k::NEXT_SECTION) }<span aria-hidden="true">{" →"}</span></span>
                    <span class="pager-title">{ title.clone() }</span>
                </button>
            }
        </nav>
    }
}

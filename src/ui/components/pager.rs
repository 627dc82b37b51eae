use crate::lesson::content::Lang;
use crate::lesson::i18n::Texts;
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
#[function_component(Pager)]
pub fn pager(props: &PagerProps) -> Html {
    let t = Texts::new(props.lang);
    let prev = props.on_prev.clone();
    let next = props.on_next.clone();
    html! {
        <nav class="pager" aria-label={format!("{} / {}", t.t("previous"), t.t("next"))}>
            if let Some(title) = &props.prev {
                <button type="button" class="pager-prev" aria-label={format!("{}: {}", t.t("previous_section"), title)}
                        onclick={Callback::from(move |_| prev.emit(()))}>
                    <span class="pager-dir">{ format!("← {}", t.t("previous")) }</span>
                    <span class="pager-title">{ title.clone() }</span>
                </button>
            }
            if let Some(title) = &props.next {
                <button type="button" class="pager-next" aria-label={format!("{}: {}", t.t("next_section"), title)}
                        onclick={Callback::from(move |_| next.emit(()))}>
                    <span class="pager-dir">{ format!("{} →", t.t("next")) }</span>
                    <span class="pager-title">{ title.clone() }</span>
                </button>
            }
        </nav>
    }
}

//! Where a section (or an embed of one lab) shows a lab: a place that holds the
//! prerendered page's drawing of it, inert, with what the learner typed, until the panel
//! ([`super::LabPanel`]) is drawn a task later. The page's first drawing and the panel's
//! are each well under 50 ms with the CPU slowed 4× (#40), and would not be together.

use super::LabPanel;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use yew::prelude::*;

/// A lab, where a section (or an embed of one lab) shows it.
pub fn lab_view(id: &str, lang: Lang) -> Html {
    html! { <LabHost key={id.to_string()} id={id.to_string()} {lang} /> }
}

#[derive(Properties, PartialEq)]
pub struct LabHostProps {
    pub id: String,
    pub lang: Lang,
}

#[function_component(LabHost)]
fn lab_host(props: &LabHostProps) -> Html {
    let host = use_node_ref();
    let open = use_state_eq(|| false);
    // At the hand-over from the prerendered page, its drawing of this lab (with what the
    // learner typed), inert, until the panel is drawn.
    let snapshot = use_state(|| {
        (!crate::ui::browser::app_started() && !crate::ui::browser::prerendering())
            .then(|| crate::ui::browser::take_lab_snapshot(&props.id))
            .flatten()
            .map(AttrValue::from)
    });
    {
        let (host, open) = (host.clone(), open.clone());
        use_effect_with(props.id.clone(), move |id| {
            // A link that names this lab lands on its place at once; the panel, drawn,
            // comes to it again (`ui::lab`).
            if super::in_url(id) {
                if let Some(place) = host.cast::<web_sys::Element>() {
                    place.scroll_into_view();
                }
            }
            let later = gloo::timers::callback::Timeout::new(0, move || open.set(true));
            move || drop(later)
        });
    }
    let t = Texts::new(props.lang);
    let opening = !*open;
    html! {
        <div class={classes!("lab-host", (opening && snapshot.is_none()).then_some("lab-waiting"))}
            data-lab={props.id.clone()} aria-busy={opening.then_some("true")} ref={host}>
            <div class="lab-mount">
                if *open {
                    <LabPanel id={props.id.clone()} lang={props.lang} />
                }
            </div>
            if opening {
                if let Some(s) = &*snapshot {
                    <div class="lab-snapshot" inert="">{ Html::from_html_unchecked(s.clone()) }</div>
                } else {
                    <p class="hint" role="status">{ t.t(k::LAB_OPENING) }</p>
                }
            }
        </div>
    }
}

//! Progressive rendering: children drawn one task after the rest of the page.
//!
//! A section's text and its own scenario come first; what sits below them (the quiz,
//! and the scenario panel of each "what happens next?" question, which runs the
//! simulator) follows in later tasks, so the browser can paint and answer input in
//! between instead of blocking on one long render. Nothing waits for scrolling: the
//! content arrives a few milliseconds later whether or not it is in view, so screen
//! readers, find-in-page and the keyboard reach all of it. (A prerendered page, before
//! the app has loaded, shows the placeholder; see `static/boot.js`.)

use gloo::timers::callback::Timeout;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DeferredProps {
    #[prop_or_default]
    pub children: Html,
}

/// Renders nothing (an empty, busy placeholder) first, then `children` from a
/// zero-delay timer.
#[function_component(Deferred)]
pub fn deferred(props: &DeferredProps) -> Html {
    let ready = use_state(|| false);
    {
        let ready = ready.clone();
        use_effect_with((), move |_| {
            // A prerendered page keeps the placeholder: the loader starts the app when
            // it scrolls into view (quiz questions draw fresh random variants per visit).
            let prerendering = crate::ui::browser::prerendering();
            let timer = (!prerendering).then(|| Timeout::new(0, move || ready.set(true)));
            // Unmounted before the timer fired: cancel it.
            move || drop(timer)
        });
    }
    if *ready {
        props.children.clone()
    } else {
        html! { <div class="deferred" aria-busy="true"></div> }
    }
}

//! What happened up to the cursor: the story (the key events, in words) and the event
//! log (the last events, the key ones standing out).

use super::model::Handle;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::timeline::{describe, words};
use yew::prelude::*;

/// How many lines each log shows, up to the cursor.
const LINES: usize = 8;

#[derive(Properties, PartialEq)]
pub struct LogsProps {
    pub panel: Handle,
    /// The panel's id in the page (the heading's id must be unique).
    pub panel_id: u32,
    pub lang: Lang,
}

pub fn logs(props: &LogsProps) -> Html {
    let (s, tx, lang) = (&props.panel.state, Texts::new(props.lang), props.lang);
    let Some(m) = s.model() else {
        return Html::default();
    };
    let cur = s.cur();
    let shown = m.trace.get(..=cur).unwrap_or_default();
    let log = shown.iter().skip(shown.len().saturating_sub(LINES)).map(|e| {
        // The events the story is made of stand out among the mechanics.
        if words::is_key_event(&e.kind) {
            html! { <li class="ev-key"><strong>{ describe(m, e, lang) }</strong></li> }
        } else {
            html! { <li>{ describe(m, e, lang) }</li> }
        }
    });
    let story = words::story(m, cur, LINES, lang)
        .into_iter()
        .map(|line| html! { <li>{ line }</li> });
    let log_id = format!("log-{}-{}", s.name, props.panel_id);
    html! {
        <>
            <div class="story-log">
                <h3>{ tx.t(k::SC_STORY) }</h3>
                <ol class="story">{ for story }</ol>
            </div>
            <div class="event-log">
                <h3 id={log_id.clone()}>{ tx.t(k::SC_EVENTS) }</h3>
                // The live region wraps the list: `role="log"` on the `<ol>` itself
                // would take away its list semantics.
                // While playing, the log changes every frame: a screen reader would
                // read a torrent, so it speaks again once playback stops or steps.
                <div role="log" aria-live={if s.playing { "off" } else { "polite" }} aria-labelledby={log_id}>
                    <ol>{ for log }</ol>
                </div>
            </div>
        </>
    }
}

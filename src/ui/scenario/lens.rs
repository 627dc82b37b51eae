//! The lens over the timeline: the last few messages up to the cursor, as a sequence
//! chart in HTML (`timeline::lens` picks them). Each row says in words who sent what to
//! whom and what came back (`A → redis: SET lock 03418c9f… NX PX 10000 → OK`), and draws
//! it as arrows between the processes' columns; text wraps on a phone, and a screen
//! reader reads the list. It follows the cursor as it plays, steps and seeks.

use super::svg::Shared;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::timeline::lens::{around, Hop, LensItem, LensRow};
use crate::timeline::{words, Model, StoryKind};
use yew::prelude::*;

/// Rows in the lens: enough for a round of five masters' requests to read as one.
pub const ROWS: usize = 5;

/// What the lens is drawn from. (A function of the plot's, not a component: the plot
/// draws it again on every step anyway, and a component of its own costs the page's
/// module more code than the lens's drawing is.)
pub struct LensProps {
    pub model: Shared,
    /// The trace event at the cursor.
    pub cursor: usize,
    pub lang: Lang,
}

/// Long words (tokens, scripts) shortened so that a row fits a phone's line or two.
fn short(text: &str) -> String {
    text.split(' ')
        .map(|w| {
            let bare = w.trim_end_matches('…');
            match bare.char_indices().nth(10) {
                Some((i, _)) if bare.chars().count() > 11 => format!("{}…", &bare[..i]),
                _ => w.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a process's column is, as a percentage of the width.
fn column(m: &Model, pid: u32) -> f64 {
    let n = m.lanes.len().max(1) as f64;
    let i = m.lanes.iter().position(|l| l.pid == pid).unwrap_or(0) as f64;
    (i + 0.5) / n * 100.0
}

fn hop_line(m: &Model, h: &Hop, y0: f64, y1: f64, class: &'static str) -> Html {
    let (a, b) = (column(m, h.from), column(m, h.to));
    let class = if h.dropped { "lost" } else { class };
    html! {
        <>
            <line class={class} x1={format!("{a}%")} x2={format!("{b}%")} y1={y0.to_string()} y2={y1.to_string()}
                  marker-end={if h.dropped { "" } else { "url(#lens-head)" }} />
            if h.dropped {
                <circle class="dot" cx={format!("{b}%")} cy={y1.to_string()} r="3" />
            }
        </>
    }
}

fn row_view(m: &Model, r: &LensRow, current: bool, lang: Lang) -> Html {
    let tx = Texts::new(lang);
    let n = |pid: u32| words::process_name(m.name(pid), lang);
    let t = format!("{:.1} ms", r.t_us as f64 / 1000.0);
    let lifelines = m.lanes.iter().map(|l| {
        let x = format!("{}%", column(m, l.pid));
        html! { <line class="lifeline" x1={x.clone()} x2={x} y1="0" y2="20" /> }
    });
    let lost = tx.t(k::SC_ARROW_LOST);
    match &r.item {
        LensItem::Exchange { request, reply } => {
            let mut class = String::from("lens-row");
            if current {
                class.push_str(" current");
            }
            html! {
                <li class={class} data-index={r.index.to_string()}>
                    <p class="lens-text">
                        <span class="lens-t">{ t }</span>
                        { format!("{} → {}: ", n(request.from), n(request.to)) }
                        <code>{ short(&words::payload(&request.what, lang)) }</code>
                        if request.dropped { { lost.clone() } }
                        if let Some(rep) = reply {
                            { " → " }<code>{ short(&words::payload(&rep.what, lang)) }</code>
                            if rep.dropped { { lost.clone() } }
                        }
                    </p>
                    <svg class="lens-arrows" aria-hidden="true">
                        { for lifelines }
                        { hop_line(m, request, 3.0, 9.0, "req") }
                        if let Some(rep) = reply {
                            { hop_line(m, rep, 11.0, 17.0, "rep") }
                        }
                    </svg>
                </li>
            }
        }
        LensItem::Story(kind) => {
            let node = match kind {
                StoryKind::Expired { node, .. } | StoryKind::Removed { node, .. } => *node,
            };
            let x = format!("{}%", column(m, node));
            let class = if current {
                "lens-row lens-story current"
            } else {
                "lens-row lens-story"
            };
            html! {
                <li class={class} data-index={r.index.to_string()}>
                    <p class="lens-text">
                        <span class="lens-t">{ t }</span>
                        { format!("{}: {}", n(node), words::story_tag(m, kind, lang)) }
                    </p>
                    <svg class="lens-arrows" aria-hidden="true">
                        { for lifelines }
                        <circle class="dot" cx={x} cy="10" r="5" />
                    </svg>
                </li>
            }
        }
    }
}

pub fn lens(props: &LensProps) -> Html {
    let m = &props.model.0;
    let tx = Texts::new(props.lang);
    let rows = around(m, props.cursor, ROWS);
    let last = rows.len().saturating_sub(1);
    // The lens keeps its height as the cursor moves (#40 item 13: it grew while playing
    // and pushed the timeline down): fewer rows than [`ROWS`] are padded with empty ones,
    // and on a phone every row holds two lines (static/style.css).
    let pad = |i: usize| {
        let empty = rows.is_empty() && i == 0;
        html! {
            <li class="lens-row lens-pad" aria-hidden={(!empty).to_string()}>
                <p class={if empty { "lens-text lens-empty" } else { "lens-text" }}>
                    { if empty { tx.t(k::LENS_EMPTY) } else { "\u{a0}".to_string() } }
                </p>
                <svg class="lens-arrows" aria-hidden="true"></svg>
            </li>
        }
    };
    html! {
        <section class="lens" aria-label={tx.t(k::LENS_LABEL)}>
            <h4>{ tx.t(k::LENS_TITLE) }</h4>
            <svg class="lens-defs" width="0" height="0" aria-hidden="true">
                <defs>
                    <marker id="lens-head" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
                        <path d="M0 0L8 4L0 8z" class="head" />
                    </marker>
                </defs>
            </svg>
            <div class="lens-cols" aria-hidden="true">
                { for m.lanes.iter().map(|l| html! {
                    <span style={format!("left: {}%", column(m, l.pid))}>{ words::process_name(&l.name, props.lang) }</span>
                }) }
            </div>
            <ol>
                { for (0..ROWS.saturating_sub(rows.len())).map(pad) }
                { for rows.iter().enumerate().map(|(i, r)| row_view(m, r, i == last, props.lang)) }
            </ol>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn long_words_are_shortened_and_short_ones_kept() {
        assert_eq!(
            short("SET lock 03418c9f38dbda83141c… NX PX 10000"),
            "SET lock 03418c9f38… NX PX 10000"
        );
        assert_eq!(short("OK"), "OK");
        assert_eq!(short("(integer) 1"), "(integer) 1");
    }
}

//! The pieces of the timeline's drawing that `Layers` puts together and that carry no
//! state: the patterns, the axis's ticks, a message's arrow, a mark's glyph and a folded
//! run's tag.

use super::layout::{Frame, LANE_H, TOP};
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::timeline::fold::Fold;
use crate::timeline::{words, MarkKind, Model};
use yew::prelude::*;

/// The patterns and the arrowhead the layers draw with.
pub(super) fn defs() -> Html {
    html! {
        <defs>
            <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                <rect width="6" height="6" class="hatch-bg" /><line x1="0" y1="0" x2="0" y2="6" class="hatch-line" />
            </pattern>
            <pattern id="down" width="8" height="8" patternUnits="userSpaceOnUse">
                <rect width="8" height="8" class="down-bg" /><path d="M0 0L8 8M8 0L0 8" class="down-line" />
            </pattern>
            <marker id="head" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                <path d="M0 0L6 3L0 6z" class="arrow-head" />
            </marker>
        </defs>
    }
}

/// A round step between the axis's ticks, about a sixth of `span_ms`.
fn nice_step(span_ms: f64) -> f64 {
    let raw = span_ms / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag)
}

/// The axis's ticks for the frame's window (`span_ms` wide), at most 40.
pub(super) fn ticks_svg(frame: &Frame, axis_y: f64, span_ms: f64) -> Vec<Html> {
    let step = nice_step(span_ms);
    let first = ((frame.v0 as f64 / 1000.0) / step).ceil() as i64;
    let last = ((frame.v1 as f64 / 1000.0) / step).floor() as i64;
    (first..=last)
        .take(40)
        .map(|i| {
            let t_ms = i as f64 * step;
            let xx = frame.x((t_ms * 1000.0) as u64);
            html! {
                <g class="tick" aria-hidden="true">
                    <line x1={xx.to_string()} x2={xx.to_string()} y1={TOP.to_string()} y2={axis_y.to_string()} />
                    // A label at the right edge ends there instead of being cut off.
                    <text x={xx.to_string()} y={(axis_y + 15.0).to_string()} text-anchor={if xx > frame.w - 24.0 { "end" } else { "middle" }}>{ format!("{t_ms}") }</text>
                </g>
            }
        })
        .collect()
}

/// A message between two lanes; a click seeks to its send. `lost` is the words added to
/// the title of one that was dropped.
pub(super) fn arrow_view(
    a: &crate::timeline::Arrow,
    m: &Model,
    frame: &Frame,
    (lang, lost): (Lang, &str),
    on_seek: Callback<usize>,
) -> Html {
    let (x0, y0) = (frame.x_in(a.sent_us), frame.lane_y(a.from) + LANE_H / 2.0);
    let (x1, y1) = (frame.x_in(a.at_us), frame.lane_y(a.to) + LANE_H / 2.0);
    let class = if a.dropped { "arrow dropped" } else { "arrow" };
    let idx = a.index;
    html! {
        <g class={class} aria-hidden="true" onclick={Callback::from(move |_| on_seek.emit(idx))}>
            <line x1={x0.to_string()} y1={y0.to_string()} x2={x1.to_string()} y2={y1.to_string()} marker-end={if a.dropped { "" } else { "url(#head)" }}>
                <title>{ format!("{} → {}: {}{}", words::process_name(m.name(a.from), lang), words::process_name(m.name(a.to), lang), words::payload(&a.label, lang), if a.dropped { lost } else { "" }) }</title>
            </line>
            if a.dropped {
                <text x={(x1 - 4.0).to_string()} y={(y1 + 4.0).to_string()} class="drop-x">{"×"}</text>
            }
        </g>
    }
}

/// A mark's glyph and class.
fn mark_glyph(kind: MarkKind) -> (&'static str, &'static str) {
    match kind {
        MarkKind::WriteAccepted => ("✓", "mark ok"),
        MarkKind::WriteRejected => ("✗", "mark bad"),
        MarkKind::Crash => ("✕", "mark bad"),
        MarkKind::Restart => ("↻", "mark"),
        MarkKind::ClockJump => ("⏱", "mark warn"),
        MarkKind::Drift => ("∿", "mark warn"),
        MarkKind::Partition => ("⫽", "mark warn"),
        MarkKind::Repair => ("⇄", "mark"),
        MarkKind::Failover => ("★", "mark warn"),
        MarkKind::AcquireFailed => ("·", "mark faint"),
        MarkKind::Released => ("⏏", "mark"),
        MarkKind::Lost => ("!", "mark bad"),
    }
}

/// A stop among the timeline's marks and folds, as a button: its place in the row (`pos`),
/// whether Tab lands on it, and what a click, a key and the focus do.
pub(super) struct StopButton {
    pub pos: usize,
    pub tabindex: &'static str,
    pub on_click: Callback<MouseEvent>,
    pub on_key: Callback<KeyboardEvent>,
    pub on_focus: Callback<FocusEvent>,
}

/// A folded run's tag: a bracket over the hidden tries and "+n tries", a button among the
/// marks (at `pos`, with `tabindex`) that opens the fold.
pub(super) fn fold_tag(f: &Fold, m: &Model, frame: &Frame, tx: &Texts, stop: StopButton) -> Html {
    let StopButton {
        pos,
        tabindex,
        on_click,
        on_key,
        on_focus,
    } = stop;
    let name = words::process_name(m.name(f.pid), tx.lang);
    let n = f.hidden.to_string();
    let (from, to) = (
        format!("{:.0}", f.from_us as f64 / 1000.0),
        format!("{:.0}", f.to_us as f64 / 1000.0),
    );
    let one = f.hidden == 1;
    let text = if one {
        tx.t(k::SC_FOLD_ONE)
    } else {
        tx.fmt(k::SC_FOLD, &[("n", n.clone())])
    };
    let label = tx.fmt(
        if one {
            k::SC_FOLD_LABEL_ONE
        } else {
            k::SC_FOLD_LABEL
        },
        &[("n", n), ("name", name), ("from", from), ("to", to)],
    );
    let (x0, x1) = (frame.x_in(f.from_us), frame.x_in(f.to_us));
    let (mid, y) = ((x0 + x1) / 2.0, frame.lane_y(f.pid));
    let pill = text.chars().count() as f64 * 6.5 + 10.0;
    html! {
        <g key={format!("f{}", f.first_index)} class="fold" {tabindex} role="button" aria-label={label.clone()}
           data-mark={pos.to_string()} data-fold={f.first_index.to_string()} onclick={on_click} onkeydown={on_key} onfocus={on_focus}>
            <title>{ label }</title>
            <path class="fold-bracket" aria-hidden="true" d={format!("M{x0} {a}V{b}H{x1}V{a}", a = y + 25.0, b = y + 31.0)} />
            <rect class="fold-pill" aria-hidden="true" x={(mid - pill / 2.0).to_string()} y={(y + 24.0).to_string()} width={pill.to_string()} height="14" rx="7" />
            <text aria-hidden="true" x={mid.to_string()} y={(y + 35.0).to_string()} text-anchor="middle">{ text }</text>
        </g>
    }
}

/// A mark: its glyph on its lane, a button among the marks (at `pos`, with `tabindex`)
/// that seeks to its event.
pub(super) fn mark_view(
    k: &crate::timeline::Mark,
    m: &Model,
    frame: &Frame,
    lang: Lang,
    stop: StopButton,
) -> Html {
    let StopButton {
        pos,
        tabindex,
        on_click,
        on_key,
        on_focus,
    } = stop;
    let (glyph, class) = mark_glyph(k.kind);
    let label = format!(
        "{:.1} ms · {}: {}",
        k.t_us as f64 / 1000.0,
        words::process_name(m.name(k.pid), lang),
        words::mark_text(m, k, lang)
    );
    html! {
        <g key={format!("m{}", k.index)} class={class} {tabindex} role="button" aria-label={label.clone()}
           data-mark={pos.to_string()} onclick={on_click} onkeydown={on_key} onfocus={on_focus}>
            <text x={frame.x(k.t_us).to_string()} y={(frame.lane_y(k.pid) + 12.0).to_string()} text-anchor="middle" aria-hidden="true">{ glyph }</text>
            <title>{ label }</title>
        </g>
    }
}

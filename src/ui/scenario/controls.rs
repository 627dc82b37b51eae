//! Playback controls: step, play/pause, reset, speed, zoom and pan, the slider and the
//! cursor's time; and the keys the whole panel answers to.

use super::model::Handle;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::timeline::panel::PanelAction;
use yew::prelude::*;

/// Playback speeds offered (× the 1× pace of `timeline::pace`).
const SPEEDS: [f64; 7] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0];

#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    pub panel: Handle,
    /// Which control groups show: step, play, speed, zoom, scrub (an embedding page may hide some).
    pub step: bool,
    pub play: bool,
    pub speed: bool,
    pub zoom: bool,
    pub scrub: bool,
    pub lang: Lang,
}

pub fn controls(props: &ControlsProps) -> Html {
    let (panel, tx) = (&props.panel, Texts::new(props.lang));
    let s = &panel.state;
    let (cur, last) = (s.cur(), s.last());
    let send = |a: PanelAction| {
        let panel = panel.clone();
        Callback::from(move |_: MouseEvent| panel.dispatch(a.clone()))
    };
    let on_speed = {
        let panel = panel.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            if let Some(x) = crate::decimal::parse(&v) {
                panel.dispatch(PanelAction::SetSpeed(x));
            }
        })
    };
    let on_scrub = {
        let panel = panel.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
            if let Ok(i) = v.parse::<usize>() {
                panel.dispatch(PanelAction::MoveTo(i));
            }
        })
    };
    // Several events can share a time: the slider says which one it is on, as the text does.
    let cursor_text = tx.fmt(
        k::SC_CURSOR,
        &[
            ("ms", format!("{:.1}", s.t_us() as f64 / 1000.0)),
            ("n", (cur + 1).to_string()),
            ("total", s.model().map_or(0, |m| m.trace.len()).to_string()),
        ],
    );
    html! {
        <>
            // A named group, not a toolbar: each control is its own Tab stop, where a
            // toolbar would promise one stop with the arrow keys moving inside it.
            <div class="controls" role="group" aria-label={tx.t(k::SC_PLAYBACK)}>
                if props.step {
                    <button type="button" aria-label={tx.t(k::SC_GO_START)} onclick={send(PanelAction::Seek(0))}>{"⇤"}</button>
                    <button type="button" aria-label={tx.t(k::SC_STEP_BACK)} onclick={send(PanelAction::Seek(cur.saturating_sub(1)))}>{"◀"}</button>
                }
                if !props.play {
                } else if s.playing {
                    <button type="button" class="play" aria-label={tx.t(k::SC_PAUSE)} onclick={send(PanelAction::Pause)}>{"❚❚"}</button>
                } else {
                    <button type="button" class="play" aria-label={tx.t(k::SC_PLAY)} onclick={send(PanelAction::Play)}>{"▶"}</button>
                }
                if props.step {
                    <button type="button" aria-label={tx.t(k::SC_STEP_FORWARD)} onclick={send(PanelAction::Seek((cur + 1).min(last)))}>{"▶|"}</button>
                    <button type="button" aria-label={tx.t(k::SC_GO_END)} onclick={send(PanelAction::Seek(last))}>{"⇥"}</button>
                }
                <button type="button" aria-label={tx.t(k::SC_RESET)} onclick={send(PanelAction::Reset)}>{"↺"}</button>
                if props.speed {
                    <label class="speed">{ format!("{} ", tx.t(k::SC_SPEED)) }
                        <select onchange={on_speed} aria-label={tx.t(k::SC_SPEED)}>
                            { for SPEEDS.iter().map(|x| html! { <option value={x.to_string()} selected={(*x - s.speed).abs() < 1e-9}>{ format!("{x}×") }</option> }) }
                        </select>
                    </label>
                }
                if props.zoom {
                <span class="zoom-buttons">
                    <button type="button" aria-label={tx.t(k::SC_ZOOM_IN)} onclick={send(PanelAction::ZoomAtCursor(0.5))}>{"+"}</button>
                    <button type="button" aria-label={tx.t(k::SC_ZOOM_OUT)} onclick={send(PanelAction::ZoomAtCursor(2.0))}>{"−"}</button>
                    <button type="button" aria-label={tx.t(k::SC_PAN_LEFT)} onclick={send(PanelAction::Pan(-0.25))} disabled={s.view.is_none()}>{"←"}</button>
                    <button type="button" aria-label={tx.t(k::SC_PAN_RIGHT)} onclick={send(PanelAction::Pan(0.25))} disabled={s.view.is_none()}>{"→"}</button>
                </span>
                }
            </div>
            if props.scrub {
                <input class="scrub" type="range" min="0" max={last.to_string()} value={cur.to_string()}
                       aria-label={tx.t(k::SC_TIME)} aria-valuetext={cursor_text.clone()} oninput={on_scrub} />
            }
            <p class="cursor-time">{ cursor_text }</p>
        </>
    }
}

/// What a key pressed in the panel does: Space plays or pauses, ← → step, Home and End
/// go to the ends. Fields keep their keys; a focused button keeps Space (it presses it).
pub fn key_action(e: &KeyboardEvent, cursor: usize, last: usize) -> Option<PanelAction> {
    let target = target_tag(e);
    let space = matches!(e.key().as_str(), " " | "Spacebar");
    if matches!(target.as_str(), "INPUT" | "TEXTAREA" | "SELECT")
        || (target == "BUTTON" && space)
        || e.ctrl_key()
        || e.meta_key()
        || e.alt_key()
    {
        return None;
    }
    Some(match e.key().as_str() {
        " " | "Spacebar" => PanelAction::TogglePlay,
        "ArrowLeft" => PanelAction::MoveTo(cursor.saturating_sub(1)),
        "ArrowRight" => PanelAction::MoveTo((cursor + 1).min(last)),
        "Home" => PanelAction::MoveTo(0),
        "End" => PanelAction::MoveTo(last),
        _ => return None,
    })
}

/// The upper-case tag name of the element a key event is aimed at.
fn target_tag(e: &KeyboardEvent) -> String {
    use wasm_bindgen::JsCast;
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map(|t| t.tag_name().to_ascii_uppercase())
        .unwrap_or_default()
}

//! The timeline picture: one swimlane per process, drawn as SVG from the `Model`.
//! Only what intersects the visible window is drawn, so long traces stay cheap.

use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::timeline::fold::{self, Fold};
use crate::timeline::{words, BarKind, LaneKind, Mark, MarkKind, Model};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

mod layout;
mod pieces;
pub use layout::{drawing_width, plot_fraction};
use layout::{geometry, plot_w, Frame, DEFAULT_W, LABEL_W, LANE_H, PITCH, STRIP_H, TOP};
use pieces::{arrow_view, defs, fold_tag, mark_view, ticks_svg, StopButton};

/// Most tags and fault states put into words at once on the strips (the most telling
/// first: a refused write or a removed key before an expiry).
const MAX_TAGS: usize = 24;
/// About how wide a character of the 12 px labels is, to keep tags from overlapping.
const CHAR_W: f64 = 7.0;
/// Okabe–Ito: distinguishable with the common colour-vision deficiencies.
/// Most messages drawn at once (see the level-of-detail note in `layers`).
const MAX_ARROWS: usize = 400;
/// Most marks drawn at once; beyond it (or beyond the room the plot has for them,
/// `timeline::lod::marks_room`) only the ones that matter most (writes, crashes…).
const MAX_MARKS: usize = 200;
/// Most bars drawn one by one; beyond it, bars closer than two pixels merge (see
/// `timeline::lod`).
const MAX_BARS: usize = 200;
const PALETTE: [&str; 7] = [
    "#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#0072B2", "#D55E00", "#F0E442",
];

/// A model shared by pointer: comparing two of them is O(1).
#[derive(Clone)]
pub struct Shared(pub Rc<Model>);

impl PartialEq for Shared {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
pub struct TimelineSvgProps {
    pub model: Shared,
    /// The cursor's true time.
    pub t_us: u64,
    /// The cursor's trace index: a fold that may hide it is drawn unfolded.
    pub cursor: usize,
    /// The visible window of true time.
    pub view: (u64, u64),
    /// Seek to a trace index (clicking an event).
    pub on_seek: Callback<usize>,
    /// The language of its labels and titles.
    pub lang: Lang,
    /// A new model is drawn in three tasks, so that none holds the page long (a lab's
    /// Run, a panel's fork): the box, then the lanes, bars and axis, then the messages,
    /// marks and tallies.
    #[prop_or_default]
    pub slices: bool,
    /// With `slices`, the model it opens on is drawn whole at once all the same (a
    /// panel's first run, which the prerendered page hands over to).
    #[prop_or_default]
    pub whole_first: bool,
}

/// Moves the focus to the mark at `pos` (in time order) inside `layer`.
fn focus_mark(layer: &NodeRef, pos: usize) {
    if let Some(el) = layer
        .cast::<web_sys::Element>()
        .and_then(|g| g.query_selector(&format!("[data-mark=\"{pos}\"]")).ok().flatten())
        .and_then(|el| el.dyn_into::<web_sys::SvgElement>().ok())
    {
        let _ = el.focus();
    }
}

/// Everything but the cursor. A step moves only the cursor, so this part is not redrawn
/// unless the run or the visible window changes.
#[derive(Properties)]
struct LayersProps {
    model: Shared,
    view: (u64, u64),
    /// The drawing's width in CSS pixels.
    w: f64,
    on_seek: Callback<usize>,
    lang: Lang,
    /// The model's folded retries (`timeline::fold`), made once per model.
    folds: Rc<Vec<Fold>>,
    /// The folds drawn unfolded because the cursor may be on one of their events (by
    /// first index): they change only as the cursor enters or leaves a fold.
    open: Vec<usize>,
    /// The messages, marks, tallies and strips too (else the first slice: lanes, bars, axis).
    detail: bool,
}

impl PartialEq for LayersProps {
    /// `on_seek` is left out: the panel makes a new callback each render, but it always
    /// does the same thing (seek this panel's cursor).
    fn eq(&self, o: &Self) -> bool {
        self.model == o.model
            && self.view == o.view
            && self.w == o.w
            && self.lang == o.lang
            && Rc::ptr_eq(&self.folds, &o.folds)
            && self.open == o.open
            && self.detail == o.detail
    }
}

#[function_component(TimelineSvg)]
pub fn timeline_svg(props: &TimelineSvgProps) -> Html {
    // The box the drawing fills, measured as it resizes: the drawing is laid out at that
    // width, so it is drawn 1:1.
    let box_ref = use_node_ref();
    // The box's own width in CSS pixels, as measured.
    let width = use_state_eq(|| DEFAULT_W);
    {
        let (box_ref, width) = (box_ref.clone(), width.clone());
        use_effect_with((), move |_| {
            let watcher = box_ref.cast::<web_sys::Element>().and_then(|el| {
                width.set(f64::from(el.client_width()));
                crate::ui::browser::watch_width(&el, move |px| width.set(px))
            });
            move || drop(watcher)
        });
    }
    let w = drawing_width(*width);
    // Narrower than the drawing (a phone): it scrolls sideways, and the lanes' names stay
    // at the left edge as it does, so a learner scrolled to the cursor knows whose lane
    // is whose.
    let scrolls = *width > 0.0 && *width < w;
    let m = &props.model.0;
    let (v0, v1, axis_y, height) = geometry(m, props.view);
    let x = |t: u64| LABEL_W + (t.saturating_sub(v0)) as f64 / (v1 - v0) as f64 * plot_w(w);
    let cx = x(props.t_us.clamp(v0, v1));
    // A drawing wider than its scrolling wrap (a phone) keeps the cursor in sight. Where
    // the wrap has scrolled is read in a task of its own: read in the task that drew, it
    // would make the browser lay the page out there, on top of the drawing.
    {
        let box_ref = box_ref.clone();
        use_effect_with((cx as i64, scrolls), move |&(cx, scrolls)| {
            let later = scrolls.then(|| {
                gloo::timers::callback::Timeout::new(0, move || {
                    let wrap = box_ref
                        .cast::<web_sys::Element>()
                        .and_then(|b| b.parent_element());
                    if let Some(wrap) = wrap.filter(|w| w.scroll_width() > w.client_width()) {
                        let (left, shown) = (f64::from(wrap.scroll_left()), f64::from(wrap.client_width()));
                        let cx = cx as f64;
                        if cx < left + LABEL_W || cx > left + shown - 24.0 {
                            wrap.set_scroll_left((cx - shown / 2.0).max(0.0) as i32);
                        }
                    }
                })
            });
            move || drop(later)
        });
    }
    let span_ms = (v1 - v0) as f64 / 1000.0;
    let on_click = seek_on_click(props.model.clone(), (v0, v1), w, props.on_seek.clone());
    // In slices, a task each: the drawing's box, then its lanes, bars and axis, then the
    // messages, marks and tallies (a new model starts again from the box).
    let stage = {
        let first = props.whole_first.then(|| props.model.clone());
        use_state(move || (first, 2u8))
    };
    let at = if !props.slices || crate::ui::browser::prerendering() {
        2
    } else if stage.0.as_ref() == Some(&props.model) {
        stage.1
    } else {
        0
    };
    {
        let stage = stage.clone();
        use_effect_with((props.model.clone(), at), move |(model, at)| {
            let next = (*at < 2).then(|| {
                let (model, at) = (model.clone(), *at);
                gloo::timers::callback::Timeout::new(0, move || stage.set((Some(model), at + 1)))
            });
            move || drop(next)
        });
    }
    let detail = at >= 2;
    // Retries fold (#40 item 12); the ones the cursor may be inside are drawn open.
    let folds = use_memo(props.model.clone(), |m| fold::folds(&m.0));
    let open = fold::around(&folds, props.cursor);
    html! {
        <div class="timeline-box" ref={box_ref}>
            <div class="timeline-inner">
            if scrolls {
                <div class="lane-names" aria-hidden="true">
                    { for m.lanes.iter().enumerate().map(|(i, l)| html! {
                        <span class={if i % 2 == 0 { "even" } else { "odd" }}
                              style={format!("top: {}px", TOP + i as f64 * PITCH + 10.0)}>
                            { words::process_name(&l.name, props.lang) }
                        </span>
                    }) }
                </div>
            }
            <svg class="timeline" width={w.to_string()} height={height.to_string()} viewBox={format!("0 0 {w} {height}")} role="group"
                 aria-label={Texts::new(props.lang).fmt(k::SC_TIMELINE_LABEL, &[("scenario", m.title(props.lang).to_string()), ("lanes", m.lanes.len().to_string()), ("ms", format!("{span_ms:.0}"))])}
                 preserveAspectRatio="xMinYMin meet" onclick={on_click}>
                if at > 0 {
                    <Layers model={props.model.clone()} view={props.view} {w} on_seek={props.on_seek.clone()} lang={props.lang} {folds} {open} {detail} />
                }
                <line class="cursor" aria-hidden="true" x1={cx.to_string()} x2={cx.to_string()} y1="0" y2={axis_y.to_string()} />
            </svg>
            </div>
        </div>
    }
}

/// A click on the timeline's plot, not on a mark or an arrow (which seek to their own
/// event), seeks to the last event at or before the moment under the pointer.
fn seek_on_click(
    model: Shared,
    (v0, v1): (u64, u64),
    w: f64,
    on_seek: Callback<usize>,
) -> Callback<MouseEvent> {
    Callback::from(move |e: MouseEvent| {
        let own = e
            .target_dyn_into::<web_sys::Element>()
            .and_then(|t| t.closest("g.mark, g.arrow, .fold").ok().flatten());
        let Some(svg) = e
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        else {
            return;
        };
        let rect = svg.get_bounding_client_rect();
        if own.is_some() || rect.width() <= 0.0 {
            return;
        }
        // In the drawing's own units (it is drawn 1:1, but a zoomed page scales it).
        let x = (f64::from(e.client_x()) - rect.left()) * w / rect.width();
        if x < LABEL_W {
            return;
        }
        let t = v0 + (plot_fraction(x, w) * (v1 - v0) as f64).round() as u64;
        on_seek.emit(crate::timeline::view::event_at(
            model.0.trace.iter().map(|e| e.t_us),
            t,
        ));
    })
}

/// A tab stop of the timeline: a mark, or a folded run's tag.
enum Stop<'a> {
    Mark(&'a Mark),
    Fold(&'a Fold),
}

impl Stop<'_> {
    /// Its place in time order: a fold's tag comes just after its first failure's mark.
    fn key(&self) -> (u64, usize, bool) {
        match self {
            Stop::Mark(k) => (k.t_us, k.index, false),
            Stop::Fold(f) => (f.from_us, f.first_index, true),
        }
    }

    /// The trace index it seeks to.
    fn index(&self) -> usize {
        match self {
            Stop::Mark(k) => k.index,
            Stop::Fold(f) => f.first_index,
        }
    }
}

/// The keys of the stop at `pos` among the marks and fold tags (`seek_to`: each one's
/// event): Enter and Space seek to a mark, or `open` a fold; the arrow keys go to the
/// next stop and seek to it (a fold's first failure).
fn stop_keys(
    pos: usize,
    seek_to: &Rc<Vec<usize>>,
    layer: &NodeRef,
    on_seek: &Callback<usize>,
    open: Option<Callback<()>>,
) -> Callback<KeyboardEvent> {
    let (on_seek, layer, seek_to) = (on_seek.clone(), layer.clone(), seek_to.clone());
    Callback::from(move |e: KeyboardEvent| {
        let to = match e.key().as_str() {
            "Enter" | " " | "Spacebar" => None,
            "ArrowRight" | "ArrowDown" => Some((pos + 1).min(seek_to.len() - 1)),
            "ArrowLeft" | "ArrowUp" => Some(pos.saturating_sub(1)),
            _ => return,
        };
        // The panel would step its cursor on these keys too.
        e.prevent_default();
        e.stop_propagation();
        if let (None, Some(open)) = (to, &open) {
            return open.emit(());
        }
        let to = to.unwrap_or(pos);
        if to != pos {
            // Its focus handler makes it the tab stop.
            focus_mark(&layer, to);
        }
        on_seek.emit(seek_to[to]);
    })
}

/// The stop to focus (by its place) once the render that drew it is done: set when a key
/// opened a fold, whose tag is then gone.
#[hook]
fn use_refocus(layer: &NodeRef) -> Rc<std::cell::RefCell<Option<usize>>> {
    let refocus = use_mut_ref(|| None::<usize>);
    {
        let (layer, refocus) = (layer.clone(), refocus.clone());
        use_effect(move || {
            if let Some(pos) = refocus.borrow_mut().take() {
                focus_mark(&layer, pos);
            }
        });
    }
    refocus
}

/// The folds the learner opened (by first index, sorted), for the model they were opened on.
type Unfolded = UseStateHandle<(Option<Shared>, Vec<usize>)>;

/// Opens the fold whose first failure is `first`: its stop is gone, and that failure takes
/// its place (and the focus, at `refocus_to`, when a key opened it).
fn open_fold(
    unfolded: &Unfolded,
    model: &Shared,
    refocus: &Rc<std::cell::RefCell<Option<usize>>>,
    first: usize,
    refocus_to: Option<usize>,
) -> Callback<()> {
    let (unfolded, model, refocus) = (unfolded.clone(), model.clone(), refocus.clone());
    Callback::from(move |()| {
        let mut now = if unfolded.0.as_ref() == Some(&model) {
            unfolded.1.clone()
        } else {
            Vec::new()
        };
        if let Err(at) = now.binary_search(&first) {
            now.insert(at, first);
        }
        *refocus.borrow_mut() = refocus_to;
        unfolded.set((Some(model.clone()), now));
    })
}

#[function_component(Layers)]
fn layers(props: &LayersProps) -> Html {
    // Which stop (mark or fold tag) holds the tab stop, by its place in time order (see
    // `Stop::key`), and the layer to find it in.
    let active = use_state(|| None::<(u64, usize, bool)>);
    let layer = use_node_ref();
    // The folds the learner opened, and the stop to focus once the one that opened a fold
    // is gone.
    let unfolded: Unfolded = use_state(|| (None::<Shared>, Vec::<usize>::new()));
    let refocus = use_refocus(&layer);
    let m = &props.model.0;
    let lost = Texts::new(props.lang).t(k::SC_ARROW_LOST);
    let w = props.w;
    let frame = Frame::new(m, props.view, w);
    let (v0, v1) = (frame.v0, frame.v1);
    let visible = |a: u64, b: u64| frame.visible(a, b);

    let lanes = lanes_svg(m, w, props.lang);
    let bars = bars_svg(m, props.view, w, props.lang);
    // Folded retries: a fold is drawn folded unless the learner opened it or the cursor
    // may be on one of its events.
    let opened: &[usize] = if unfolded.0.as_ref() == Some(&props.model) {
        &unfolded.1
    } else {
        &[]
    };
    let folded =
        |f: &Fold| opened.binary_search(&f.first_index).is_err() && !props.open.contains(&f.first_index);
    let hider = fold::Hider::new(&props.folds, folded);
    let drawn = |a: &&crate::timeline::Arrow| {
        visible(a.sent_us, a.at_us) && !hider.hides_arrow(a.from, a.to, a.sent_us)
    };
    // Level of detail: zoomed far out on a long run, messages would be a grey smear and
    // cost most of the drawing time; they appear once the window holds few enough.
    let arrows_in_view = m.arrows.iter().filter(drawn).count();
    let arrows = m
        .arrows
        .iter()
        .filter(|a| arrows_in_view <= MAX_ARROWS && drawn(a))
        .map(|a| arrow_view(a, m, &frame, (props.lang, &lost), props.on_seek.clone()));
    let in_view = |k: &&Mark| visible(k.t_us, k.t_us) && !hider.hides_mark(k);
    let marks_in_view = m.marks.iter().filter(in_view).count();
    let room = crate::timeline::lod::marks_room(plot_w(w), MAX_MARKS);
    let minor = |k: &MarkKind| matches!(k, MarkKind::AcquireFailed | MarkKind::Released);
    // The marks are buttons that seek, in time order: one tab stop for all of them (a
    // roving tabindex), the arrow keys go from one to the next, so Tab gets past a long
    // run in one press. A folded run's tag is one of them, just after its first failure.
    let mut shown: Vec<Stop> = m
        .marks
        .iter()
        .filter(|k| in_view(k) && (marks_in_view <= room || !minor(&k.kind)))
        .map(Stop::Mark)
        .chain(
            props
                .folds
                .iter()
                .filter(|f| folded(f) && visible(f.from_us, f.to_us))
                .take(MAX_MARKS)
                .map(Stop::Fold),
        )
        .collect();
    crate::sorting::sort_by_key(&mut shown, Stop::key);
    let tab_stop = (*active)
        .map_or(0, |a| shown.partition_point(|s| s.key() < a))
        .min(shown.len().saturating_sub(1));
    let seek_to: Rc<Vec<usize>> = Rc::new(shown.iter().map(Stop::index).collect());
    let tx = Texts::new(props.lang);
    let marks = shown.iter().enumerate().map(|(pos, stop)| {
        let key = stop.key();
        // Enter and Space seek to a mark, or open a fold (`open`); the arrow keys go to
        // the next stop and seek to it (a fold's first failure).
        let on_key = |open: Option<Callback<()>>| stop_keys(pos, &seek_to, &layer, &props.on_seek, open);
        let on_focus = {
            let active = active.clone();
            Callback::from(move |_: FocusEvent| active.set(Some(key)))
        };
        let tabindex = if pos == tab_stop { "0" } else { "-1" };
        let k = match stop {
            Stop::Mark(k) => k,
            Stop::Fold(f) => {
                let open_it =
                    |refocus_to| open_fold(&unfolded, &props.model, &refocus, f.first_index, refocus_to);
                let on_click = open_it(None).reform(|_: MouseEvent| ());
                let on_key = on_key(Some(open_it(Some(pos))));
                let stop = StopButton {
                    pos,
                    tabindex,
                    on_click,
                    on_key,
                    on_focus,
                };
                return fold_tag(f, m, &frame, &tx, stop);
            }
        };
        let idx = k.index;
        let on_click = props.on_seek.reform(move |_: MouseEvent| idx);
        let on_key = on_key(None);
        mark_view(
            k,
            m,
            &frame,
            props.lang,
            StopButton {
                pos,
                tabindex,
                on_click,
                on_key,
                on_focus,
            },
        )
    });
    let bands = bands_svg(m, props.view, w, props.lang);
    let span_ms = (v1 - v0) as f64 / 1000.0;
    let axis_y = TOP + m.lanes.len() as f64 * PITCH;
    let ticks = ticks_svg(&frame, axis_y, span_ms);
    let tallies = if props.detail {
        tallies(m, props.view, w, props.lang)
    } else {
        Vec::new()
    };
    html! {
        <g class="layers" ref={layer.clone()}>
            { defs() }
            { for lanes }
            { for ticks }
            { for bands }
            { for bars }
            if props.detail {
                { for arrows }
                { for marks }
                { for tallies }
                { strips(m, props.view, w, props.lang) }
            }
            // The unit sits in the label column, where no tick label can run into it.
            <text x={(LABEL_W - 12.0).to_string()} y={(axis_y + 15.0).to_string()} text-anchor="end" class="axis-unit" aria-hidden="true">{"ms"}</text>
        </g>
    }
}

/// The lanes: a row each, with its process's name.
fn lanes_svg(m: &Model, w: f64, lang: Lang) -> Vec<Html> {
    m.lanes.iter().enumerate().map(|(i, l)| {
        let y = TOP + i as f64 * PITCH;
        let kind = match l.kind {
            LaneKind::Client => "client",
            LaneKind::Node => "node",
            LaneKind::Resource => "resource",
            LaneKind::Other => "other",
        };
        html! {
            <g class={format!("lane lane-{kind}")} aria-hidden="true">
                <rect x="0" y={y.to_string()} width={w.to_string()} height={PITCH.to_string()} class={if i % 2 == 0 { "lane-bg even" } else { "lane-bg odd" }} />
                <text x="6" y={(y + LANE_H / 2.0 + 4.0).to_string()} class="lane-label">{ words::process_name(&l.name, lang) }</text>
            </g>
        }
    })
    .collect()
}

/// The bars (holds, keys, pauses, downtimes) in view; past [`MAX_BARS`], bars closer than
/// two pixels merge into one that counts them.
fn bars_svg(m: &Model, view: (u64, u64), w: f64, lang: Lang) -> Vec<Html> {
    let frame = Frame::new(m, view, w);
    let (v0, v1) = (frame.v0, frame.v1);
    let clampx = |t: u64| frame.x_in(t);
    let lane_y = |pid: u32| frame.lane_y(pid);
    let colour = |token: &Option<String>| {
        token
            .as_ref()
            .and_then(|t| m.token_index(t))
            .map_or("#888888", |i| PALETTE[i % PALETTE.len()])
    };
    // Two pixels of time: bars closer than that merge when there are too many to draw.
    let gap_us = ((v1 - v0) as f64 / plot_w(w) * 2.0) as u64;
    crate::timeline::lod::thin_bars(&m.bars, v0, v1, MAX_BARS, gap_us).into_iter().map(|shown| {
        let b = match shown {
            crate::timeline::lod::ShownBar::One(b) => b,
            crate::timeline::lod::ShownBar::Dense { pid, kind, from_us, to_us, count } => {
                let (x0, x1) = (clampx(from_us), clampx(to_us));
                let (dy, h) = match kind {
                    BarKind::Holding => (8.0, LANE_H - 16.0),
                    BarKind::Key => (5.0, LANE_H - 10.0),
                    BarKind::Paused | BarKind::Down => (3.0, LANE_H - 6.0),
                };
                let tx = Texts::new(lang);
                let what = tx.t(match kind {
                    BarKind::Holding => k::SC_DENSE_HOLDING,
                    BarKind::Key => k::SC_DENSE_KEY,
                    BarKind::Paused => k::SC_DENSE_PAUSED,
                    BarKind::Down => k::SC_DENSE_DOWN,
                });
                let title = tx.fmt(
                    k::SC_DENSE_BARS,
                    &[
                        ("name", words::process_name(m.name(pid), lang)),
                        ("count", count.to_string()),
                        ("what", what),
                        ("from", format!("{:.1}", from_us as f64 / 1000.0)),
                        ("to", format!("{:.1}", to_us as f64 / 1000.0)),
                    ],
                );
                return html! {
                    <g class="bar bar-dense" aria-hidden="true">
                        <rect x={x0.to_string()} y={(lane_y(pid) + dy).to_string()} width={(x1 - x0).max(1.5).to_string()} height={h.to_string()} rx="3"><title>{ title }</title></rect>
                    </g>
                };
            }
        };
        let y = lane_y(b.pid);
        let (x0, x1) = (clampx(b.from_us), clampx(b.to_us));
        let bw = (x1 - x0).max(1.5);
        let (dy, h, class, fill) = match b.kind {
            BarKind::Holding => (8.0, LANE_H - 16.0, "bar bar-holding", colour(&b.token).to_string()),
            BarKind::Key => (5.0, LANE_H - 10.0, "bar bar-key", colour(&b.token).to_string()),
            BarKind::Paused => (3.0, LANE_H - 6.0, "bar bar-paused", "url(#hatch)".to_string()),
            BarKind::Down => (3.0, LANE_H - 6.0, "bar bar-down", "url(#down)".to_string()),
        };
        let title = format!(
            "{}: {} ({:.1}–{:.1} ms)",
            words::process_name(m.name(b.pid), lang),
            words::bar_label(b, lang),
            b.from_us as f64 / 1000.0,
            b.to_us as f64 / 1000.0
        );
        let text = match b.kind {
            BarKind::Holding | BarKind::Key => b.token.clone().unwrap_or_default(),
            BarKind::Paused | BarKind::Down => words::bar_label(b, lang),
        };
        // About 7.5 px a character at the bars' 12 px.
        let show_text = bw > text.len() as f64 * 7.5 + 6.0;
        html! {
            <g class={class} aria-hidden="true">
                <rect x={x0.to_string()} y={(y + dy).to_string()} width={bw.to_string()} height={h.to_string()} fill={fill} rx="3"><title>{ title }</title></rect>
                if show_text {
                    <text x={(x0 + 4.0).to_string()} y={(y + LANE_H / 2.0 + 4.0).to_string()} class="bar-text">{ text }</text>
                }
            </g>
        }
    })
    .collect()
}

/// A band over each violation in view, labelled where the label fits.
fn bands_svg(m: &Model, view: (u64, u64), w: f64, lang: Lang) -> Vec<Html> {
    let frame = Frame::new(m, view, w);
    let clampx = |t: u64| frame.x_in(t);
    // A band's label is left out where it would run into the one before (its title and
    // the list under the picture still say it).
    let mut label_end = f64::MIN;
    m.bands.iter().filter(|b| frame.visible(b.from_us, b.to_us)).map(|b| {
        let (x0, x1) = (clampx(b.from_us), clampx(b.to_us));
        let label = format!("⚠ {}", b.clients.join(" + "));
        let show_label = x0 + 3.0 >= label_end;
        if show_label {
            label_end = x0 + 3.0 + label.chars().count() as f64 * CHAR_W + 6.0;
        }
        html! {
            <g class="band" aria-hidden="true">
                <rect x={x0.to_string()} y={TOP.to_string()} width={(x1 - x0).max(2.0).to_string()} height={(m.lanes.len() as f64 * PITCH).to_string()}>
                    <title>{ words::band_sentence(b, lang) }</title>
                </rect>
                if show_label {
                    <text x={(x0 + 3.0).to_string()} y="13" class="band-label">{ label }</text>
                }
            </g>
        }
    })
    .collect()
}

/// Each quorum attempt's tally at its verdict, over the client's lane (`3/5 ✓`); the
/// whole sentence is its title, and the cluster view says it for screen readers. A
/// tally is drawn 96 px or more after the one before on its lane: a dense run zoomed out
/// shows some, never a pile, and only those are put into words; the rest fill in as the
/// view narrows.
fn tallies(m: &Model, view: (u64, u64), w: f64, lang: Lang) -> Vec<Html> {
    let f = Frame::new(m, view, w);
    let (x, visible, lane_y) = (
        |t: u64| f.x(t),
        |a: u64, b: u64| f.visible(a, b),
        |pid: u32| f.lane_y(pid),
    );
    let mut last_x: crate::vecmap::VecMap<u32, f64> = crate::vecmap::VecMap::new();
    m.tallies
        .iter()
        .filter(|t| visible(t.t_us, t.t_us))
        .filter(|t| {
            let at = x(t.t_us);
            let room = last_x.get(&t.pid).is_none_or(|l| at >= l + 96.0);
            if room {
                last_x.insert(t.pid, at);
            }
            room
        })
        .take(MAX_MARKS)
        .map(|t| {
            let (long, short) = words::tally(t, lang);
            let class = if t.held { "tally held" } else { "tally failed" };
            html! {
                <g class={class} aria-hidden="true">
                    <text x={(x(t.t_us) + 3.0).to_string()} y={(lane_y(t.pid) + 13.0).to_string()}>{ short }<title>{ long }</title></text>
                </g>
            }
        })
        .collect()
}

/// Where text already sits on each lane's strip, so that no label covers another.
struct Room {
    taken: crate::vecmap::VecMap<u32, Vec<(f64, f64)>>,
    w: f64,
}

impl Room {
    fn free(&self, pid: u32, l: f64, r: f64) -> bool {
        l >= LABEL_W
            && r <= self.w - 2.0
            && self
                .taken
                .get(&pid)
                .is_none_or(|v| v.iter().all(|(a, b)| r + 6.0 <= *a || l >= *b + 6.0))
    }

    /// Places `text` on `pid`'s strip at the first of `spots` (x, anchor) where it fits.
    fn place(&mut self, pid: u32, text: &str, spots: &[(f64, &'static str)]) -> Option<(f64, &'static str)> {
        let width = text.chars().count() as f64 * CHAR_W;
        let (x, anchor) = spots.iter().copied().find(|(x, anchor)| {
            let l = if *anchor == "end" { x - width } else { *x };
            self.free(pid, l, l + width)
        })?;
        let l = if anchor == "end" { x - width } else { x };
        self.taken.entry(pid).or_default().push((l, l + width));
        Some((x, anchor))
    }
}

/// The validity window of each quorum attempt that took the lock: from the verdict,
/// valid for `validity`; after it, the drift allowance the client keeps in reserve.
fn validity_brackets(m: &Model, f: &Frame, room: &mut Room, lang: Lang) -> Vec<Html> {
    let x = |t: u64| f.x(t.clamp(f.v0, f.v1));
    let visible = |a: u64, b: u64| f.visible(a, b);
    let strip_y = |pid: u32| f.lane_y(pid) + LANE_H;
    let mut brackets: Vec<Html> = Vec::new();
    let window = |t: &crate::timeline::tally::Tally| {
        let end = t.start_us + (t.ttl_ms.unwrap_or(0.0) * 1000.0) as u64;
        t.held && visible(t.start_us, end.max(t.t_us))
    };
    // A bracket starts only where the one before it on its lane ended (they would cover
    // each other), so a dense run zoomed out draws a few, cheaply.
    let mut bracket_end: crate::vecmap::VecMap<u32, f64> = crate::vecmap::VecMap::new();
    for t in m.tallies.iter().filter(|t| window(t)).take(MAX_MARKS * 4) {
        if bracket_end.get(&t.pid).is_some_and(|e| x(t.t_us) < *e) {
            continue;
        }
        let Some((valid, drift, title)) = words::validity_bracket(t, lang) else {
            continue;
        };
        let (Some(validity), Some(ttl)) = (t.validity_ms, t.ttl_ms) else {
            continue;
        };
        let v_end = t.t_us + validity.max(0) as u64 * 1000;
        let d_end = t.start_us + (ttl * 1000.0) as u64;
        // A lock released (or lost) early ends its window there: no drift is left to show.
        let held_until = t.held_until_us.unwrap_or(u64::MAX);
        let (v_end, d_end) = if held_until < v_end {
            (held_until, held_until)
        } else {
            (v_end, d_end.min(held_until).max(v_end))
        };
        let y = strip_y(t.pid);
        let (xa, xb, xc) = (x(t.t_us), x(v_end), x(d_end.max(v_end)));
        bracket_end.insert(t.pid, xc.max(xa + 4.0));
        let width = valid.chars().count() as f64 * CHAR_W;
        let valid_at = (xb - xa > width + 8.0)
            .then(|| room.place(t.pid, &valid, &[(xa + 4.0, "start")]))
            .flatten();
        let drift_at = (xc - xb > 1.0)
            .then(|| room.place(t.pid, &drift, &[(xc + 3.0, "start")]))
            .flatten();
        brackets.push(html! {
            <g class="bracket" aria-hidden="true">
                <title>{ title }</title>
                <path class="bracket-valid" d={format!("M{xa} {a}V{b}H{xb}V{a}", a = y + 3.0, b = y + 13.0)} />
                if xc > xb + 1.0 {
                    <rect class="bracket-drift" x={xb.to_string()} y={(y + 3.0).to_string()} width={(xc - xb).to_string()} height="10" />
                }
                if let Some((tx, _)) = valid_at {
                    <text x={tx.to_string()} y={(y + 12.0).to_string()}>{ valid }</text>
                }
                if let Some((tx, _)) = drift_at {
                    <text class="drift-text" x={tx.to_string()} y={(y + 12.0).to_string()}>{ drift }</text>
                }
            </g>
        });
    }
    brackets
}

/// Each lane's strip: fault states across the time they last, validity brackets, and
/// the tags that say in words what happened to a key, a write or an extension. Text
/// goes where there is room: the brackets' first, then the states', then the tags'
/// (the ones that answer a section's question first); what does not fit is left out
/// (its title, its mark and the lens still say it).
fn strips(m: &Model, view: (u64, u64), w: f64, lang: Lang) -> Html {
    use crate::timeline::states::FaultState;
    use crate::timeline::StoryKind;
    let f = Frame::new(m, view, w);
    let x = |t: u64| f.x(t.clamp(f.v0, f.v1));
    let visible = |a: u64, b: u64| f.visible(a, b);
    let strip_y = |pid: u32| f.lane_y(pid) + LANE_H;
    let mut room = Room {
        taken: Default::default(),
        w,
    };
    let brackets = validity_brackets(m, &f, &mut room, lang);
    let mut states: Vec<Html> = Vec::new();
    for f in m
        .faults
        .iter()
        .filter(|f| visible(f.from_us, f.to_us))
        .take(MAX_MARKS)
    {
        let (x0, x1) = (x(f.from_us), x(f.to_us));
        let class = match f.state {
            FaultState::CutOff { .. } => "state state-cut",
            FaultState::Slowed { .. } => "state state-slow",
            FaultState::Clock { .. } => "state state-clock",
        };
        let text = words::fault_state(m, &f.state, lang);
        let width = text.chars().count() as f64 * CHAR_W;
        // Inside its span: at its start, else at its end.
        let at = (x1 - x0 > width + 6.0)
            .then(|| room.place(f.pid, &text, &[(x0 + 3.0, "start"), (x1 - 3.0, "end")]))
            .flatten();
        let y = strip_y(f.pid);
        states.push(html! {
            <g class={class} aria-hidden="true">
                <rect x={x0.to_string()} y={(y + 1.0).to_string()} width={(x1 - x0).max(2.0).to_string()} height={(STRIP_H - 2.0).to_string()} rx="2">
                    <title>{ format!("{}: {text} ({:.1}–{:.1} ms)", words::process_name(m.name(f.pid), lang), f.from_us as f64 / 1000.0, f.to_us as f64 / 1000.0) }</title>
                </rect>
                if let Some((tx, anchor)) = at {
                    <text x={tx.to_string()} y={(y + 12.0).to_string()} text-anchor={anchor}>{ text }</text>
                }
            </g>
        });
    }
    // Tags: what each says is made only for the ones drawn (a dense run zoomed out has
    // thousands of key expiries): (priority, pid, true µs, what).
    enum Tag<'a> {
        Story(&'a crate::timeline::Story),
        Write(&'a crate::timeline::Mark),
        Extension(&'a crate::timeline::Extension),
    }
    let mut tags: Vec<(u8, u32, u64, Tag)> = Vec::new();
    for s in m.stories.iter().filter(|s| visible(s.t_us, s.t_us)) {
        let (p, node) = match &s.kind {
            StoryKind::Removed { node, .. } => (0, *node),
            StoryKind::Expired { node, .. } => (3, *node),
        };
        tags.push((p, node, s.t_us, Tag::Story(s)));
    }
    for k in m.marks.iter().filter(|k| {
        matches!(k.kind, MarkKind::WriteAccepted | MarkKind::WriteRejected) && visible(k.t_us, k.t_us)
    }) {
        let p = if k.kind == MarkKind::WriteRejected { 0 } else { 1 };
        tags.push((p, k.pid, k.t_us, Tag::Write(k)));
    }
    for e in m.extensions.iter().filter(|e| visible(e.t_us, e.t_us)) {
        tags.push((if e.ok { 2 } else { 0 }, e.client, e.t_us, Tag::Extension(e)));
    }
    // Level of detail: a dense run zoomed out keeps only what answers a section's
    // question (a removed key, a refused write or extension); the rest come with zoom.
    if tags.len() > 4 * MAX_TAGS {
        tags.retain(|t| t.0 == 0);
    }
    crate::sorting::sort_by_key(&mut tags, |t| (t.0, t.2, t.1));
    tags.truncate(MAX_TAGS);
    let tags: Vec<Html> = tags.into_iter().filter_map(|(_, pid, t, tag)| {
        let (text, title, class) = match tag {
            Tag::Story(s) => (
                words::story_tag(m, &s.kind, lang),
                words::story_text(m, s, lang),
                if matches!(s.kind, StoryKind::Removed { .. }) { "tag tag-removed" } else { "tag tag-expired" },
            ),
            Tag::Write(k) => (
                m.trace.get(k.index).and_then(|e| words::write_tag(m, e, lang))?,
                words::mark_text(m, k, lang),
                if k.kind == MarkKind::WriteRejected { "tag tag-refused" } else { "tag tag-write" },
            ),
            Tag::Extension(e) => {
                let (text, title) = words::extension_tag(m, e, lang);
                (text, title, if e.ok { "tag tag-extended" } else { "tag tag-refused" })
            }
        };
        let at = x(t);
        let place = room.place(pid, &text, &[(at + 2.0, "start"), (at - 2.0, "end")]);
        let y = strip_y(pid);
        Some(html! {
            <g class={class} aria-hidden="true">
                <line x1={at.to_string()} x2={at.to_string()} y1={(y - 4.0).to_string()} y2={(y + STRIP_H - 2.0).to_string()} />
                if let Some((tx, anchor)) = place {
                    <text x={tx.to_string()} y={(y + 12.0).to_string()} text-anchor={anchor}>{ text }<title>{ title }</title></text>
                }
            </g>
        })
    }).collect();
    html! {
        <g class="strips">
            { for states }
            { for brackets }
            { for tags }
        </g>
    }
}

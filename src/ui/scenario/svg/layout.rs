//! Where things fall in the timeline's drawing: its sizes (the lane labels, the lanes and
//! their strips, the axis), the plot's width, and [`Frame`], the visible window laid
//! out across a drawing.

use crate::timeline::Model;

/// The drawing is laid out in CSS pixels at the width it is shown (one unit of the
/// viewBox is one pixel, so a 12 px label is 12 px on screen), never narrower than
/// `MIN_W`: a phone scrolls it sideways at that readable scale instead of shrinking it.
pub(super) const DEFAULT_W: f64 = 1000.0;
pub(super) const MIN_W: f64 = 640.0;
pub(super) const LABEL_W: f64 = 96.0;
pub(super) const TOP: f64 = 22.0;
/// The part of a lane that holds its bars and marks.
pub(super) const LANE_H: f64 = 40.0;
/// Below the bars, each lane's strip for what lasts or what is told in words: a fault
/// state ("cut off from A, B"), a Redlock validity bracket, a key's story ("A's DEL
/// removes B's key"), a fenced write ("C1: token 33 ✗"), an extension ("↻ redis: 1").
pub(super) const STRIP_H: f64 = 16.0;
/// One lane's height: its bars, then its strip.
pub(super) const PITCH: f64 = LANE_H + STRIP_H;
pub(super) const AXIS_H: f64 = 26.0;

/// The width of the plot (right of the lane labels) in a drawing `w` pixels wide.
pub(super) fn plot_w(w: f64) -> f64 {
    (w - LABEL_W - 8.0).max(1.0)
}

/// The drawing's width for a box `px` CSS pixels wide.
pub fn drawing_width(px: f64) -> f64 {
    if px.is_finite() && px > 0.0 {
        px.max(MIN_W)
    } else {
        DEFAULT_W
    }
}

/// Where a point `x` pixels from the drawing's left edge falls across the plot (the part
/// right of the lane labels), 0..1, for a drawing `width` pixels wide (drawn 1:1).
pub fn plot_fraction(x: f64, width: f64) -> f64 {
    if width <= 0.0 || !x.is_finite() {
        return 0.5;
    }
    ((x - LABEL_W) / plot_w(width)).clamp(0.0, 1.0)
}

/// The visible window laid out across a drawing `w` pixels wide: where a time falls,
/// whether a span shows, and where each process's lane starts.
pub(super) struct Frame {
    pub(super) v0: u64,
    pub(super) v1: u64,
    pub(super) w: f64,
    row: crate::vecmap::VecMap<u32, usize>,
}

impl Frame {
    pub(super) fn new(m: &Model, view: (u64, u64), w: f64) -> Frame {
        let (v0, v1, _, _) = geometry(m, view);
        let row = m.lanes.iter().enumerate().map(|(i, l)| (l.pid, i)).collect();
        Frame { v0, v1, w, row }
    }

    pub(super) fn x(&self, t: u64) -> f64 {
        LABEL_W + t.saturating_sub(self.v0) as f64 / (self.v1 - self.v0) as f64 * plot_w(self.w)
    }

    /// `x` of a moment held inside the window (a span that runs past it ends at its edge).
    pub(super) fn x_in(&self, t: u64) -> f64 {
        self.x(t.clamp(self.v0, self.v1))
    }

    pub(super) fn visible(&self, a: u64, b: u64) -> bool {
        b >= self.v0 && a <= self.v1
    }

    pub(super) fn lane_y(&self, pid: u32) -> f64 {
        TOP + self.row.get(&pid).copied().unwrap_or(0) as f64 * PITCH
    }
}

/// The window `view` (never empty), the axis's `y` and the drawing's height.
pub(super) fn geometry(m: &Model, view: (u64, u64)) -> (u64, u64, f64, f64) {
    let (v0, v1) = (view.0, view.1.max(view.0 + 1));
    let axis_y = TOP + m.lanes.len() as f64 * PITCH;
    (v0, v1, axis_y, axis_y + AXIS_H)
}

//! The visible window of a timeline: zooming and panning, by buttons, wheel or touch.
//!
//! A window is `(from_us, to_us)` of true time inside `0..=end`; `None` means the whole
//! run. Every function keeps the window inside the run and at least [`MIN_SPAN_US`] wide,
//! so no gesture can leave the learner on an empty or inverted view.

/// The narrowest window: one millisecond.
pub const MIN_SPAN_US: u64 = 1_000;

/// A window clamped into `0..=end` and at least [`MIN_SPAN_US`] wide (or the whole run
/// if that is shorter); `None` when it covers the whole run.
fn settle(start: f64, width: f64, end: u64) -> Option<(u64, u64)> {
    let end_f = end.max(1) as f64;
    let width = width.clamp((MIN_SPAN_US as f64).min(end_f), end_f);
    let start = start.clamp(0.0, end_f - width);
    let (a, b) = (start.round() as u64, (start + width).round() as u64);
    if a == 0 && b >= end {
        None
    } else {
        Some((a, b.min(end)))
    }
}

fn current(view: Option<(u64, u64)>, end: u64) -> (f64, f64) {
    let (a, b) = view.unwrap_or((0, end.max(1)));
    (a as f64, b.saturating_sub(a).max(1) as f64)
}

/// Zoom about the window's middle: `factor` < 1 zooms in, > 1 out.
pub fn zoom(view: Option<(u64, u64)>, end: u64, factor: f64) -> Option<(u64, u64)> {
    let (a, w) = current(view, end);
    if !factor.is_finite() || factor <= 0.0 {
        return view;
    }
    let nw = w * factor;
    settle(a + w / 2.0 - nw / 2.0, nw, end)
}

/// Zoom about the moment `at_us` (the cursor): it stays where it is on screen if it is
/// in the window, else the new window is centred on it.
pub fn zoom_at(view: Option<(u64, u64)>, end: u64, factor: f64, at_us: u64) -> Option<(u64, u64)> {
    let (a, w) = current(view, end);
    if !factor.is_finite() || factor <= 0.0 {
        return view;
    }
    let at = at_us.min(end) as f64;
    let frac = if at >= a && at <= a + w { (at - a) / w } else { 0.5 };
    let nw = (w * factor).clamp((MIN_SPAN_US as f64).min(end.max(1) as f64), end.max(1) as f64);
    settle(at - frac * nw, nw, end)
}

/// The first view of a run: its events framed, with a margin, when they crowd into
/// less than half of it (the run goes on quietly to its end); else the whole run.
/// `last_us` is the time of the last event before the end.
pub fn initial(last_us: u64, end: u64) -> Option<(u64, u64)> {
    if last_us.saturating_mul(2) >= end {
        return None;
    }
    let w = (last_us as f64 * 1.15).max(MIN_SPAN_US as f64 * 10.0);
    settle(0.0, w, end)
}

/// The window moved just enough to show the moment `at_us` (the cursor as it plays or
/// steps): unchanged if it is inside, else panned so it sits a tenth in from the edge
/// it left by.
pub fn follow(view: Option<(u64, u64)>, end: u64, at_us: u64) -> Option<(u64, u64)> {
    let (a, b) = view?;
    let w = b.saturating_sub(a).max(1) as f64;
    let at = at_us.min(end) as f64;
    if at > b as f64 {
        settle(at - 0.9 * w, w, end)
    } else if at < a as f64 {
        settle(at - 0.1 * w, w, end)
    } else {
        view
    }
}

/// Move the window by `frac` of its width (negative: towards the start).
pub fn pan(view: Option<(u64, u64)>, end: u64, frac: f64) -> Option<(u64, u64)> {
    let (a, w) = current(view, end);
    if view.is_none() || !frac.is_finite() {
        return view;
    }
    settle(a + w * frac, w, end)
}

/// A touch gesture, from where it started to where the fingers are now.
///
/// `f0` and `f1`: where the fingers' midpoint is across the plot (0 = left edge, 1 =
/// right edge), at the start and now. `d0` and `d1`: the distance between two fingers at
/// the start and now, in pixels (equal for a one-finger drag). The moment under the
/// fingers at the start stays under them: spreading zooms in around it, and moving
/// pans.
pub fn pinch(start: Option<(u64, u64)>, end: u64, f0: f64, d0: f64, f1: f64, d1: f64) -> Option<(u64, u64)> {
    if ![f0, d0, f1, d1].iter().all(|x| x.is_finite()) || d0 <= 0.0 || d1 <= 0.0 {
        return start;
    }
    let (a, w) = current(start, end);
    let anchor = a + f0 * w;
    let nw = w * d0 / d1;
    let nw = nw.clamp((MIN_SPAN_US as f64).min(end.max(1) as f64), end.max(1) as f64);
    settle(anchor - f1 * nw, nw, end)
}

/// The trace index a click at `t_us` on a timeline seeks to: the last event at or before
/// that moment (the trace is in time order), else the first. `times` are the events'.
pub fn event_at(times: impl IntoIterator<Item = u64>, t_us: u64) -> usize {
    let mut at = 0;
    for (i, t) in times.into_iter().enumerate() {
        if t > t_us {
            break;
        }
        at = i;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    const END: u64 = 10_000_000;

    #[test]
    fn zoom_in_and_back_out_to_the_whole_run() {
        let v = zoom(None, END, 0.5);
        assert_eq!(v, Some((2_500_000, 7_500_000)));
        assert_eq!(zoom(v, END, 2.0), None);
        // Never narrower than a millisecond, never wider than the run.
        let mut v = None;
        for _ in 0..100 {
            v = zoom(v, END, 0.5);
        }
        let (a, b) = v.expect("zoomed");
        assert_eq!(b - a, MIN_SPAN_US);
        assert_eq!(zoom(Some((0, 10)), END, f64::NAN), Some((0, 10)));
        assert_eq!(zoom(None, END, 8.0), None);
    }

    /// Zooming in keeps the cursor on screen, where it was; §1's events all happen in
    /// its first 51 ms and four zooms in still show them when the cursor is there.
    #[test]
    fn zoom_keeps_the_cursor_in_view() {
        let cursor = 40_000;
        let mut v = None;
        for _ in 0..4 {
            v = zoom_at(v, 1_000_000, 0.5, cursor);
            let (a, b) = v.expect("zoomed");
            assert!(a <= cursor && cursor <= b, "{v:?}");
        }
        // The cursor stays at the same place across the plot.
        let v = Some((2_000_000, 6_000_000));
        let z = zoom_at(v, END, 0.5, 3_000_000).expect("zoomed");
        assert_eq!((z.0, z.1), (2_500_000, 4_500_000));
        // Off screen: the new window is centred on it.
        let z = zoom_at(v, END, 0.5, 9_000_000).expect("zoomed");
        assert_eq!(z, (8_000_000, END));
        assert_eq!(zoom_at(v, END, f64::NAN, 1), v);
    }

    #[test]
    fn the_first_view_frames_the_events() {
        // §1: events up to 51 ms in a 1 s run.
        let (a, b) = initial(51_000, 1_000_000).expect("framed");
        assert_eq!(a, 0);
        assert!((51_000..100_000).contains(&b), "{b}");
        // Events over most of the run: the whole run.
        assert_eq!(initial(20_000_000, 25_000_000), None);
        assert_eq!(initial(0, 0), None);
    }

    #[test]
    fn the_view_follows_the_cursor() {
        let v = Some((0, 1_000_000));
        assert_eq!(follow(v, END, 500_000), v);
        let (a, b) = follow(v, END, 3_000_000).expect("zoomed");
        assert!(a <= 3_000_000 && 3_000_000 <= b && b - a == 1_000_000, "{a}..{b}");
        let (a, b) = follow(Some((5_000_000, 6_000_000)), END, 1_000_000).expect("zoomed");
        assert!(a <= 1_000_000 && 1_000_000 <= b, "{a}..{b}");
        assert_eq!(follow(None, END, 3), None);
    }

    #[test]
    fn pan_stops_at_both_ends() {
        let v = Some((2_000_000, 4_000_000));
        assert_eq!(pan(v, END, 0.25), Some((2_500_000, 4_500_000)));
        assert_eq!(pan(v, END, -5.0), Some((0, 2_000_000)));
        assert_eq!(pan(v, END, 50.0), Some((8_000_000, END)));
        // The whole run has nowhere to go.
        assert_eq!(pan(None, END, 0.25), None);
    }

    #[test]
    fn spreading_two_fingers_zooms_in_around_the_moment_under_them() {
        // Fingers 100 px apart around a quarter of the way in; they spread to 200 px.
        let v = pinch(None, END, 0.25, 100.0, 0.25, 200.0);
        let (a, b) = v.expect("zoomed in");
        assert_eq!(b - a, END / 2);
        // 2.5 s was under the fingers and still is.
        assert_eq!(a + (b - a) / 4, 2_500_000);
        // Pinching back closes to the whole run.
        assert_eq!(pinch(v, END, 0.25, 200.0, 0.25, 100.0), None);
    }

    #[test]
    fn a_drag_pans_and_bad_input_changes_nothing() {
        let v = Some((2_000_000, 4_000_000));
        // The finger moves from the middle to the left quarter: the view moves right.
        assert_eq!(pinch(v, END, 0.5, 1.0, 0.25, 1.0), Some((2_500_000, 4_500_000)));
        assert_eq!(pinch(v, END, 0.5, 0.0, 0.5, 1.0), v);
        assert_eq!(pinch(v, END, f64::INFINITY, 1.0, 0.5, 1.0), v);
        // A run shorter than a millisecond cannot be zoomed into.
        assert_eq!(zoom(None, 500, 0.5), None);
    }

    #[test]
    fn a_click_seeks_to_the_last_event_at_or_before_its_moment() {
        let times = [0u64, 100, 100, 250, 900];
        assert_eq!(event_at(times, 0), 0);
        assert_eq!(event_at(times, 99), 0);
        // Two events at one moment: the later one, as stepping there would end.
        assert_eq!(event_at(times, 100), 2);
        assert_eq!(event_at(times, 899), 3);
        assert_eq!(event_at(times, u64::MAX), 4);
        assert_eq!(event_at([], 5), 0);
        // Before the first event: the first.
        assert_eq!(event_at([50u64, 60], 10), 0);
    }
}

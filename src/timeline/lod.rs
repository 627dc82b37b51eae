//! Level of detail. Bars: zoomed far out on a long run, one lane can hold thousands
//! of bars narrower than a pixel. Past a budget, bars of the same lane and kind that
//! nearly touch are drawn as one "dense" span that says how many it stands for; zooming
//! in brings each back. Nothing is dropped: every visible bar's time is inside exactly
//! one shown item. Marks: the minor ones (a failed try, a release) are drawn only where
//! there is room for them ([`marks_room`]).

use super::{Bar, BarKind};

/// What the timeline draws for the bars in a window.
#[derive(Clone, Debug, PartialEq)]
pub enum ShownBar<'a> {
    One(&'a Bar),
    Dense {
        pid: u32,
        kind: BarKind,
        from_us: u64,
        to_us: u64,
        count: usize,
    },
}

/// The bars intersecting `[v0, v1]`, merged when there are more than `budget`:
/// same-lane, same-kind bars closer than `gap_us` become one dense span, and the gap
/// doubles until the result fits the budget (or one span per lane and kind is left).
pub fn thin_bars(bars: &[Bar], v0: u64, v1: u64, budget: usize, gap_us: u64) -> Vec<ShownBar<'_>> {
    let visible: Vec<&Bar> = bars.iter().filter(|b| b.to_us >= v0 && b.from_us <= v1).collect();
    if visible.len() <= budget {
        return visible.into_iter().map(ShownBar::One).collect();
    }
    let mut gap = gap_us.max(1);
    loop {
        let out = merge(&visible, gap);
        if out.len() <= budget || gap >= v1.saturating_sub(v0) {
            return out;
        }
        gap = gap.saturating_mul(2);
    }
}

/// The room a mark needs on average, in pixels of the plot. More crowded, the glyphs
/// overlap into a smear; and a window that jumps draws every one from scratch, which
/// costs a frame's whole budget at a few hundred marks (BENCHMARKS.md, zoom/pan).
pub const MARK_ROOM_PX: f64 = 6.0;

/// How many marks a window may hold and still draw its minor ones, on a plot `plot_px`
/// wide: one per [`MARK_ROOM_PX`], and never more than `most`. Past it, only the marks
/// that matter most (writes, crashes, losses…) are drawn; zooming in brings the rest.
pub fn marks_room(plot_px: f64, most: usize) -> usize {
    let fit = (plot_px / MARK_ROOM_PX).floor();
    if fit.is_finite() && fit > 0.0 {
        most.min(fit as usize)
    } else {
        0
    }
}

fn merge<'a>(visible: &[&'a Bar], gap_us: u64) -> Vec<ShownBar<'a>> {
    let mut lanes: crate::vecmap::VecMap<(u32, u8), Vec<&Bar>> = crate::vecmap::VecMap::new();
    for b in visible {
        lanes.entry((b.pid, b.kind as u8)).or_default().push(*b);
    }
    let mut out = Vec::new();
    for group in lanes.into_values() {
        let mut group = group;
        crate::sorting::sort_by_key(&mut group, |b| (b.from_us, b.to_us));
        let mut run: Vec<&Bar> = Vec::new();
        let mut run_end = 0u64;
        for b in group {
            if !run.is_empty() && b.from_us > run_end.saturating_add(gap_us) {
                flush(&mut run, run_end, &mut out);
                run.clear();
            }
            run_end = if run.is_empty() {
                b.to_us
            } else {
                run_end.max(b.to_us)
            };
            run.push(b);
        }
        flush(&mut run, run_end, &mut out);
    }
    out
}

fn flush<'a>(run: &mut Vec<&'a Bar>, end: u64, out: &mut Vec<ShownBar<'a>>) {
    match run.as_slice() {
        [] => {}
        [one] => out.push(ShownBar::One(one)),
        [first, ..] => out.push(ShownBar::Dense {
            pid: first.pid,
            kind: first.kind,
            from_us: first.from_us,
            to_us: end,
            count: run.len(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(pid: u32, from_us: u64, to_us: u64) -> Bar {
        Bar {
            pid,
            kind: BarKind::Holding,
            from_us,
            to_us,
            token: Some(format!("t{from_us}")),
            label: String::new(),
        }
    }

    /// A desktop's plot (about 900 px) has room for 150 marks, a phone's (536 px, as
    /// it scrolls) for 89; a wide screen stops at the cap, and a plot with no width at 0.
    #[test]
    fn marks_need_room_on_the_plot() {
        assert_eq!(marks_room(900.0, 200), 150);
        assert_eq!(marks_room(536.0, 200), 89);
        assert_eq!(marks_room(2_400.0, 200), 200);
        assert_eq!(marks_room(0.0, 200), 0);
        assert_eq!(marks_room(f64::NAN, 200), 0);
    }

    #[test]
    fn few_bars_are_drawn_one_by_one() {
        let bars: Vec<Bar> = (0..10).map(|i| bar(1, i * 100, i * 100 + 50)).collect();
        let shown = thin_bars(&bars, 0, 10_000, 100, 10);
        assert_eq!(shown.len(), 10);
        assert!(shown.iter().all(|s| matches!(s, ShownBar::One(_))));
        // Outside the window: not drawn.
        assert_eq!(thin_bars(&bars, 2_000, 3_000, 100, 10).len(), 0);
    }

    #[test]
    fn many_bars_merge_into_spans_that_cover_every_one() {
        // Two lanes of 5 000 bars 10 µs apart, then a lone bar far away.
        let mut bars: Vec<Bar> = (0..5_000)
            .flat_map(|i| [bar(1, i * 20, i * 20 + 10), bar(2, i * 20 + 5, i * 20 + 15)])
            .collect();
        bars.push(bar(1, 1_000_000, 1_000_100));
        let shown = thin_bars(&bars, 0, 2_000_000, 300, 1_000);
        assert_eq!(shown.len(), 3, "{shown:?}");
        // Bars spread wider than the gap: the gap grows until the budget holds.
        let spread: Vec<Bar> = (0..1_000).map(|i| bar(1, i * 5_000, i * 5_000 + 10)).collect();
        let fit = thin_bars(&spread, 0, 5_000_000, 100, 10);
        assert!(!fit.is_empty() && fit.len() <= 100, "{}", fit.len());
        let count: usize = shown
            .iter()
            .map(|s| match s {
                ShownBar::One(_) => 1,
                ShownBar::Dense { count, .. } => *count,
            })
            .sum();
        assert_eq!(count, bars.len(), "every bar is inside one shown item");
        for b in &bars {
            let inside = shown.iter().any(|s| match s {
                ShownBar::One(x) => std::ptr::eq(*x, b),
                ShownBar::Dense {
                    pid, from_us, to_us, ..
                } => *pid == b.pid && *from_us <= b.from_us && b.to_us <= *to_us,
            });
            assert!(inside, "{b:?}");
        }
    }
}

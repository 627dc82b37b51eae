//! Stable sorting with one compiled sorting routine for every element type.
//!
//! `slice::sort_by` and its kin compile the whole of std's sort (driftsort: quicksort,
//! merges, small sorts) once per element type and comparator; on the page that was 16
//! copies, about 70 KB of the module's code (BENCHMARKS.md, issue #16). Here the order
//! is found once, by a merge sort of indices behind a `dyn` comparator ([`order`], not
//! generic), and then applied by swaps: only that small step is compiled per type. Code
//! the browser's modules run sorts with these; the result is exactly `sort_by`'s (stable).
//!
//! A comparator that is no total order (a Lua script's `table.sort` over NaNs) gives
//! some order of the same elements, never a panic: std's sort may panic then.

use std::cmp::Ordering;

/// Sorts `v` by `cmp`, keeping equal elements in their order, as `slice::sort_by`.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    // Nothing to order, and nothing to allocate (most of a trial's lists).
    if v.len() < 2 {
        return;
    }
    let perm = order(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    apply(v, perm);
}

/// Sorts `v` by the key `f` gives, keeping equal keys in their order, as
/// `slice::sort_by_key`.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut f: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| f(a).cmp(&f(b)));
}

/// Sorts `v`, keeping equal elements in their order, as `slice::sort`.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Collects `items` into a `BTreeMap` or `BTreeSet` (any `Default + Extend`) by
/// inserting them one by one, with the last of equal keys kept, as `collect` does:
/// `collect` into a B-tree sorts the items first, with a copy of std's sort per type.
pub fn collect<C: Default + Extend<T>, T>(items: impl IntoIterator<Item = T>) -> C {
    let mut c = C::default();
    c.extend(items);
    c
}

/// The order of `n` items that `cmp` (by index) sorts stably: position `i` of the result
/// holds the index of the item that goes there. A bottom-up merge sort: n log n
/// comparisons, two vectors of `n` indices.
#[inline(never)]
fn order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut from: Vec<usize> = (0..n).collect();
    let mut to = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                // Only a strictly smaller right item goes first: equal items keep their order.
                if cmp(from[j], from[i]) == Ordering::Less {
                    to[k] = from[j];
                    j += 1;
                } else {
                    to[k] = from[i];
                    i += 1;
                }
                k += 1;
            }
            to[k..k + (mid - i)].copy_from_slice(&from[i..mid]);
            k += mid - i;
            to[k..k + (end - j)].copy_from_slice(&from[j..end]);
            start = end;
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    from
}

/// Puts item `perm[i]` at position `i`, for every `i`, by following each cycle of the
/// permutation with swaps.
fn apply<T>(v: &mut [T], mut perm: Vec<usize>) {
    for i in 0..v.len() {
        let mut at = i;
        loop {
            let next = perm[at];
            perm[at] = at;
            if next == i {
                break;
            }
            v.swap(at, next);
            at = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same order as std's stable sort, equal keys included, on lists of every
    /// length up to 70 and a long one, from a fixed generator.
    #[test]
    fn the_order_is_std_stable_sorts() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in (0..=70).chain([1000, 4097]) {
            let v: Vec<(u64, usize)> = (0..n).map(|i| (next() % 7, i)).collect();
            let mut ours = v.clone();
            let mut std_sorted = v.clone();
            sort_by_key(&mut ours, |p| p.0);
            std_sorted.sort_by_key(|p| p.0);
            assert_eq!(ours, std_sorted, "n = {n}");
            let mut desc = v.clone();
            let mut std_desc = v;
            sort_by(&mut desc, |a, b| b.0.cmp(&a.0));
            std_desc.sort_by_key(|p| std::cmp::Reverse(p.0));
            assert_eq!(desc, std_desc, "n = {n}, descending");
        }
        let mut words = vec!["b", "a", "c", "a"];
        sort(&mut words);
        assert_eq!(words, ["a", "a", "b", "c"]);
    }

    /// Items that own memory are moved, not copied or dropped twice.
    #[test]
    fn owned_items_move_into_place() {
        let mut v: Vec<String> = ["d", "b", "a", "c", "b"].iter().map(|s| s.to_string()).collect();
        sort(&mut v);
        assert_eq!(v, ["a", "b", "b", "c", "d"]);
    }

    /// A map collected by inserting is `collect`'s: the last value of an equal key kept.
    #[test]
    fn collect_is_std_collect() {
        let items = [(3, "c"), (1, "a"), (3, "z"), (2, "b"), (1, "y")];
        let ours: std::collections::BTreeMap<i32, &str> = collect(items);
        let std_map: std::collections::BTreeMap<i32, &str> = items.into_iter().collect();
        assert_eq!(ours, std_map);
        assert_eq!(ours.get(&3), Some(&"z"));
    }

    /// An order that is no total order (NaN, as `partial_cmp` falls back to Equal) gives
    /// a permutation of the same items; std's sort may panic on it.
    #[test]
    fn no_total_order_still_permutes() {
        let mut v: Vec<f64> = (0..200)
            .map(|i| {
                if i % 3 == 0 {
                    f64::NAN
                } else {
                    ((i * 37) % 101) as f64
                }
            })
            .collect();
        let mut want: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
        sort_by(&mut v, |a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
        let mut got: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want);
    }
}

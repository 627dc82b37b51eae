//! `next` and `pairs` in an order that depends on the table's keys only.
//!
//! piccolo keeps a table's non-array keys in a hashbrown map hashed by ahash, which takes
//! its keys from the operating system (`getrandom`, a default feature piccolo enables), so
//! its own `next` visits them in a different order in every process. ahash's hashes also
//! differ between x86_64 and wasm32 even with fixed keys, and hashbrown places keys by
//! 16-byte groups natively and 8-byte groups in wasm, so no hasher makes that order the same
//! on both targets. These replacements visit the keys sorted instead: numbers ascending,
//! then strings bytewise, then the rest (tables, functions: keys Redis scripts rarely use,
//! left in piccolo's order, which follows their addresses), then `true`, `false`.
//!
//! A traversal sorts the table's keys once, at `next(t, nil)`, into a snapshot (a Lua
//! array, so the memory cap counts it); later calls find their key in it by binary search.
//! A few snapshots are kept at once, so nested loops over different tables each keep
//! theirs; a finished traversal drops its own, and the VM forgets them all after a run.
//! Sorting burns fuel in proportion to the keys, so a huge table cannot stall a script.

use std::cmp::Ordering;

use piccolo::{Callback, CallbackReturn, Context, Execution, Table, Value};

use super::host::Shared;
use super::lauxlib::{bad_arg, type_name};

/// Snapshots kept at once (nested `pairs` loops over different tables).
const SNAPSHOTS: i64 = 8;

/// Installs `next` and `pairs` into `g`; returns the table that holds the snapshots, for
/// [`forget`]. Layout: `[2i-1]` a table, `[2i]` its sorted keys, for i in 1..=SNAPSHOTS;
/// `[0]` the slot the next new snapshot takes.
pub(crate) fn install<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) -> Table<'gc> {
    let cache = Table::new(&ctx);
    let h = host.clone();
    let next = Callback::from_fn_with(&ctx, cache, move |cache, ctx, exec, mut stack| {
        let Value::Table(t) = stack.get(0) else {
            let msg = format!("table expected, got {}", type_name(stack.get(0)));
            return Err(bad_arg(ctx, &exec, &h, 1, "next", &msg));
        };
        let key = stack.get(1);
        match next(ctx, exec, *cache, t, key) {
            Some((k, v)) => stack.replace(ctx, (k, v)),
            None => return Err(invalid_key(ctx)),
        }
        Ok(CallbackReturn::Return)
    });
    let h = host.clone();
    let pairs = Callback::from_fn_with(&ctx, next, move |next, ctx, exec, mut stack| {
        let t = stack.get(0);
        if !matches!(t, Value::Table(_)) {
            let msg = format!("table expected, got {}", type_name(t));
            return Err(bad_arg(ctx, &exec, &h, 1, "pairs", &msg));
        }
        stack.replace(ctx, (*next, t, Value::Nil));
        Ok(CallbackReturn::Return)
    });
    let _ = g.set(ctx, "next", next);
    let _ = g.set(ctx, "pairs", pairs);
    cache
}

/// Drops every snapshot (after a run: they would keep their tables alive).
pub(crate) fn forget<'gc>(ctx: Context<'gc>, cache: Table<'gc>) {
    for i in 0..=2 * SNAPSHOTS {
        let _ = cache.set(ctx, i, Value::Nil);
    }
}

fn invalid_key<'gc>(ctx: Context<'gc>) -> piccolo::Error<'gc> {
    super::lauxlib::plain_error(ctx, "invalid key to 'next'")
}

/// The pair after `key` in `t` (`(nil, nil)` after the last); `None` if `key` is not in `t`.
fn next<'gc>(
    ctx: Context<'gc>,
    mut exec: Execution<'gc, '_>,
    cache: Table<'gc>,
    t: Table<'gc>,
    key: Value<'gc>,
) -> Option<(Value<'gc>, Value<'gc>)> {
    let (slot, keys, start) = if key.is_nil() {
        let (slot, keys) = snapshot(ctx, &mut exec, cache, t);
        (slot, keys, 1)
    } else {
        let found = find_slot(cache, t).and_then(|slot| {
            let Value::Table(keys) = cache.get(ctx, 2 * slot) else {
                return None;
            };
            position(ctx, keys, key).map(|p| (slot, keys, p + 1))
        });
        match found {
            Some(found) => found,
            None => {
                // Not traversing `t` (or a key was added since): look again from scratch.
                if t.get_value(key).is_nil() {
                    return None;
                }
                let (slot, keys) = snapshot(ctx, &mut exec, cache, t);
                let p = position(ctx, keys, key)?;
                (slot, keys, p + 1)
            }
        }
    };
    let len = keys.length();
    for i in start..=len {
        let k = keys.get(ctx, i);
        let v = t.get_value(k);
        if !v.is_nil() {
            return Some((k, v));
        }
    }
    let _ = cache.set(ctx, 2 * slot - 1, Value::Nil);
    let _ = cache.set(ctx, 2 * slot, Value::Nil);
    Some((Value::Nil, Value::Nil))
}

/// The slot holding `t`'s snapshot.
fn find_slot<'gc>(cache: Table<'gc>, t: Table<'gc>) -> Option<i64> {
    (1..=SNAPSHOTS).find(|&i| matches!(cache.get_value(Value::Integer(2 * i - 1)), Value::Table(x) if x == t))
}

/// Sorts `t`'s keys into a fresh snapshot; returns its slot and the sorted keys.
fn snapshot<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    cache: Table<'gc>,
    t: Table<'gc>,
) -> (i64, Table<'gc>) {
    let mut keys: Vec<Value<'gc>> = t.iter().map(|(k, _)| k).collect();
    // Collecting, sorting and storing: about n·(1 + log2(n)/8) steps, charged as fuel.
    let n = u64::try_from(keys.len()).unwrap_or(u64::MAX);
    let cost = n.saturating_mul(1 + u64::from(n.max(1).ilog2()) / 8);
    exec.fuel().consume(i32::try_from(cost).unwrap_or(i32::MAX));
    crate::sorting::sort_by(&mut keys, |a, b| compare(*a, *b));
    let sorted = Table::new(&ctx);
    for (i, k) in (1i64..).zip(keys) {
        let _ = sorted.set(ctx, i, k);
    }
    let slot = match find_slot(cache, t) {
        Some(slot) => slot,
        None => {
            let slot = match cache.get_value(Value::Integer(0)) {
                Value::Integer(s) if (1..=SNAPSHOTS).contains(&s) => s,
                _ => 1,
            };
            let _ = cache.set(ctx, 0, slot % SNAPSHOTS + 1);
            slot
        }
    };
    let _ = cache.set(ctx, 2 * slot - 1, t);
    let _ = cache.set(ctx, 2 * slot, sorted);
    (slot, sorted)
}

/// Where `key` is in the sorted `keys` (1-based), by binary search; keys that compare
/// equal (tables, functions) are told apart by identity.
fn position<'gc>(ctx: Context<'gc>, keys: Table<'gc>, key: Value<'gc>) -> Option<i64> {
    let (mut lo, mut hi) = (1i64, keys.length().saturating_add(1));
    // The first position whose key is not less than `key`.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if compare(keys.get(ctx, mid), key) == Ordering::Less {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let len = keys.length();
    (lo..=len)
        .take_while(|&i| compare(keys.get(ctx, i), key) == Ordering::Equal)
        .find(|&i| same_key(keys.get(ctx, i), key))
}

/// Whether two values are the same table key (an integral float is its integer).
fn same_key<'gc>(a: Value<'gc>, b: Value<'gc>) -> bool {
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x == y,
        (Value::Integer(i), Value::Number(f)) | (Value::Number(f), Value::Integer(i)) => (i as f64) == f,
        (Value::Number(x), Value::Number(y)) => x == y,
        (Value::String(x), Value::String(y)) => x.as_bytes() == y.as_bytes(),
        (Value::Boolean(x), Value::Boolean(y)) => x == y,
        (Value::Table(x), Value::Table(y)) => x == y,
        (Value::Function(x), Value::Function(y)) => x == y,
        (Value::Thread(x), Value::Thread(y)) => x == y,
        (Value::UserData(x), Value::UserData(y)) => x == y,
        _ => false,
    }
}

/// The order keys are visited in: numbers, strings, everything else, then `true`, `false`.
/// (piccolo 0.3.3's generic `for` stops at a `false` key as if it were `nil`, so that key
/// goes last and hides no other.)
pub(crate) fn compare<'gc>(a: Value<'gc>, b: Value<'gc>) -> Ordering {
    fn rank(v: Value) -> u8 {
        match v {
            Value::Integer(_) | Value::Number(_) => 0,
            Value::String(_) => 1,
            Value::Boolean(_) => 3,
            _ => 2,
        }
    }
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(&y),
        (Value::Integer(x), Value::Number(y)) => (x as f64).partial_cmp(&y).unwrap_or(Ordering::Equal),
        (Value::Number(x), Value::Integer(y)) => x.partial_cmp(&(y as f64)).unwrap_or(Ordering::Equal),
        (Value::Number(x), Value::Number(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Boolean(x), Value::Boolean(y)) => y.cmp(&x),
        _ => rank(a).cmp(&rank(b)),
    }
}

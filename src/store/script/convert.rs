//! Conversions between Lua values and Redis replies, as Redis 7.0's `script_lua.c` does them.

use piccolo::{Context, Table, Value};

use super::cfmt;
use crate::store::Reply;

/// Deeper Lua tables than this are not converted (a self-referencing table would recurse
/// forever); Redis stops at its Lua C-stack limit with a similar error.
const MAX_DEPTH: usize = 256;

/// Lua → Redis: strings are bulk, numbers truncate to integers, `true` is 1, `false` and nil
/// are nil, `{err=...}` / `{ok=...}` / `{double=...}` are error / status / double replies,
/// other tables are arrays up to their first nil.
/// A table nested deeper than the limit turns the whole reply into an error.
pub(crate) fn lua_to_reply<'gc>(ctx: Context<'gc>, value: Value<'gc>) -> Reply {
    to_reply(ctx, value, 0).unwrap_or_else(|too_deep| too_deep)
}

fn to_reply<'gc>(ctx: Context<'gc>, value: Value<'gc>, depth: usize) -> Result<Reply, Reply> {
    Ok(match value {
        Value::String(s) => Reply::Bulk(s.as_bytes().to_vec()),
        // Lua 5.1 numbers are doubles: integers beyond 2^53 round as a double would.
        Value::Integer(i) if i.unsigned_abs() <= 1 << 53 => Reply::Int(i),
        Value::Integer(i) => Reply::Int(truncate(i as f64)),
        Value::Number(n) => Reply::Int(truncate(n)),
        Value::Boolean(true) => Reply::Int(1),
        Value::Table(t) => table_to_reply(ctx, t, depth)?,
        _ => Reply::Nil,
    })
}

/// C's `(long long)` cast on x86: out-of-range and NaN give `i64::MIN`.
pub(crate) fn truncate(n: f64) -> i64 {
    // 2^63 as f64; every value strictly inside (-2^63 - 1, 2^63) truncates exactly.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if n.is_nan() || !(-LIMIT..LIMIT).contains(&n) {
        i64::MIN
    } else {
        n.trunc() as i64
    }
}

fn table_to_reply<'gc>(ctx: Context<'gc>, t: Table<'gc>, depth: usize) -> Result<Reply, Reply> {
    if depth >= MAX_DEPTH {
        return Err(Reply::err("ERR reached lua stack limit"));
    }
    if let Value::String(err) = t.get(ctx, "err") {
        return Ok(Reply::Error(String::from_utf8_lossy(err.as_bytes()).into_owned()));
    }
    if let Value::String(ok) = t.get(ctx, "ok") {
        let text = String::from_utf8_lossy(ok.as_bytes()).replace(['\r', '\n'], " ");
        return Ok(Reply::Status(text));
    }
    match t.get(ctx, "double") {
        Value::Number(d) => return Ok(Reply::Bulk(cfmt::g(d, 17).into_bytes())),
        Value::Integer(i) => return Ok(Reply::Bulk(cfmt::g(i as f64, 17).into_bytes())),
        _ => {}
    }
    let mut items = Vec::new();
    for i in 1i64.. {
        let v = t.get(ctx, i);
        if v.is_nil() {
            break;
        }
        items.push(to_reply(ctx, v, depth + 1)?);
    }
    Ok(Reply::Array(items))
}

/// Redis → Lua for `redis.call` / `redis.pcall` results: integers are numbers, bulk strings
/// are strings, nil is `false`, status is `{ok=...}`, errors are `{err=...}`, arrays are
/// tables.
pub(crate) fn reply_to_lua<'gc>(ctx: Context<'gc>, reply: &Reply) -> Value<'gc> {
    match reply {
        Reply::Int(i) => Value::Integer(*i),
        Reply::Bulk(b) => Value::String(piccolo::String::from_slice(&ctx, b)),
        Reply::Nil | Reply::NilArray => Value::Boolean(false),
        Reply::Status(s) => single_field(ctx, "ok", s),
        Reply::Error(e) => single_field(ctx, "err", e),
        Reply::Array(items) => {
            let t = Table::new(&ctx);
            for (i, item) in items.iter().enumerate() {
                let v = reply_to_lua(ctx, item);
                let _ = t.set(ctx, i64::try_from(i).unwrap_or(i64::MAX).saturating_add(1), v);
            }
            Value::Table(t)
        }
    }
}

fn single_field<'gc>(ctx: Context<'gc>, field: &'static str, text: &str) -> Value<'gc> {
    let t = Table::new(&ctx);
    let _ = t.set(ctx, field, piccolo::String::from_slice(&ctx, text.as_bytes()));
    Value::Table(t)
}

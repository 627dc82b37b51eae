//! The auxiliary library the Lua callbacks are written with, as Lua 5.1's `lauxlib`:
//! values made and read as Lua 5.1 does (`lua_str`, `to_number`, `number_text`,
//! `check_string`), errors positioned like `luaL_error`, the `luaL_check*` argument
//! checks, and the two helpers every library installer uses (`set`, `callback`).

use piccolo::{Callback, CallbackReturn, Context, Execution, Stack, Table, Value};

use super::cfmt;
use super::convert::truncate;
use super::host::Shared;

/// Lua 5.1's limit on values one call may return (`LUAI_MAXCSTACK`).
pub(crate) const MAX_RESULTS: i64 = 8000;

pub(crate) type CbResult<'gc> = Result<CallbackReturn<'gc>, piccolo::Error<'gc>>;

pub(crate) fn lua_str<'gc>(ctx: Context<'gc>, bytes: impl AsRef<[u8]>) -> Value<'gc> {
    Value::String(piccolo::String::from_slice(&ctx, bytes.as_ref()))
}

/// A Lua string made from `bytes` without a second copy: a long result of a charged
/// function is moved into the Lua heap, not copied (the copy would hold twice its size
/// for a moment, past what was charged).
pub(crate) fn lua_owned<'gc>(ctx: Context<'gc>, bytes: Vec<u8>) -> Value<'gc> {
    if bytes.len() <= 256 {
        return lua_str(ctx, bytes);
    }
    Value::String(piccolo::String::from_buffer(&ctx, bytes.into_boxed_slice()))
}

/// An error value without position.
pub(crate) fn plain_error<'gc>(ctx: Context<'gc>, msg: impl AsRef<[u8]>) -> piccolo::Error<'gc> {
    lua_str(ctx, msg).into()
}

/// The script line the calling Lua frame is at (1-based), and remember it for the final
/// error message.
pub(crate) fn note_line(exec: &Execution, host: &Shared) -> Option<u64> {
    let line = exec.upper_lua_frame().map(|f| f.current_line.0 + 1);
    if let Some(line) = line {
        if let Ok(mut h) = host.try_borrow_mut() {
            h.line = line;
        }
    }
    line
}

/// An error positioned like `luaL_error`: `user_script:LINE: msg`. When the caller's frame
/// is gone (a tail call: `return string.format(...)`), the line the script was last seen
/// on stands in; Lua 5.1 keeps the frame there.
pub(crate) fn positioned<'gc>(
    ctx: Context<'gc>,
    exec: &Execution,
    host: &Shared,
    msg: &str,
) -> piccolo::Error<'gc> {
    let line = note_line(exec, host).or_else(|| host.try_borrow().ok().map(|h| h.line));
    match line {
        Some(line) => plain_error(ctx, format!("user_script:{line}: {msg}")),
        None => plain_error(ctx, msg),
    }
}

pub(crate) fn bad_arg<'gc>(
    ctx: Context<'gc>,
    exec: &Execution,
    host: &Shared,
    n: usize,
    fname: &str,
    msg: &str,
) -> piccolo::Error<'gc> {
    positioned(
        ctx,
        exec,
        host,
        &format!("bad argument #{n} to '{fname}' ({msg})"),
    )
}

pub(crate) fn type_name(v: Value) -> &'static str {
    match v {
        Value::Integer(_) | Value::Number(_) => "number",
        other => other.type_name(),
    }
}

/// Lua 5.1's `lua_tonumber` on a value: numbers, and strings that read as numbers.
pub(crate) fn to_number(v: Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(i as f64),
        Value::Number(n) => Some(n),
        Value::String(s) => parse_number(s.as_bytes()),
        _ => None,
    }
}

/// Lua 5.1's `luaO_str2d`: decimal or hex, surrounding blanks allowed.
pub(crate) fn parse_number(bytes: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\u{b}');
    if text.is_empty() {
        return None;
    }
    let (neg, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let v = u64::from_str_radix(hex, 16).ok()? as f64;
        return Some(if neg { -v } else { v });
    }
    // Rust accepts "inf"/"nan"/"infinity" like glibc's strtod; it rejects "1e" as strtod
    // would leave a tail and Lua then fails too.
    if body.starts_with(['+', '-']) {
        return None;
    }
    let v: f64 = body.parse().ok()?;
    Some(if neg { -v } else { v })
}

/// A number as Lua 5.1 would hold it: integral values that doubles represent exactly
/// become integers, so they print without a fraction in piccolo.
pub(crate) fn number_value<'gc>(n: f64) -> Value<'gc> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if n.fract() == 0.0 && n.abs() <= EXACT && !(n == 0.0 && n.is_sign_negative()) {
        Value::Integer(n as i64)
    } else {
        Value::Number(n)
    }
}

/// Lua 5.1's `tostring` for numbers: `%.14g`.
pub(crate) fn number_text(v: Value) -> Option<String> {
    const EXACT: i64 = 1 << 53;
    match v {
        Value::Integer(i) if (-EXACT..=EXACT).contains(&i) => Some(i.to_string()),
        Value::Integer(i) => Some(cfmt::g(i as f64, 14)),
        Value::Number(n) => Some(cfmt::g(n, 14)),
        _ => None,
    }
}

/// `luaL_checklstring`: strings, and numbers converted to text.
pub(crate) fn check_string(v: Value) -> Option<Vec<u8>> {
    match v {
        Value::String(s) => Some(s.as_bytes().to_vec()),
        other => number_text(other).map(String::into_bytes),
    }
}

pub(crate) fn arg_string<'gc>(
    ctx: Context<'gc>,
    exec: &Execution,
    host: &Shared,
    stack: &Stack<'gc, '_>,
    i: usize,
    fname: &str,
) -> Result<Vec<u8>, piccolo::Error<'gc>> {
    arg_as(ctx, exec, host, stack, i, fname, "string", check_string)
}

pub(crate) fn arg_number<'gc>(
    ctx: Context<'gc>,
    exec: &Execution,
    host: &Shared,
    stack: &Stack<'gc, '_>,
    i: usize,
    fname: &str,
) -> Result<f64, piccolo::Error<'gc>> {
    arg_as(ctx, exec, host, stack, i, fname, "number", to_number)
}

/// Argument `i` converted by `convert`, or Lua's "bad argument … (<expected> expected,
/// got <type>)" error.
#[allow(clippy::too_many_arguments)]
fn arg_as<'gc, T>(
    ctx: Context<'gc>,
    exec: &Execution,
    host: &Shared,
    stack: &Stack<'gc, '_>,
    i: usize,
    fname: &str,
    expected: &str,
    convert: impl FnOnce(Value<'gc>) -> Option<T>,
) -> Result<T, piccolo::Error<'gc>> {
    let v = stack.get(i);
    convert(v).ok_or_else(|| {
        let got = if i >= stack.len() {
            "no value"
        } else {
            type_name(v)
        };
        bad_arg(
            ctx,
            exec,
            host,
            i + 1,
            fname,
            &format!("{expected} expected, got {got}"),
        )
    })
}

pub(crate) fn arg_opt_int<'gc>(
    ctx: Context<'gc>,
    exec: &Execution,
    host: &Shared,
    stack: &Stack<'gc, '_>,
    i: usize,
    fname: &str,
    default: i64,
) -> Result<i64, piccolo::Error<'gc>> {
    if stack.get(i).is_nil() {
        Ok(default)
    } else {
        arg_number(ctx, exec, host, stack, i, fname).map(truncate)
    }
}

pub(crate) fn arg_table<'gc>(
    ctx: Context<'gc>,
    exec: &Execution,
    host: &Shared,
    stack: &Stack<'gc, '_>,
    i: usize,
    fname: &str,
) -> Result<Table<'gc>, piccolo::Error<'gc>> {
    match stack.get(i) {
        Value::Table(t) => Ok(t),
        v => {
            let got = if i >= stack.len() {
                "no value"
            } else {
                type_name(v)
            };
            Err(bad_arg(
                ctx,
                exec,
                host,
                i + 1,
                fname,
                &format!("table expected, got {got}"),
            ))
        }
    }
}

pub(crate) fn set<'gc>(
    ctx: Context<'gc>,
    table: Table<'gc>,
    key: &'static str,
    value: impl Into<Value<'gc>>,
) {
    // Setting a string key on a fresh table cannot fail.
    let _ = table.set(ctx, key, value.into());
}

pub(crate) fn callback<'gc>(
    ctx: Context<'gc>,
    host: &Shared,
    f: impl for<'a> Fn(Context<'a>, Execution<'a, '_>, Stack<'a, '_>, &Shared) -> CbResult<'a> + 'static,
) -> Callback<'gc> {
    let host = host.clone();
    Callback::from_fn(&ctx, move |ctx, exec, stack| f(ctx, exec, stack, &host))
}

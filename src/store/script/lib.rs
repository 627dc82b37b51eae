//! The Lua library a Redis 7.0 script sees, on top of piccolo's base, string, table and
//! coroutine libraries: the `redis` table, the Lua 5.1 functions piccolo 0.3.3 lacks or
//! implements differently (`tonumber`, `tostring`, `error`, `unpack`, `string.format`,
//! `table.insert`/`concat`/`remove`, ...), a seeded `math`, and read-only globals.

use std::cell::RefCell;
use std::rc::Rc;

use gc_arena::Collect;
use piccolo::{
    BoxSequence, Callback, CallbackReturn, Context, Execution, Sequence, SequencePoll, Stack, Table, Value,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::alloc::{self, Fail};
use super::cfmt::{self, Spec};
use super::convert::{reply_to_lua, truncate};
use super::pattern::{self, Capture, Matcher, PatError};
use super::Host;
use crate::store::cmd;
use crate::store::Reply;

/// Lua 5.1's limit on values one call may return (`LUAI_MAXCSTACK`).
const MAX_RESULTS: i64 = 8000;

pub(crate) type Shared = Rc<RefCell<Host>>;
type CbResult<'gc> = Result<CallbackReturn<'gc>, piccolo::Error<'gc>>;

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

fn arg_string<'gc>(
    ctx: Context<'gc>,
    exec: &Execution,
    host: &Shared,
    stack: &Stack<'gc, '_>,
    i: usize,
    fname: &str,
) -> Result<Vec<u8>, piccolo::Error<'gc>> {
    arg_as(ctx, exec, host, stack, i, fname, "string", check_string)
}

fn arg_number<'gc>(
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

fn arg_opt_int<'gc>(
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

fn arg_table<'gc>(
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

fn set<'gc>(ctx: Context<'gc>, table: Table<'gc>, key: &'static str, value: impl Into<Value<'gc>>) {
    // Setting a string key on a fresh table cannot fail.
    let _ = table.set(ctx, key, value.into());
}

fn callback<'gc>(
    ctx: Context<'gc>,
    host: &Shared,
    f: impl for<'a> Fn(Context<'a>, Execution<'a, '_>, Stack<'a, '_>, &Shared) -> CbResult<'a> + 'static,
) -> Callback<'gc> {
    let host = host.clone();
    Callback::from_fn(&ctx, move |ctx, exec, stack| f(ctx, exec, stack, &host))
}

/// Installs everything into the real globals table `g`.
pub(crate) fn install<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    install_base(ctx, g, host);
    install_string(ctx, g, host);
    install_table(ctx, g, host);
    install_math(ctx, g, host);
    install_redis(ctx, g, host);
}

fn install_base<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    // tostring: numbers as `%.14g`, everything else through piccolo's own tostring.
    let original = g.get(ctx, "tostring");
    let tostring = Callback::from_fn_with(&ctx, original, |original, ctx, _, mut stack| {
        if let Some(text) = number_text(stack.get(0)) {
            stack.replace(ctx, lua_str(ctx, text));
            return Ok(CallbackReturn::Return);
        }
        match original {
            Value::Function(f) => Ok(CallbackReturn::Call {
                function: *f,
                then: None,
            }),
            _ => Err(plain_error(ctx, "tostring is unavailable")),
        }
    });
    set(ctx, g, "tostring", tostring);

    set(
        ctx,
        g,
        "tonumber",
        callback(ctx, host, |ctx, exec, mut stack, host| {
            if stack.is_empty() {
                return Err(bad_arg(ctx, &exec, host, 1, "tonumber", "value expected"));
            }
            let v = stack.get(0);
            let base = stack.get(1);
            let result = if base.is_nil() {
                to_number(v).map(number_value).unwrap_or(Value::Nil)
            } else {
                let b = to_number(base).map(truncate).unwrap_or(0);
                if !(2..=36).contains(&b) {
                    return Err(bad_arg(ctx, &exec, host, 2, "tonumber", "base out of range"));
                }
                let text = check_string(v).unwrap_or_default();
                let text = String::from_utf8_lossy(&text).trim().to_string();
                u32::try_from(b)
                    .ok()
                    .and_then(|radix| i64::from_str_radix(&text, radix).ok())
                    .map(Value::Integer)
                    .unwrap_or(Value::Nil)
            };
            stack.replace(ctx, result);
            Ok(CallbackReturn::Return)
        }),
    );

    // error(msg [, level]): level 1 prefixes the caller's position to string messages.
    set(
        ctx,
        g,
        "error",
        callback(ctx, host, |ctx, exec, stack, host| {
            let msg = stack.get(0);
            let level = to_number(stack.get(1)).map(truncate).unwrap_or(1);
            note_line(&exec, host);
            let positional = matches!(msg, Value::String(_) | Value::Integer(_) | Value::Number(_));
            if let (true, 1, Some(line)) = (positional, level, exec.upper_lua_frame()) {
                let text = check_string(msg).unwrap_or_default();
                let line = line.current_line.0 + 1;
                let text = format!("user_script:{line}: {}", String::from_utf8_lossy(&text));
                return Err(plain_error(ctx, text));
            }
            Err(msg.into())
        }),
    );

    // pcall: like piccolo's, but a VM error reaches the script as Lua 5.1's positioned
    // message string instead of a userdata.
    set(
        ctx,
        g,
        "pcall",
        callback(ctx, host, |ctx, _, mut stack, host| {
            let function = piccolo::meta_ops::call(ctx, stack.get(0))?;
            stack.pop_front();
            let then = BoxSequence::new(&ctx, PCall { host: host.clone() });
            Ok(CallbackReturn::Call {
                function,
                then: Some(then),
            })
        }),
    );

    // xpcall(f, handler): f runs without arguments; an error goes through the handler,
    // whose first result comes back after `false`.
    set(
        ctx,
        g,
        "xpcall",
        callback(ctx, host, |ctx, _, mut stack, host| {
            let function = piccolo::meta_ops::call(ctx, stack.get(0))?;
            let handler = stack.get(1);
            stack.clear();
            let then = BoxSequence::new(
                &ctx,
                XPCall {
                    host: host.clone(),
                    handler,
                    handling: false,
                },
            );
            Ok(CallbackReturn::Call {
                function,
                then: Some(then),
            })
        }),
    );
    set(
        ctx,
        g,
        "rawequal",
        callback(ctx, host, |ctx, exec, mut stack, host| {
            if stack.len() < 2 {
                let which = stack.len() + 1;
                let msg = format!("bad argument #{which} to 'rawequal' (value expected)");
                return Err(positioned(ctx, &exec, host, &msg));
            }
            let (a, b) = (stack.get(0), stack.get(1));
            // Equality without __eq: tables and userdata by identity, the rest by value.
            let same = match (a, b) {
                (Value::Table(x), Value::Table(y)) => x == y,
                (Value::UserData(x), Value::UserData(y)) => x == y,
                _ => matches!(
                    piccolo::meta_ops::equal(ctx, a, b),
                    Ok(piccolo::meta_ops::MetaResult::Value(Value::Boolean(true)))
                ),
            };
            stack.replace(ctx, Value::Boolean(same));
            Ok(CallbackReturn::Return)
        }),
    );

    // unpack / table.unpack with Lua 5.1's bound on the number of results.
    let unpack = callback(ctx, host, |ctx, exec, mut stack, host| {
        let t = arg_table(ctx, &exec, host, &stack, 0, "unpack")?;
        let i = arg_opt_int(ctx, &exec, host, &stack, 1, "unpack", 1)?;
        let j = arg_opt_int(ctx, &exec, host, &stack, 2, "unpack", t.length())?;
        stack.clear();
        if i > j {
            return Ok(CallbackReturn::Return);
        }
        let n = j.checked_sub(i).and_then(|d| d.checked_add(1));
        match n {
            Some(n) if n <= MAX_RESULTS => {
                for k in i..=j {
                    stack.push_back(t.get(ctx, k));
                }
                Ok(CallbackReturn::Return)
            }
            _ => Err(positioned(ctx, &exec, host, "too many results to unpack")),
        }
    });
    set(ctx, g, "unpack", unpack);

    // rawset / setmetatable / getmetatable must not get around read-only tables.
    for name in ["rawset", "setmetatable"] {
        let original = g.get(ctx, name);
        set(
            ctx,
            g,
            name,
            Callback::from_fn_with(&ctx, original, move |original, ctx, _, stack| {
                if is_readonly(ctx, stack.get(0)) {
                    return Err(plain_error(ctx, "Attempt to modify a readonly table"));
                }
                match original {
                    Value::Function(f) => Ok(CallbackReturn::Call {
                        function: *f,
                        then: None,
                    }),
                    _ => Err(plain_error(ctx, format!("{name} is unavailable"))),
                }
            }),
        );
    }
    let original_getmt = g.get(ctx, "getmetatable");
    set(
        ctx,
        g,
        "getmetatable",
        Callback::from_fn_with(&ctx, original_getmt, |original, ctx, _, mut stack| {
            if is_readonly(ctx, stack.get(0)) || !matches!(stack.get(0), Value::Table(_)) {
                stack.replace(ctx, Value::Nil);
                return Ok(CallbackReturn::Return);
            }
            match original {
                Value::Function(f) => Ok(CallbackReturn::Call {
                    function: *f,
                    then: None,
                }),
                _ => Err(plain_error(ctx, "getmetatable is unavailable")),
            }
        }),
    );
    g.set(ctx, "_VERSION", lua_str(ctx, "Lua 5.1")).ok();
}

/// Marker field in the metatable of every read-only proxy.
pub(crate) const READONLY_MARK: &str = "__lockstep_readonly";

pub(crate) fn is_readonly<'gc>(ctx: Context<'gc>, v: Value<'gc>) -> bool {
    match v {
        Value::Table(t) => t
            .metatable()
            .is_some_and(|mt| mt.get(ctx, READONLY_MARK).to_bool()),
        _ => false,
    }
}

fn install_string<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    let string = match g.get(ctx, "string") {
        Value::Table(t) => t,
        _ => {
            let t = Table::new(&ctx);
            set(ctx, g, "string", t);
            t
        }
    };
    set(ctx, string, "format", callback(ctx, host, string_format));
    set(
        ctx,
        string,
        "find",
        callback(ctx, host, |ctx, exec, stack, host| {
            str_find(ctx, exec, stack, host, true)
        }),
    );
    set(
        ctx,
        string,
        "match",
        callback(ctx, host, |ctx, exec, stack, host| {
            str_find(ctx, exec, stack, host, false)
        }),
    );
    set(ctx, string, "gmatch", callback(ctx, host, str_gmatch));
    set(ctx, string, "gsub", callback(ctx, host, str_gsub));
    set(ctx, string, "rep", alloc::charged(ctx, host, str_rep));
    set(
        ctx,
        string,
        "byte",
        callback(ctx, host, |ctx, exec, mut stack, host| {
            let s = arg_string(ctx, &exec, host, &stack, 0, "byte")?;
            let i = arg_opt_int(ctx, &exec, host, &stack, 1, "byte", 1)?;
            let j = arg_opt_int(ctx, &exec, host, &stack, 2, "byte", i)?;
            let len = i64::try_from(s.len()).unwrap_or(i64::MAX);
            let rel = |p: i64| {
                if p < 0 {
                    len.saturating_add(p).saturating_add(1)
                } else {
                    p
                }
            };
            let start = rel(i).max(1);
            let end = rel(j).min(len);
            stack.clear();
            if start <= end {
                if end - start >= MAX_RESULTS {
                    return Err(positioned(ctx, &exec, host, "string slice too long"));
                }
                for p in start..=end {
                    let b = usize::try_from(p - 1).ok().and_then(|idx| s.get(idx).copied());
                    stack.push_back(Value::Integer(i64::from(b.unwrap_or(0))));
                }
            }
            Ok(CallbackReturn::Return)
        }),
    );
    set(
        ctx,
        string,
        "char",
        callback(ctx, host, |ctx, exec, mut stack, host| {
            let mut out = Vec::with_capacity(stack.len());
            for i in 0..stack.len() {
                let c = truncate(arg_number(ctx, &exec, host, &stack, i, "char")?);
                match u8::try_from(c) {
                    Ok(b) => out.push(b),
                    Err(_) => return Err(bad_arg(ctx, &exec, host, i + 1, "char", "invalid value")),
                }
            }
            stack.replace(ctx, lua_owned(ctx, out));
            Ok(CallbackReturn::Return)
        }),
    );
    alloc::install(ctx, g, string, host);
}

/// `string.rep(s, n)`, charged before the result is made.
fn str_rep<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &mut Stack<'gc, '_>,
    host: &Shared,
) -> Result<(), Fail<'gc>> {
    let s = arg_string(ctx, exec, host, stack, 0, "rep")?;
    let n = truncate(arg_number(ctx, exec, host, stack, 1, "rep")?);
    let count = usize::try_from(n).unwrap_or(0);
    let Some(total) = s.len().checked_mul(count) else {
        return Err(Fail::Memory);
    };
    alloc::room(ctx, host, total)?;
    alloc::copy_fuel(exec, total);
    stack.replace(ctx, lua_owned(ctx, s.repeat(count)));
    Ok(())
}

/// Pattern steps a script may spend per unit of its instruction budget: a matcher step
/// (compare a byte, try a position) is far cheaper than a VM instruction.
pub(crate) const PATTERN_STEPS_PER_FUEL: u64 = 4;

/// A pattern error as the script sees it. Running out of steps also empties the
/// instruction budget, so the script is stopped even if it catches the error.
fn pattern_error<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution,
    host: &Shared,
    e: PatError,
) -> piccolo::Error<'gc> {
    match e {
        PatError::Lua(msg) => positioned(ctx, exec, host, msg),
        PatError::Budget => {
            exec.fuel().consume(i32::MAX);
            positioned(
                ctx,
                exec,
                host,
                "pattern too complex (it ran out of lockstep's script budget)",
            )
        }
    }
}

fn steps_left(host: &Shared) -> u64 {
    host.try_borrow().map_or(0, |h| h.pattern_steps)
}

/// Records the steps a match left and charges the ones it took as instructions.
fn charge(exec: &mut Execution, host: &Shared, before: u64, after: u64) {
    if let Ok(mut h) = host.try_borrow_mut() {
        h.pattern_steps = after;
    }
    let used = before.saturating_sub(after) / PATTERN_STEPS_PER_FUEL;
    exec.fuel().consume(i32::try_from(used).unwrap_or(i32::MAX));
}

fn capture_value<'gc>(ctx: Context<'gc>, src: &[u8], c: Capture) -> Value<'gc> {
    match c {
        Capture::Span(a, b) => lua_str(ctx, src.get(a..b).unwrap_or_default()),
        Capture::Position(n) => Value::Integer(i64::try_from(n).unwrap_or(i64::MAX)),
    }
}

/// `string.find` (`find`) and `string.match`, as Lua 5.1's `str_find_aux`.
fn str_find<'gc>(
    ctx: Context<'gc>,
    mut exec: Execution<'gc, '_>,
    mut stack: Stack<'gc, '_>,
    host: &Shared,
    find: bool,
) -> CbResult<'gc> {
    let name = if find { "find" } else { "match" };
    let s = arg_string(ctx, &exec, host, &stack, 0, name)?;
    let p = arg_string(ctx, &exec, host, &stack, 1, name)?;
    let len = i64::try_from(s.len()).unwrap_or(i64::MAX);
    let init = arg_opt_int(ctx, &exec, host, &stack, 2, name, 1)?;
    let init = if init < 0 {
        init.saturating_add(len).saturating_add(1)
    } else {
        init
    };
    let init = usize::try_from(init.max(0).saturating_sub(1).min(len)).unwrap_or(0);
    let plain = find && (stack.get(3).to_bool() || pattern::is_plain(&p));
    stack.clear();
    if plain {
        let hit = if p.is_empty() {
            Some(init)
        } else {
            s.get(init..)
                .unwrap_or_default()
                .windows(p.len())
                .position(|w| w == p.as_slice())
                .map(|i| init + i)
        };
        exec.fuel()
            .consume(i32::try_from((s.len() - init) / 64).unwrap_or(i32::MAX));
        match hit {
            Some(a) => stack.extend([Value::Integer(a as i64 + 1), Value::Integer((a + p.len()) as i64)]),
            None => stack.push_back(Value::Nil),
        }
        return Ok(CallbackReturn::Return);
    }
    let before = steps_left(host);
    let (r, m) = pattern::find(&s, &p, init, before);
    charge(&mut exec, host, before, m.steps_left());
    match r.map_err(|e| pattern_error(ctx, &mut exec, host, e))? {
        Some((a, b)) => {
            if find {
                stack.extend([Value::Integer(a as i64 + 1), Value::Integer(b as i64)]);
            }
            for c in m
                .captures(a, b, !find)
                .map_err(|e| pattern_error(ctx, &mut exec, host, e))?
            {
                stack.push_back(capture_value(ctx, &s, c));
            }
        }
        None => stack.push_back(Value::Nil),
    }
    Ok(CallbackReturn::Return)
}

/// `string.gsub`'s walk over the subject, shared by every kind of replacement.
struct Gsub {
    src: Vec<u8>,
    pat: Vec<u8>,
    anchor: bool,
    max_n: i64,
    pos: usize,
    n: i64,
    out: Vec<u8>,
    done: bool,
}

impl Gsub {
    fn new(src: Vec<u8>, pat: Vec<u8>, max_n: i64) -> Gsub {
        let anchor = pat.first() == Some(&b'^');
        Gsub {
            src,
            pat,
            anchor,
            max_n,
            pos: 0,
            n: 0,
            out: Vec::new(),
            done: false,
        }
    }

    /// The next match to replace, `(start, end, its captures or the whole match)`, or
    /// `None` when the walk is over.
    #[allow(clippy::type_complexity)]
    fn next(
        &mut self,
        steps: &mut u64,
    ) -> Result<Option<(usize, usize, Vec<Result<Capture, PatError>>)>, PatError> {
        while !self.done && self.n < self.max_n {
            let mut m = Matcher::new(&self.src, &self.pat, *steps);
            let r = m.match_at(self.pos, usize::from(self.anchor));
            *steps = m.steps_left();
            if let Some(e) = r? {
                self.n += 1;
                let n = m.capture_count().max(1);
                let caps = (0..n).map(|i| m.capture(i, self.pos, e)).collect();
                return Ok(Some((self.pos, e, caps)));
            }
            self.advance(None);
        }
        Ok(None)
    }

    /// After the match ending at `e` was replaced (or after no match): on to the next
    /// position, copying one byte past an empty match.
    fn advance(&mut self, e: Option<usize>) {
        match e {
            Some(e) if e > self.pos => self.pos = e,
            _ if self.pos < self.src.len() => {
                self.out
                    .extend_from_slice(self.src.get(self.pos..=self.pos).unwrap_or_default());
                self.pos += 1;
            }
            _ => self.done = true,
        }
        if self.anchor {
            self.done = true;
        }
    }

    fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.out);
        out.extend_from_slice(self.src.get(self.pos..).unwrap_or_default());
        out
    }

    /// Lua 5.1's `add_s`: the replacement string with `%0`–`%9` and `%%`.
    fn add_string(
        &mut self,
        repl: &[u8],
        s: usize,
        e: usize,
        caps: &[Result<Capture, PatError>],
    ) -> Result<(), PatError> {
        let mut i = 0;
        while let Some(&c) = repl.get(i) {
            i += 1;
            if c != b'%' {
                self.out.push(c);
                continue;
            }
            // A `%` at the very end adds the NUL that ends a C string, as Lua 5.1 does.
            let d = repl.get(i).copied().unwrap_or(0);
            i += 1;
            match d {
                b'0' => self.out.extend_from_slice(self.src.get(s..e).unwrap_or_default()),
                b'1'..=b'9' => {
                    let cap = caps
                        .get(usize::from(d - b'1'))
                        .cloned()
                        .unwrap_or(Err(PatError::Lua("invalid capture index")))?;
                    match cap {
                        Capture::Span(a, b) => {
                            let (a, b) = (a, b);
                            let piece = self.src.get(a..b).unwrap_or_default().to_vec();
                            self.out.extend_from_slice(&piece);
                        }
                        Capture::Position(n) => self.out.extend_from_slice(n.to_string().as_bytes()),
                    }
                }
                other => self.out.push(other),
            }
        }
        Ok(())
    }

    /// A table's or function's answer for the match `s..e`: false or nil keep the match.
    fn add_value<'gc>(&mut self, v: Value<'gc>, s: usize, e: usize) -> Result<(), &'static str> {
        match v {
            Value::Nil | Value::Boolean(false) => {
                self.out.extend_from_slice(self.src.get(s..e).unwrap_or_default())
            }
            Value::String(t) => self.out.extend_from_slice(t.as_bytes()),
            other => match number_text(other) {
                Some(t) => self.out.extend_from_slice(t.as_bytes()),
                None => return Err(type_name(other)),
            },
        }
        Ok(())
    }
}

/// `string.gsub` with a function: calls it once per match, between steps of the VM.
#[derive(Collect)]
#[collect(no_drop)]
struct GsubCall<'gc> {
    f: piccolo::Function<'gc>,
    #[collect(require_static)]
    walk: Gsub,
    #[collect(require_static)]
    host: Shared,
    /// The match whose replacement the function is computing.
    #[collect(require_static)]
    pending: Option<(usize, usize)>,
}

impl<'gc> Sequence<'gc> for GsubCall<'gc> {
    fn poll(
        &mut self,
        ctx: Context<'gc>,
        mut exec: Execution<'gc, '_>,
        mut stack: Stack<'gc, '_>,
    ) -> Result<SequencePoll<'gc>, piccolo::Error<'gc>> {
        if let Some((s, e)) = self.pending.take() {
            if let Err(t) = self.walk.add_value(stack.get(0), s, e) {
                return Err(positioned(
                    ctx,
                    &exec,
                    &self.host,
                    &format!("invalid replacement value (a {t})"),
                ));
            }
            self.walk.advance(Some(e));
        }
        stack.clear();
        let before = steps_left(&self.host);
        let mut steps = before;
        let next = self.walk.next(&mut steps);
        charge(&mut exec, &self.host, before, steps);
        match next.map_err(|e| pattern_error(ctx, &mut exec, &self.host, e))? {
            Some((s, e, caps)) => {
                for c in caps {
                    let c = c.map_err(|err| pattern_error(ctx, &mut exec, &self.host, err))?;
                    stack.push_back(capture_value(ctx, &self.walk.src, c));
                }
                self.pending = Some((s, e));
                Ok(SequencePoll::Call {
                    function: self.f,
                    is_tail: false,
                })
            }
            None => {
                let out = self.walk.finish();
                if alloc::room(ctx, &self.host, out.len()).is_err() {
                    return Err(alloc::out_of_memory(ctx, &mut exec, &self.host));
                }
                stack.extend([lua_owned(ctx, out), Value::Integer(self.walk.n)]);
                Ok(SequencePoll::Return)
            }
        }
    }
}

fn str_gsub<'gc>(
    ctx: Context<'gc>,
    mut exec: Execution<'gc, '_>,
    mut stack: Stack<'gc, '_>,
    host: &Shared,
) -> CbResult<'gc> {
    let s = arg_string(ctx, &exec, host, &stack, 0, "gsub")?;
    let p = arg_string(ctx, &exec, host, &stack, 1, "gsub")?;
    let repl = stack.get(2);
    let max_n = arg_opt_int(
        ctx,
        &exec,
        host,
        &stack,
        3,
        "gsub",
        i64::try_from(s.len()).unwrap_or(i64::MAX).saturating_add(1),
    )?;
    let mut walk = Gsub::new(s, p, max_n);
    if let Value::Function(f) = repl {
        stack.clear();
        let seq = GsubCall {
            f,
            walk,
            host: host.clone(),
            pending: None,
        };
        return Ok(CallbackReturn::Sequence(BoxSequence::new(&ctx, seq)));
    }
    let text = match repl {
        Value::String(_) | Value::Integer(_) | Value::Number(_) => check_string(repl),
        Value::Table(_) => None,
        _ => {
            return Err(bad_arg(
                ctx,
                &exec,
                host,
                3,
                "gsub",
                "string/function/table expected",
            ))
        }
    };
    let before = steps_left(host);
    let mut steps = before;
    let result = (|| -> Result<(), piccolo::Error<'gc>> {
        while let Some((a, b, caps)) = walk
            .next(&mut steps)
            .map_err(|e| pattern_error(ctx, &mut exec, host, e))?
        {
            match (&text, repl) {
                (Some(t), _) => walk
                    .add_string(t, a, b, &caps)
                    .map_err(|e| pattern_error(ctx, &mut exec, host, e))?,
                (None, Value::Table(t)) => {
                    let key = caps
                        .first()
                        .cloned()
                        .unwrap_or(Err(PatError::Lua("invalid capture index")))
                        .clone()
                        .map_err(|e| pattern_error(ctx, &mut exec, host, e))?;
                    let v = t.get(ctx, capture_value(ctx, &walk.src, key));
                    walk.add_value(v, a, b).map_err(|t| {
                        positioned(ctx, &exec, host, &format!("invalid replacement value (a {t})"))
                    })?;
                }
                _ => {}
            }
            if alloc::room(ctx, host, walk.out.len()).is_err() {
                return Err(alloc::out_of_memory(ctx, &mut exec, host));
            }
            walk.advance(Some(b));
        }
        Ok(())
    })();
    charge(&mut exec, host, before, steps);
    result?;
    let out = walk.finish();
    exec.fuel()
        .consume(i32::try_from(out.len() / 64).unwrap_or(i32::MAX));
    stack.replace(ctx, (lua_owned(ctx, out), Value::Integer(walk.n)));
    Ok(CallbackReturn::Return)
}

fn str_gmatch<'gc>(
    ctx: Context<'gc>,
    exec: Execution<'gc, '_>,
    mut stack: Stack<'gc, '_>,
    host: &Shared,
) -> CbResult<'gc> {
    let s = Rc::new(arg_string(ctx, &exec, host, &stack, 0, "gmatch")?);
    let p = Rc::new(arg_string(ctx, &exec, host, &stack, 1, "gmatch")?);
    let pos = Rc::new(std::cell::Cell::new(0usize));
    // Lua 5.1's gmatch has no anchor: a leading `^` is an ordinary character.
    let iter = callback(ctx, host, move |ctx, mut exec, mut stack, host| {
        stack.clear();
        let before = steps_left(host);
        let mut m = Matcher::new(&s, &p, before);
        let mut found = None;
        let mut err = None;
        for start in pos.get()..=s.len() {
            match m.match_at(start, 0) {
                Ok(Some(e)) => {
                    found = Some((start, e));
                    break;
                }
                Ok(None) => {}
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        let after = m.steps_left();
        charge(&mut exec, host, before, after);
        if let Some(e) = err {
            return Err(pattern_error(ctx, &mut exec, host, e));
        }
        if let Some((a, b)) = found {
            pos.set(if b == a { b + 1 } else { b });
            for c in m
                .captures(a, b, true)
                .map_err(|e| pattern_error(ctx, &mut exec, host, e))?
            {
                stack.push_back(capture_value(ctx, &s, c));
            }
        }
        Ok(CallbackReturn::Return)
    });
    stack.replace(ctx, iter);
    Ok(CallbackReturn::Return)
}

fn install_table<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    let table = match g.get(ctx, "table") {
        Value::Table(t) => t,
        _ => {
            let t = Table::new(&ctx);
            set(ctx, g, "table", t);
            t
        }
    };
    if let Value::Function(unpack) = g.get(ctx, "unpack") {
        set(ctx, table, "unpack", unpack);
    }
    set(
        ctx,
        table,
        "getn",
        callback(ctx, host, |ctx, exec, mut stack, host| {
            let t = arg_table(ctx, &exec, host, &stack, 0, "getn")?;
            stack.replace(ctx, Value::Integer(t.length()));
            Ok(CallbackReturn::Return)
        }),
    );
    set(ctx, table, "insert", callback(ctx, host, table_insert));
    set(
        ctx,
        table,
        "remove",
        callback(ctx, host, |ctx, mut exec, mut stack, host| {
            let t = arg_table(ctx, &exec, host, &stack, 0, "remove")?;
            let n = t.length();
            let pos = arg_opt_int(ctx, &exec, host, &stack, 1, "remove", n)?;
            stack.clear();
            if n == 0 || pos < 1 || pos > n {
                return Ok(CallbackReturn::Return);
            }
            let removed = t.get(ctx, pos);
            for k in pos..n {
                let next = t.get(ctx, k + 1);
                let _ = t.set(ctx, k, next);
            }
            let _ = t.set(ctx, n, Value::Nil);
            exec.fuel().consume(i32::try_from(n - pos).unwrap_or(i32::MAX));
            stack.push_back(removed);
            Ok(CallbackReturn::Return)
        }),
    );
    set(ctx, table, "concat", alloc::charged(ctx, host, table_concat));
    set(
        ctx,
        table,
        "sort",
        callback(ctx, host, |ctx, mut exec, mut stack, host| {
            let t = arg_table(ctx, &exec, host, &stack, 0, "sort")?;
            if !stack.get(1).is_nil() {
                return Err(positioned(
                    ctx,
                    &exec,
                    host,
                    "table.sort with a comparison function is not supported here",
                ));
            }
            let n = t.length();
            let mut items: Vec<Value> = (1..=n).map(|k| t.get(ctx, k)).collect();
            let all_numbers = items
                .iter()
                .all(|v| matches!(v, Value::Integer(_) | Value::Number(_)));
            let all_strings = items.iter().all(|v| matches!(v, Value::String(_)));
            if !(all_numbers || all_strings) {
                return Err(positioned(
                    ctx,
                    &exec,
                    host,
                    "attempt to compare values of different types",
                ));
            }
            items.sort_by(|a, b| match (a, b) {
                (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
                _ => to_number(*a)
                    .unwrap_or(0.0)
                    .partial_cmp(&to_number(*b).unwrap_or(0.0))
                    .unwrap_or(std::cmp::Ordering::Equal),
            });
            exec.fuel().consume(i32::try_from(n).unwrap_or(i32::MAX));
            for (k, v) in (1i64..).zip(items) {
                let _ = t.set(ctx, k, v);
            }
            stack.clear();
            Ok(CallbackReturn::Return)
        }),
    );
}

/// `table.insert(t, [pos,] v)` as Lua 5.1's `tinsert`: the position is converted as
/// `luaL_checkint` does (to a C int), and the elements from it up move one place, which
/// costs one instruction each; a shift larger than the script's remaining budget stops
/// the script before it starts.
fn table_insert<'gc>(
    ctx: Context<'gc>,
    mut exec: Execution<'gc, '_>,
    mut stack: Stack<'gc, '_>,
    host: &Shared,
) -> CbResult<'gc> {
    let t = arg_table(ctx, &exec, host, &stack, 0, "insert")?;
    let e = t.length().saturating_add(1);
    let (pos, value) = match stack.len() {
        2 => (e, stack.get(1)),
        3 => {
            let pos = c_int(arg_number(ctx, &exec, host, &stack, 1, "insert")?);
            (pos, stack.get(2))
        }
        _ => {
            return Err(positioned(
                ctx,
                &exec,
                host,
                "wrong number of arguments to 'insert'",
            ))
        }
    };
    let e = e.max(pos);
    let shifts = u64::try_from(e.saturating_sub(pos)).unwrap_or(0);
    if shifts > fuel_left(host) {
        return Err(alloc::out_of_fuel(ctx, &mut exec, host));
    }
    exec.fuel().consume(i32::try_from(shifts).unwrap_or(i32::MAX));
    let mut i = e;
    while i > pos {
        let v = t.get(ctx, i - 1);
        t.set(ctx, i, v)
            .map_err(|err| positioned(ctx, &exec, host, &err.to_string()))?;
        i -= 1;
    }
    t.set(ctx, pos, value)
        .map_err(|err| positioned(ctx, &exec, host, &err.to_string()))?;
    stack.clear();
    Ok(CallbackReturn::Return)
}

/// A Lua number as `luaL_checkint` makes it a C `int` on x86-64: truncated to 64 bits
/// (out of range and NaN give `i64::MIN`), then the low 32 bits.
fn c_int(n: f64) -> i64 {
    let wide = if n.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&n) {
        i64::MIN
    } else {
        n.trunc() as i64
    };
    i64::from(wide as i32)
}

/// Instructions the running script may still spend.
fn fuel_left(host: &Shared) -> u64 {
    host.try_borrow().map_or(0, |h| h.fuel_left)
}

/// `table.concat(t [, sep [, i [, j]]])`: the result's size is known (and charged)
/// before it is made.
fn table_concat<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &mut Stack<'gc, '_>,
    host: &Shared,
) -> Result<(), Fail<'gc>> {
    let t = arg_table(ctx, exec, host, stack, 0, "concat")?;
    let sep = if stack.get(1).is_nil() {
        Vec::new()
    } else {
        arg_string(ctx, exec, host, stack, 1, "concat")?
    };
    let i = arg_opt_int(ctx, exec, host, stack, 2, "concat", 1)?;
    let j = arg_opt_int(ctx, exec, host, stack, 3, "concat", t.length())?;
    let mut total: usize = 0;
    let mut pieces = Vec::new();
    let mut k = i;
    while k <= j {
        let v = t.get(ctx, k);
        let Some(text) = check_string(v) else {
            let msg = format!(
                "invalid value ({}) at index {k} in table for 'concat'",
                type_name(v)
            );
            return Err(Fail::Lua(positioned(ctx, exec, host, &msg)));
        };
        total = total.saturating_add(text.len());
        if k != j {
            total = total.saturating_add(sep.len());
        }
        // The pieces are copied out before the result is made: both exist at the end.
        alloc::room(ctx, host, total.saturating_mul(2))?;
        exec.fuel().consume(1);
        pieces.push(text);
        if k == j {
            break;
        }
        k += 1;
    }
    alloc::copy_fuel(exec, total);
    let out = pieces.join(&sep[..]);
    stack.replace(ctx, lua_owned(ctx, out));
    Ok(())
}

fn install_math<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    // piccolo's own math library seeds its generator from OS entropy; this one is built
    // from scratch and draws from the store's seeded generator.
    let math = Table::new(&ctx);
    set(ctx, g, "math", math);
    set(ctx, math, "pi", Value::Number(std::f64::consts::PI));
    set(ctx, math, "huge", Value::Number(f64::INFINITY));
    type Unary = fn(f64) -> f64;
    let unary: [(&'static str, Unary); 14] = [
        ("abs", f64::abs),
        ("ceil", f64::ceil),
        ("floor", f64::floor),
        ("sqrt", f64::sqrt),
        ("exp", f64::exp),
        ("log10", f64::log10),
        ("sin", f64::sin),
        ("cos", f64::cos),
        ("tan", f64::tan),
        ("asin", f64::asin),
        ("acos", f64::acos),
        ("atan", f64::atan),
        ("deg", f64::to_degrees),
        ("rad", f64::to_radians),
    ];
    for (name, f) in unary {
        set(
            ctx,
            math,
            name,
            callback(ctx, host, move |ctx, exec, mut stack, host| {
                let x = arg_number(ctx, &exec, host, &stack, 0, name)?;
                stack.replace(ctx, number_value(f(x)));
                Ok(CallbackReturn::Return)
            }),
        );
    }
    set(
        ctx,
        math,
        "log",
        callback(ctx, host, |ctx, exec, mut stack, host| {
            let x = arg_number(ctx, &exec, host, &stack, 0, "log")?;
            stack.replace(ctx, number_value(x.ln()));
            Ok(CallbackReturn::Return)
        }),
    );
    type Binary = fn(f64, f64) -> f64;
    let binary: [(&'static str, Binary); 3] =
        [("pow", f64::powf), ("fmod", |a, b| a % b), ("atan2", f64::atan2)];
    for (name, f) in binary {
        set(
            ctx,
            math,
            name,
            callback(ctx, host, move |ctx, exec, mut stack, host| {
                let a = arg_number(ctx, &exec, host, &stack, 0, name)?;
                let b = arg_number(ctx, &exec, host, &stack, 1, name)?;
                stack.replace(ctx, number_value(f(a, b)));
                Ok(CallbackReturn::Return)
            }),
        );
    }
    for (name, want_max) in [("max", true), ("min", false)] {
        set(
            ctx,
            math,
            name,
            callback(ctx, host, move |ctx, exec, mut stack, host| {
                let mut best = arg_number(ctx, &exec, host, &stack, 0, name)?;
                for i in 1..stack.len() {
                    let x = arg_number(ctx, &exec, host, &stack, i, name)?;
                    if (want_max && x > best) || (!want_max && x < best) {
                        best = x;
                    }
                }
                stack.replace(ctx, number_value(best));
                Ok(CallbackReturn::Return)
            }),
        );
    }
    set(
        ctx,
        math,
        "modf",
        callback(ctx, host, |ctx, exec, mut stack, host| {
            let x = arg_number(ctx, &exec, host, &stack, 0, "modf")?;
            stack.replace(ctx, (number_value(x.trunc()), number_value(x.fract())));
            Ok(CallbackReturn::Return)
        }),
    );
    // math.random as Lua 5.1 defines it, drawing from the store's seeded generator.
    set(
        ctx,
        math,
        "random",
        callback(ctx, host, |ctx, exec, mut stack, host| {
            let r: f64 = host.borrow_mut().rng.gen();
            let result = match stack.len() {
                0 => Value::Number(r),
                1 => {
                    let u = arg_number(ctx, &exec, host, &stack, 0, "random")?.floor();
                    if u < 1.0 {
                        return Err(bad_arg(ctx, &exec, host, 1, "random", "interval is empty"));
                    }
                    number_value((r * u).floor() + 1.0)
                }
                2 => {
                    let l = arg_number(ctx, &exec, host, &stack, 0, "random")?.floor();
                    let u = arg_number(ctx, &exec, host, &stack, 1, "random")?.floor();
                    if l > u {
                        return Err(bad_arg(ctx, &exec, host, 2, "random", "interval is empty"));
                    }
                    number_value((r * (u - l + 1.0)).floor() + l)
                }
                _ => return Err(positioned(ctx, &exec, host, "wrong number of arguments")),
            };
            stack.replace(ctx, result);
            Ok(CallbackReturn::Return)
        }),
    );
    set(
        ctx,
        math,
        "randomseed",
        callback(ctx, host, |ctx, exec, mut stack, host| {
            let seed = truncate(arg_number(ctx, &exec, host, &stack, 0, "randomseed")?);
            host.borrow_mut().rng = ChaCha8Rng::seed_from_u64(seed as u64);
            stack.clear();
            Ok(CallbackReturn::Return)
        }),
    );
}

fn install_redis<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    let redis = Table::new(&ctx);
    set(ctx, g, "redis", redis);
    set(
        ctx,
        redis,
        "call",
        callback(ctx, host, |ctx, exec, stack, host| {
            redis_call(ctx, exec, stack, host, true)
        }),
    );
    set(
        ctx,
        redis,
        "pcall",
        callback(ctx, host, |ctx, exec, stack, host| {
            redis_call(ctx, exec, stack, host, false)
        }),
    );
    set(
        ctx,
        redis,
        "sha1hex",
        callback(ctx, host, |ctx, _, mut stack, _| {
            if stack.len() != 1 {
                return Err(plain_error(ctx, "wrong number of arguments"));
            }
            let text = check_string(stack.get(0)).unwrap_or_default();
            let hex = sha1_smol::Sha1::from(text).digest().to_string();
            stack.replace(ctx, lua_str(ctx, hex));
            Ok(CallbackReturn::Return)
        }),
    );
    set(
        ctx,
        redis,
        "error_reply",
        callback(ctx, host, |ctx, _, mut stack, _| {
            let reply = match (stack.len(), stack.get(0)) {
                (1, Value::String(s)) => Reply::Error(error_reply_text(s.as_bytes())),
                _ => Reply::err("ERR wrong number or type of arguments"),
            };
            stack.replace(ctx, reply_to_lua(ctx, &reply));
            Ok(CallbackReturn::Return)
        }),
    );
    set(
        ctx,
        redis,
        "status_reply",
        callback(ctx, host, |ctx, _, mut stack, _| {
            let reply = match (stack.len(), stack.get(0)) {
                (1, Value::String(s)) => Reply::Status(String::from_utf8_lossy(s.as_bytes()).into_owned()),
                _ => Reply::err("ERR wrong number or type of arguments"),
            };
            stack.replace(ctx, reply_to_lua(ctx, &reply));
            Ok(CallbackReturn::Return)
        }),
    );
    // Logging, RESP3 and replication switches are accepted and do nothing here.
    for name in ["log", "setresp", "set_repl", "breakpoint", "debug"] {
        set(
            ctx,
            redis,
            name,
            Callback::from_fn(&ctx, |_, _, mut stack| {
                stack.clear();
                Ok(CallbackReturn::Return)
            }),
        );
    }
    set(
        ctx,
        redis,
        "replicate_commands",
        Callback::from_fn(&ctx, |ctx, _, mut stack| {
            stack.replace(ctx, true);
            Ok(CallbackReturn::Return)
        }),
    );
    for (name, v) in [
        ("LOG_DEBUG", 0),
        ("LOG_VERBOSE", 1),
        ("LOG_NOTICE", 2),
        ("LOG_WARNING", 3),
        ("REPL_NONE", 0),
        ("REPL_AOF", 1),
        ("REPL_SLAVE", 2),
        ("REPL_REPLICA", 2),
        ("REPL_ALL", 3),
        ("REDIS_VERSION_NUM", 0x07000f),
    ] {
        set(ctx, redis, name, Value::Integer(v));
    }
    set(ctx, redis, "REDIS_VERSION", lua_str(ctx, "7.0.15"));
}

/// `redis.error_reply`'s text (`luaPushErrorBuff`): a leading `-` is dropped, and a message
/// without its own error code (no space) gets `ERR`.
fn error_reply_text(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let text = text.strip_prefix('-').unwrap_or(&text);
    let text = if text.contains(' ') {
        text.to_string()
    } else {
        format!("ERR {text}")
    };
    text.trim_end_matches(['\r', '\n']).to_string()
}

/// `redis.call` (raise = true) and `redis.pcall`.
fn redis_call<'gc>(
    ctx: Context<'gc>,
    exec: Execution<'gc, '_>,
    mut stack: Stack<'gc, '_>,
    host: &Shared,
    raise: bool,
) -> CbResult<'gc> {
    note_line(&exec, host);
    let mut argv: Vec<Vec<u8>> = Vec::with_capacity(stack.len());
    let mut failure = None;
    if stack.is_empty() {
        failure = Some("ERR Please specify at least one argument for this redis lib call");
    }
    for i in 0..stack.len() {
        match stack.get(i) {
            Value::String(s) => argv.push(s.as_bytes().to_vec()),
            Value::Integer(n) => argv.push(n.to_string().into_bytes()),
            Value::Number(n) => argv.push(cfmt::g(n, 17).into_bytes()),
            _ => {
                failure = Some("ERR Lua redis lib command arguments must be strings or integers");
                break;
            }
        }
    }
    let reply = match failure {
        Some(msg) => Reply::err(msg),
        None => {
            let Ok(mut h) = host.try_borrow_mut() else {
                return Err(plain_error(ctx, "ERR re-entrant redis.call"));
            };
            cmd::execute_from_script(&mut h.db, &argv)
        }
    };
    if let (true, Reply::Error(msg)) = (raise, &reply) {
        if let Ok(mut h) = host.try_borrow_mut() {
            h.call_error = Some(msg.clone().into_bytes());
        }
        return Err(plain_error(ctx, msg.as_bytes()));
    }
    let value = reply_to_lua(ctx, &reply);
    stack.replace(ctx, value);
    Ok(CallbackReturn::Return)
}

/// Lua 5.1's `string.format`.
fn string_format<'gc>(
    ctx: Context<'gc>,
    mut exec: Execution<'gc, '_>,
    mut stack: Stack<'gc, '_>,
    host: &Shared,
) -> CbResult<'gc> {
    let fmt = arg_string(ctx, &exec, host, &stack, 0, "format")?;
    let mut out: Vec<u8> = Vec::new();
    let mut arg = 0usize;
    let mut i = 0usize;
    while let Some(&c) = fmt.get(i) {
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        // Flags, width (2 digits at most), precision (2 digits at most).
        let mut spec = Spec::default();
        let flags_start = i;
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if i - flags_start > 5 {
            return Err(positioned(ctx, &exec, host, "invalid format (repeated flags)"));
        }
        let digits = |i: &mut usize| {
            let mut n = 0usize;
            let mut count = 0;
            while let Some(d) = fmt.get(*i).filter(|d| d.is_ascii_digit()) {
                // Saturating: a run of digits must end in Lua's "too long" error, not an overflow.
                n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                *i += 1;
                count += 1;
            }
            (n, count)
        };
        let (width, wc) = digits(&mut i);
        spec.width = width;
        let mut pc = 0;
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            let (p, count) = digits(&mut i);
            spec.precision = Some(p);
            pc = count;
        }
        if wc > 2 || pc > 2 {
            return Err(positioned(
                ctx,
                &exec,
                host,
                "invalid format (width or precision too long)",
            ));
        }
        let conv = fmt.get(i).copied();
        i += 1;
        arg += 1;
        if conv.is_some_and(|c| b"cdiouxXeEfgGqs".contains(&c)) && arg >= stack.len() {
            return Err(bad_arg(ctx, &exec, host, arg + 1, "format", "no value"));
        }
        let body: Vec<u8> = match conv {
            Some(b'c') => {
                let n = truncate(arg_number(ctx, &exec, host, &stack, arg, "format")?);
                pad(&spec, &[n as u8], false)
            }
            Some(b'd' | b'i') => {
                let n = truncate(arg_number(ctx, &exec, host, &stack, arg, "format")?);
                pad(&spec, cfmt::format_int(&spec, n).as_bytes(), true)
            }
            Some(conv @ (b'o' | b'u' | b'x' | b'X')) => {
                let n = truncate(arg_number(ctx, &exec, host, &stack, arg, "format")?);
                pad(&spec, cfmt::format_radix(&spec, n, conv).as_bytes(), true)
            }
            Some(conv @ (b'e' | b'E')) => {
                let x = arg_number(ctx, &exec, host, &stack, arg, "format")?;
                pad(
                    &spec,
                    cfmt::format_e(&spec, x, conv == b'E').as_bytes(),
                    x.is_finite(),
                )
            }
            Some(b'f') => {
                let x = arg_number(ctx, &exec, host, &stack, arg, "format")?;
                if x.abs() > 1e100 {
                    // Lua 5.1 caps %f's buffer; huge values are refused rather than printed.
                    return Err(bad_arg(
                        ctx,
                        &exec,
                        host,
                        arg + 1,
                        "format",
                        "number too large for %f",
                    ));
                }
                pad(&spec, cfmt::format_f(&spec, x).as_bytes(), x.is_finite())
            }
            Some(conv @ (b'g' | b'G')) => {
                let x = arg_number(ctx, &exec, host, &stack, arg, "format")?;
                pad(
                    &spec,
                    cfmt::format_g(&spec, x, conv == b'G').as_bytes(),
                    x.is_finite(),
                )
            }
            Some(b'q') => {
                let s = arg_string(ctx, &exec, host, &stack, arg, "format")?;
                let mut q = Vec::with_capacity(s.len() + 2);
                q.push(b'"');
                for &b in &s {
                    match b {
                        b'"' => q.extend_from_slice(b"\\\""),
                        b'\\' => q.extend_from_slice(b"\\\\"),
                        b'\n' => q.extend_from_slice(b"\\\n"),
                        b'\r' => q.extend_from_slice(b"\\r"),
                        0 => q.extend_from_slice(b"\\000"),
                        other => q.push(other),
                    }
                }
                q.push(b'"');
                q
            }
            Some(b's') => {
                let s = arg_string(ctx, &exec, host, &stack, arg, "format")?;
                if spec.precision.is_none() && s.len() >= 100 {
                    s
                } else {
                    let cut = spec.precision.map_or(s.len(), |p| p.min(s.len()));
                    pad(&spec, s.get(..cut).unwrap_or(&s), false)
                }
            }
            other => {
                let shown = other.map(|c| char::from(c).to_string()).unwrap_or_default();
                let msg = format!("invalid option '%{shown}' to 'format'");
                return Err(positioned(ctx, &exec, host, &msg));
            }
        };
        out.extend_from_slice(&body);
        if alloc::room(ctx, host, out.len()).is_err() {
            return Err(alloc::out_of_memory(ctx, &mut exec, host));
        }
    }
    exec.fuel()
        .consume(i32::try_from(out.len() / 64).unwrap_or(i32::MAX));
    stack.replace(ctx, lua_owned(ctx, out));
    Ok(CallbackReturn::Return)
}

fn pad(spec: &Spec, body: &[u8], numeric: bool) -> Vec<u8> {
    cfmt::pad(spec, body, numeric)
}

/// Wraps a library table in a read-only proxy: reads go through to it, writes error like
/// Redis 7's read-only tables.
pub(crate) fn readonly_proxy<'gc>(ctx: Context<'gc>, target: Table<'gc>, host: &Shared) -> Table<'gc> {
    let proxy = Table::new(&ctx);
    let meta = Table::new(&ctx);
    set(
        ctx,
        meta,
        "__index",
        Callback::from_fn_with(&ctx, target, |target, ctx, _, mut stack| {
            let v = target.get(ctx, stack.get(1));
            stack.replace(ctx, v);
            Ok(CallbackReturn::Return)
        }),
    );
    set(ctx, meta, "__newindex", readonly_error(ctx, host));
    set(ctx, meta, READONLY_MARK, true);
    let _ = proxy.set_metatable(&ctx, Some(meta));
    proxy
}

pub(crate) fn readonly_error<'gc>(ctx: Context<'gc>, host: &Shared) -> Callback<'gc> {
    callback(ctx, host, |ctx, exec, _, host| {
        Err(positioned(ctx, &exec, host, "Attempt to modify a readonly table"))
    })
}

/// The global environment scripts run in: reads of missing globals and every write error
/// as in Redis 7.
pub(crate) fn global_env<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) -> Table<'gc> {
    let env = Table::new(&ctx);
    let meta = Table::new(&ctx);
    let host_for_index = host.clone();
    set(
        ctx,
        meta,
        "__index",
        Callback::from_fn_with(&ctx, g, move |g, ctx, exec, mut stack| {
            let key = stack.get(1);
            let v = g.get(ctx, key);
            if v.is_nil() {
                let name = check_string(key).unwrap_or_default();
                let msg = format!(
                    "Script attempted to access nonexistent global variable '{}'",
                    String::from_utf8_lossy(&name)
                );
                return Err(positioned(ctx, &exec, &host_for_index, &msg));
            }
            note_line(&exec, &host_for_index);
            stack.replace(ctx, v);
            Ok(CallbackReturn::Return)
        }),
    );
    set(ctx, meta, "__newindex", readonly_error(ctx, host));
    set(ctx, meta, READONLY_MARK, true);
    let _ = env.set_metatable(&ctx, Some(meta));
    env
}

/// Replaces each library table in `g` by a read-only proxy of itself.
pub(crate) fn protect_libraries<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    for name in ["string", "table", "math", "redis", "coroutine", "bit", "cjson"] {
        if let Value::Table(lib) = g.get(ctx, name) {
            let proxy = readonly_proxy(ctx, lib, host);
            let _ = g.set(ctx, name, proxy);
        }
    }
}

/// What `pcall` and `xpcall` hand the script for an error: a runtime error as
/// `user_script:LINE: message` in Lua 5.1's words, a value raised with `error` as it was.
fn caught<'gc>(ctx: Context<'gc>, host: &Shared, error: &piccolo::Error<'gc>) -> Value<'gc> {
    match error {
        piccolo::Error::Runtime(rt) => {
            let line = host.try_borrow().map(|h| h.line).unwrap_or(1);
            let (line, text) = super::runtime_text(rt, line);
            lua_str(ctx, format!("user_script:{line}: {text}"))
        }
        piccolo::Error::Lua(_) => error.to_value(ctx),
    }
}

#[derive(Collect)]
#[collect(require_static)]
struct PCall {
    host: Shared,
}

impl<'gc> Sequence<'gc> for PCall {
    fn poll(
        &mut self,
        _ctx: Context<'gc>,
        _exec: Execution<'gc, '_>,
        mut stack: Stack<'gc, '_>,
    ) -> Result<SequencePoll<'gc>, piccolo::Error<'gc>> {
        stack.push_front(Value::Boolean(true));
        Ok(SequencePoll::Return)
    }

    fn error(
        &mut self,
        ctx: Context<'gc>,
        _exec: Execution<'gc, '_>,
        error: piccolo::Error<'gc>,
        mut stack: Stack<'gc, '_>,
    ) -> Result<SequencePoll<'gc>, piccolo::Error<'gc>> {
        let value = caught(ctx, &self.host, &error);
        stack.clear();
        stack.extend([Value::Boolean(false), value]);
        Ok(SequencePoll::Return)
    }
}

/// After `xpcall`'s function: `true, results...`, or the handler's first result after
/// `false`.
#[derive(Collect)]
#[collect(no_drop)]
struct XPCall<'gc> {
    #[collect(require_static)]
    host: Shared,
    handler: Value<'gc>,
    handling: bool,
}

impl<'gc> Sequence<'gc> for XPCall<'gc> {
    fn poll(
        &mut self,
        ctx: Context<'gc>,
        _exec: Execution<'gc, '_>,
        mut stack: Stack<'gc, '_>,
    ) -> Result<SequencePoll<'gc>, piccolo::Error<'gc>> {
        if self.handling {
            let first = stack.get(0);
            stack.replace(ctx, (false, first));
        } else {
            stack.push_front(Value::Boolean(true));
        }
        Ok(SequencePoll::Return)
    }

    fn error(
        &mut self,
        ctx: Context<'gc>,
        _exec: Execution<'gc, '_>,
        error: piccolo::Error<'gc>,
        mut stack: Stack<'gc, '_>,
    ) -> Result<SequencePoll<'gc>, piccolo::Error<'gc>> {
        let value = caught(ctx, &self.host, &error);
        stack.clear();
        stack.push_back(value);
        self.handling = true;
        let handler = piccolo::meta_ops::call(ctx, self.handler)?;
        Ok(SequencePoll::Call {
            function: handler,
            is_tail: false,
        })
    }
}

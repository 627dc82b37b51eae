//! The Lua library a Redis 7.0 script sees, on top of piccolo's base, string, table and
//! coroutine libraries: the `redis` table, the Lua 5.1 functions piccolo 0.3.3 lacks or
//! implements differently (`tonumber`, `tostring`, `error`, `unpack`, `string.format`,
//! `table.insert`/`concat`/`remove`, ...), a seeded `math`, and read-only globals.

use gc_arena::Collect;
use piccolo::{
    BoxSequence, Callback, CallbackReturn, Context, Execution, Sequence, SequencePoll, Stack, Table, Value,
};

use super::convert::truncate;
use super::errors::runtime_text;
use super::host::Shared;
use super::lauxlib::{
    arg_opt_int, arg_table, bad_arg, callback, check_string, lua_str, note_line, number_text, number_value,
    plain_error, positioned, set, to_number, MAX_RESULTS,
};

mod math;
mod redis;
mod string;
mod table;

use math::*;
use redis::*;
pub(crate) use string::PATTERN_STEPS_PER_FUEL;
use string::*;
use table::*;

/// Installs everything into the real globals table `g`.
pub(crate) fn install<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    install_base(ctx, g, host);
    install_base_errors(ctx, g, host);
    install_base_tables(ctx, g, host);
    install_string(ctx, g, host);
    install_table(ctx, g, host);
    install_math(ctx, g, host);
    install_redis(ctx, g, host);
}

/// Lua 5.1's `tostring` and `tonumber` (numbers as `%.14g`).
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
}

/// `error`, `pcall` and `xpcall`, with Lua 5.1's messages and positions.
fn install_base_errors<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
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
}

/// `unpack` with Lua 5.1's bound on results, the raw functions that must respect
/// read-only tables, and `_VERSION`.
fn install_base_tables<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
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
            let (line, text) = runtime_text(rt, line);
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

//! Charging allocations where they happen. Every library function that makes a string
//! (or anything else whose size the script controls) asks for room first: the bytes must
//! fit under the script's memory cap together with everything the Lua heap holds. When
//! they do not, the function asks the host for a full collection and tries once more on
//! the next step (the heap may hold garbage); if they still do not fit, the script is
//! killed with the memory error, which `pcall` cannot catch.

use gc_arena::Collect;
use piccolo::{
    BoxSequence, Callback, CallbackReturn, Context, Execution, Sequence, SequencePoll, Stack, Table, Value,
};

use super::host::Shared;
use super::lauxlib::{check_string, lua_owned, lua_str, note_line, number_text, positioned};

/// Why a charged operation did not finish.
pub(crate) enum Fail<'gc> {
    /// An ordinary Lua error (bad argument, ...).
    Lua(piccolo::Error<'gc>),
    /// The result does not fit under the memory cap right now.
    Memory,
}

impl<'gc> From<piccolo::Error<'gc>> for Fail<'gc> {
    fn from(e: piccolo::Error<'gc>) -> Self {
        Fail::Lua(e)
    }
}

/// A library function whose allocations are charged.
pub(crate) type Op = for<'gc, 'a, 'b> fn(
    Context<'gc>,
    &mut Execution<'gc, 'a>,
    &mut Stack<'gc, 'b>,
    &Shared,
) -> Result<(), Fail<'gc>>;

/// Whether `bytes` more fit under the cap now.
pub(crate) fn room<'gc>(ctx: Context<'gc>, host: &Shared, bytes: usize) -> Result<(), Fail<'gc>> {
    let Ok(mut h) = host.try_borrow_mut() else {
        return Err(Fail::Memory);
    };
    let used = ctx.metrics().total_allocation();
    if used.saturating_add(bytes) > h.memory_limit {
        Err(Fail::Memory)
    } else {
        h.charged = h.charged.saturating_add(bytes);
        Ok(())
    }
}

/// Fuel for copying `bytes` (a VM instruction moves far more than one byte).
pub(crate) fn copy_fuel(exec: &mut Execution, bytes: usize) {
    exec.fuel()
        .consume(i32::try_from(bytes / 256).unwrap_or(i32::MAX));
}

/// The callback for a charged operation.
pub(crate) fn charged<'gc>(ctx: Context<'gc>, host: &Shared, op: Op) -> Callback<'gc> {
    let host = host.clone();
    Callback::from_fn(&ctx, move |ctx, mut exec, mut stack| {
        match op(ctx, &mut exec, &mut stack, &host) {
            Ok(()) => Ok(CallbackReturn::Return),
            Err(Fail::Lua(e)) => Err(e),
            Err(Fail::Memory) => {
                if let Ok(mut h) = host.try_borrow_mut() {
                    h.gc_wanted = true;
                }
                exec.fuel().interrupt();
                Ok(CallbackReturn::Sequence(BoxSequence::new(
                    &ctx,
                    Retry {
                        host: host.clone(),
                        op: StaticOp(op),
                    },
                )))
            }
        }
    })
}

/// Ends the script for memory: the error unwinds, and the host kills the script at the
/// end of this step whatever catches it on the way.
pub(crate) fn out_of_memory<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution,
    host: &Shared,
) -> piccolo::Error<'gc> {
    note_line(exec, host);
    if let Ok(mut h) = host.try_borrow_mut() {
        h.oom = true;
    }
    exec.fuel().interrupt();
    lua_str(ctx, "not enough memory").into()
}

#[derive(Clone, Copy)]
struct StaticOp(Op);

#[derive(Collect)]
#[collect(require_static)]
struct Retry {
    host: Shared,
    op: StaticOp,
}

impl<'gc> Sequence<'gc> for Retry {
    fn poll(
        &mut self,
        ctx: Context<'gc>,
        mut exec: Execution<'gc, '_>,
        mut stack: Stack<'gc, '_>,
    ) -> Result<SequencePoll<'gc>, piccolo::Error<'gc>> {
        match (self.op.0)(ctx, &mut exec, &mut stack, &self.host) {
            Ok(()) => Ok(SequencePoll::Return),
            Err(Fail::Lua(e)) => Err(e),
            Err(Fail::Memory) => Err(out_of_memory(ctx, &mut exec, &self.host)),
        }
    }
}

/// `a .. b` (the rewrite turns every `..` into a call of this).
fn concat<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &mut Stack<'gc, '_>,
    host: &Shared,
) -> Result<(), Fail<'gc>> {
    let (a, b) = (stack.get(0), stack.get(1));
    let len = |v: Value<'gc>| match v {
        Value::String(s) => Some(s.as_bytes().len()),
        other => number_text(other).map(|t| t.len()),
    };
    let (Some(la), Some(lb)) = (len(a), len(b)) else {
        // Lua 5.1 blames the left operand unless it is a string or a number; the rewrite
        // passes each operand's name (`local 'v'`, `field 'x'`) after them, or nil.
        let (bad, name) = if len(a).is_none() {
            (a, stack.get(2))
        } else {
            (b, stack.get(3))
        };
        let type_name = super::lauxlib::type_name(bad);
        let msg = match name {
            Value::String(n) => format!(
                "attempt to concatenate {} (a {type_name} value)",
                String::from_utf8_lossy(n.as_bytes())
            ),
            _ => format!("attempt to concatenate a {type_name} value"),
        };
        return Err(Fail::Lua(positioned(ctx, exec, host, &msg)));
    };
    let total = la.saturating_add(lb);
    room(ctx, host, total)?;
    copy_fuel(exec, total);
    let mut out = Vec::with_capacity(total);
    for v in [a, b] {
        match v {
            Value::String(s) => out.extend_from_slice(s.as_bytes()),
            other => out.extend(number_text(other).unwrap_or_default().into_bytes()),
        }
    }
    stack.replace(ctx, lua_owned(ctx, out));
    Ok(())
}

/// A string argument, as `luaL_checklstring` (numbers convert).
fn arg_bytes<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &Stack<'gc, '_>,
    host: &Shared,
    fname: &str,
) -> Result<Vec<u8>, Fail<'gc>> {
    let v = stack.get(0);
    check_string(v).ok_or_else(|| {
        let got = if v.is_nil() && stack.is_empty() {
            "no value".to_string()
        } else {
            format!("string expected, got {}", super::lauxlib::type_name(v))
        };
        Fail::Lua(positioned(
            ctx,
            exec,
            host,
            &format!("bad argument #1 to '{fname}' ({got})"),
        ))
    })
}

fn map_bytes<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &mut Stack<'gc, '_>,
    host: &Shared,
    fname: &str,
    f: fn(Vec<u8>) -> Vec<u8>,
) -> Result<(), Fail<'gc>> {
    let s = arg_bytes(ctx, exec, stack, host, fname)?;
    room(ctx, host, s.len())?;
    copy_fuel(exec, s.len());
    stack.replace(ctx, lua_owned(ctx, f(s)));
    Ok(())
}

fn upper<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &mut Stack<'gc, '_>,
    host: &Shared,
) -> Result<(), Fail<'gc>> {
    map_bytes(ctx, exec, stack, host, "upper", |mut s| {
        s.make_ascii_uppercase();
        s
    })
}

fn lower<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &mut Stack<'gc, '_>,
    host: &Shared,
) -> Result<(), Fail<'gc>> {
    map_bytes(ctx, exec, stack, host, "lower", |mut s| {
        s.make_ascii_lowercase();
        s
    })
}

fn reverse<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &mut Stack<'gc, '_>,
    host: &Shared,
) -> Result<(), Fail<'gc>> {
    map_bytes(ctx, exec, stack, host, "reverse", |mut s| {
        s.reverse();
        s
    })
}

/// `string.sub(s, i [, j])` as Lua 5.1.
fn sub<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &mut Stack<'gc, '_>,
    host: &Shared,
) -> Result<(), Fail<'gc>> {
    let s = arg_bytes(ctx, exec, stack, host, "sub")?;
    let len = i64::try_from(s.len()).unwrap_or(i64::MAX);
    let int = |v: Value<'gc>, default: i64| -> Option<i64> {
        if v.is_nil() {
            return Some(default);
        }
        super::lauxlib::to_number(v).map(super::convert::truncate)
    };
    let (Some(i), Some(j)) = (int(stack.get(1), 1), int(stack.get(2), -1)) else {
        let which = if int(stack.get(1), 1).is_none() { 2 } else { 3 };
        let msg = format!("bad argument #{which} to 'sub' (number expected)");
        return Err(Fail::Lua(positioned(ctx, exec, host, &msg)));
    };
    let rel = |p: i64| {
        if p < 0 {
            len.saturating_add(p).saturating_add(1)
        } else {
            p
        }
    };
    let start = rel(i).max(1);
    let end = rel(j).min(len);
    let piece = if start > end {
        &[][..]
    } else {
        let a = usize::try_from(start - 1).unwrap_or(0);
        let b = usize::try_from(end).unwrap_or(0);
        s.get(a..b).unwrap_or_default()
    };
    // The argument's copy exists while the piece is made.
    room(ctx, host, s.len().saturating_add(piece.len()))?;
    copy_fuel(exec, piece.len());
    stack.replace(ctx, lua_str(ctx, piece));
    Ok(())
}

/// Installs the hidden concat and method helpers and the charged string functions.
pub(crate) fn install<'gc>(ctx: Context<'gc>, g: Table<'gc>, string: Table<'gc>, host: &Shared) {
    let _ = g.set(ctx, super::rewrite::CONCAT, charged(ctx, host, concat));
    let _ = string.set(ctx, "upper", charged(ctx, host, upper));
    let _ = string.set(ctx, "lower", charged(ctx, host, lower));
    let _ = string.set(ctx, "reverse", charged(ctx, host, reverse));
    let _ = string.set(ctx, "sub", charged(ctx, host, sub));
    let _ = g.set(ctx, super::rewrite::METHOD, method_callback(ctx, string, host));
}

/// `METHOD(obj, name, objname, args...)`: `obj:name(args...)`, where a string's methods are
/// the string library's functions (Lua 5.1's string metatable); `objname` (`local 't'`, or
/// nil) names the object when it cannot be indexed.
fn method_callback<'gc>(ctx: Context<'gc>, string: Table<'gc>, host: &Shared) -> Callback<'gc> {
    let host = host.clone();
    Callback::from_fn_with(&ctx, string, move |string, ctx, exec, mut stack| {
        note_line(&exec, &host);
        let obj = stack.get(0);
        let name = stack.get(1);
        let found = match obj {
            Value::String(_) => piccolo::meta_ops::MetaResult::Value(string.get(ctx, name)),
            other => piccolo::meta_ops::index(ctx, other, name).map_err(|_| {
                let type_name = super::lauxlib::type_name(other);
                let msg = match stack.get(2) {
                    Value::String(n) => format!(
                        "attempt to index {} (a {type_name} value)",
                        String::from_utf8_lossy(n.as_bytes())
                    ),
                    _ => format!("attempt to index a {type_name} value"),
                };
                positioned(ctx, &exec, &host, &msg)
            })?,
        };
        // Drop the names: the stack becomes (obj, args...).
        let _ = stack.pop_front();
        let _ = stack.pop_front();
        let _ = stack.pop_front();
        stack.push_front(obj);
        match found {
            piccolo::meta_ops::MetaResult::Value(f) => {
                let function = piccolo::meta_ops::call(ctx, f).map_err(|_| {
                    let n = check_string(name).unwrap_or_default();
                    positioned(
                        ctx,
                        &exec,
                        &host,
                        &format!(
                            "attempt to call method '{}' (a {} value)",
                            String::from_utf8_lossy(&n),
                            super::lauxlib::type_name(f)
                        ),
                    )
                })?;
                Ok(CallbackReturn::Call { function, then: None })
            }
            piccolo::meta_ops::MetaResult::Call(call) => {
                let args: Vec<Value<'gc>> = stack.drain(..).collect();
                stack.extend(call.args);
                Ok(CallbackReturn::Call {
                    function: call.function,
                    then: Some(BoxSequence::new(&ctx, ThenCall { args, done: false })),
                })
            }
        }
    })
}

/// After an `__index` function found the method: call it with the saved arguments.
#[derive(Collect)]
#[collect(no_drop)]
struct ThenCall<'gc> {
    args: Vec<Value<'gc>>,
    done: bool,
}

impl<'gc> Sequence<'gc> for ThenCall<'gc> {
    fn poll(
        &mut self,
        ctx: Context<'gc>,
        _exec: Execution<'gc, '_>,
        mut stack: Stack<'gc, '_>,
    ) -> Result<SequencePoll<'gc>, piccolo::Error<'gc>> {
        if self.done {
            return Ok(SequencePoll::Return);
        }
        self.done = true;
        let f = stack.get(0);
        let function = piccolo::meta_ops::call(ctx, f)?;
        stack.clear();
        stack.extend(self.args.drain(..));
        Ok(SequencePoll::Call {
            function,
            is_tail: true,
        })
    }
}

/// Ends the script for its instruction budget (a loop that would run longer than the
/// budget left is refused before it starts).
pub(crate) fn out_of_fuel<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution,
    host: &Shared,
) -> piccolo::Error<'gc> {
    note_line(exec, host);
    exec.fuel().consume(i32::MAX);
    exec.fuel().interrupt();
    lua_str(ctx, "script budget exhausted").into()
}

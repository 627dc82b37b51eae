//! `coroutine.wrap`, which piccolo 0.3.3's coroutine library lacks: a function that
//! resumes a new coroutine with its arguments, returns what the coroutine yields or
//! returns, and raises the coroutine's error as its own with the caller's position in
//! front, as Lua 5.1's `auxwrap` does (`luaL_where(L, 1)`).

use gc_arena::Collect;
use piccolo::{
    BoxSequence, Callback, CallbackReturn, Context, Execution, Function, Sequence, SequencePoll, Stack,
    Table, Thread, ThreadMode, Value,
};

use super::host::Shared;
use super::lauxlib::{bad_arg, check_string, lua_str, note_line, positioned};

pub(crate) fn install<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    let Value::Table(coroutine) = g.get(ctx, "coroutine") else {
        return;
    };
    let host = host.clone();
    let wrap = Callback::from_fn(&ctx, move |ctx, exec, mut stack| {
        // Lua 5.1 wraps only Lua functions.
        let Value::Function(function @ Function::Closure(_)) = stack.get(0) else {
            return Err(bad_arg(ctx, &exec, &host, 1, "wrap", "Lua function expected"));
        };
        let thread = Thread::new(ctx);
        // A fresh thread is stopped, so starting it cannot fail; say so if it ever does.
        if thread.start_suspended(&ctx, function).is_err() {
            return Err(bad_arg(
                ctx,
                &exec,
                &host,
                1,
                "wrap",
                "cannot start the coroutine",
            ));
        }
        stack.replace(ctx, resumer(ctx, thread, &host));
        Ok(CallbackReturn::Return)
    });
    let _ = coroutine.set(ctx, "wrap", wrap);
}

/// The function `coroutine.wrap` returns.
fn resumer<'gc>(ctx: Context<'gc>, thread: Thread<'gc>, host: &Shared) -> Callback<'gc> {
    let host = host.clone();
    Callback::from_fn_with(&ctx, thread, move |thread, ctx, exec, _stack| {
        match thread.mode() {
            ThreadMode::Suspended => {}
            ThreadMode::Stopped | ThreadMode::Result => {
                return Err(positioned(ctx, &exec, &host, "cannot resume dead coroutine"));
            }
            _ => {
                return Err(positioned(ctx, &exec, &host, "cannot resume running coroutine"));
            }
        }
        // The caller's line, or (a tail call) the line the script was last seen on.
        let line = note_line(&exec, &host).or_else(|| host.try_borrow().ok().map(|h| h.line));
        Ok(CallbackReturn::Resume {
            thread: *thread,
            then: Some(BoxSequence::new(&ctx, Rethrow { line })),
        })
    })
}

/// Passes the coroutine's results through, and puts `user_script:LINE: ` in front of a
/// string (or number) error.
#[derive(Collect)]
#[collect(require_static)]
struct Rethrow {
    line: Option<u64>,
}

impl<'gc> Sequence<'gc> for Rethrow {
    fn poll(
        &mut self,
        _ctx: Context<'gc>,
        _exec: Execution<'gc, '_>,
        _stack: Stack<'gc, '_>,
    ) -> Result<SequencePoll<'gc>, piccolo::Error<'gc>> {
        Ok(SequencePoll::Return)
    }

    fn error(
        &mut self,
        ctx: Context<'gc>,
        _exec: Execution<'gc, '_>,
        error: piccolo::Error<'gc>,
        _stack: Stack<'gc, '_>,
    ) -> Result<SequencePoll<'gc>, piccolo::Error<'gc>> {
        let piccolo::Error::Lua(value) = &error else {
            return Err(error);
        };
        match (self.line, check_string(value.0)) {
            (Some(line), Some(text)) => {
                let mut msg = format!("user_script:{line}: ").into_bytes();
                msg.extend_from_slice(&text);
                Err(lua_str(ctx, msg).into())
            }
            _ => Err(error),
        }
    }
}

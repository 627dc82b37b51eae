//! The `redis` table: `call`/`pcall` into the store (errors as Redis replies them),
//! `sha1hex`, `status_reply`/`error_reply`, `log`, `setresp` and the rest.

use piccolo::{Callback, CallbackReturn, Context, Execution, Stack, Table, Value};

use crate::store::reply::Reply;
use crate::store::script::cfmt;
use crate::store::script::convert::reply_to_lua;
use crate::store::script::host::Shared;
use crate::store::script::lauxlib::{callback, check_string, lua_str, note_line, plain_error, set, CbResult};

pub(super) fn install_redis<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
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
pub(super) fn error_reply_text(raw: &[u8]) -> String {
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
pub(super) fn redis_call<'gc>(
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
            let dispatch = h.dispatch;
            dispatch.call(&mut h.db, &argv)
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

//! `table`: Lua 5.1's `insert`, `remove`, `concat`, `getn`, `maxn`, `sort`, with
//! every allocation charged and every loop fuelled.

use piccolo::{CallbackReturn, Context, Execution, Stack, Table, Value};

use crate::store::script::alloc::{self, Fail};
use crate::store::script::host::Shared;
use crate::store::script::lauxlib::{
    arg_number, arg_opt_int, arg_string, arg_table, callback, check_string, lua_owned, positioned, set,
    to_number, type_name, CbResult,
};

pub(super) fn install_table<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
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
            crate::sorting::sort_by(&mut items, |a, b| match (a, b) {
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
pub(super) fn table_insert<'gc>(
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
pub(super) fn c_int(n: f64) -> i64 {
    let wide = if n.is_nan() || !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&n) {
        i64::MIN
    } else {
        n.trunc() as i64
    };
    i64::from(wide as i32)
}

/// Instructions the running script may still spend.
pub(super) fn fuel_left(host: &Shared) -> u64 {
    host.try_borrow().map_or(0, |h| h.fuel_left)
}

/// `table.concat(t [, sep [, i [, j]]])`: the result's size is known (and charged)
/// before it is made.
pub(super) fn table_concat<'gc>(
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

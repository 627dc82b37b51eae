//! `math`, Lua 5.1's, with `random` seeded per script run as Redis seeds it.

use piccolo::{CallbackReturn, Context, Table, Value};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::store::script::convert::truncate;
use crate::store::script::host::Shared;
use crate::store::script::lauxlib::{arg_number, bad_arg, callback, number_value, positioned, set};

pub(super) fn install_math<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
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

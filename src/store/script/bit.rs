//! The `bit` library Redis 7.0 ships (LuaBitOp 1.0.2): bitwise operations on 32-bit
//! integers. A number becomes its 32 bits as LuaBitOp's `barg` does it: add 2^52 + 2^51
//! to the double and keep the low word, which rounds to nearest (ties to even) and wraps
//! modulo 2^32. Results are signed 32-bit numbers; `tohex` makes at most 8 bytes, and the
//! variadic `band`/`bor`/`bxor` loop over the call's arguments (bounded by the stack).

use piccolo::{Callback, CallbackReturn, Context, Execution, Stack, Table, Value};

use super::host::Shared;
use super::lauxlib::{bad_arg, lua_str, to_number, type_name};

/// LuaBitOp's `barg`: argument `i` as 32 bits, or "number expected" when it is not a
/// number (nor a string that reads as one) and the bits come out 0.
fn barg<'gc>(
    ctx: Context<'gc>,
    exec: &Execution,
    host: &Shared,
    stack: &Stack<'gc, '_>,
    i: usize,
    fname: &str,
) -> Result<u32, piccolo::Error<'gc>> {
    let v = stack.get(i);
    let n = to_number(v);
    let bits = tobit(n.unwrap_or(0.0));
    if bits == 0 && n.is_none() {
        let got = if i >= stack.len() {
            "no value"
        } else {
            type_name(v)
        };
        return Err(bad_arg(
            ctx,
            exec,
            host,
            i + 1,
            fname,
            &format!("number expected, got {got}"),
        ));
    }
    Ok(bits)
}

/// The low 32 bits of `n + 2^52 + 2^51`, exactly as the C union trick gives them.
pub(crate) fn tobit(n: f64) -> u32 {
    // Truncation to the low word is the point.
    #[allow(clippy::cast_possible_truncation)]
    let low = (n + 6_755_399_441_055_744.0).to_bits() as u32;
    low
}

fn num<'gc>(b: u32) -> Value<'gc> {
    Value::Integer(i64::from(b as i32))
}

/// `tohex`'s text: the low `n` hex digits of `b` (upper case when `n` < 0), at most 8.
pub(crate) fn hex(b: u32, n: i32) -> Vec<u8> {
    let (digits, n): (&[u8; 16], i32) = if n < 0 {
        (b"0123456789ABCDEF", n.wrapping_neg())
    } else {
        (b"0123456789abcdef", n)
    };
    let n = n.clamp(0, 8);
    (0..n)
        .rev()
        .map(|i| {
            let nibble = (b >> (4 * i)) & 15;
            digits.get(nibble as usize).copied().unwrap_or(b'0')
        })
        .collect()
}

type Fold = fn(u32, u32) -> u32;
type Shift = fn(u32, u32) -> u32;

pub(crate) fn install<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    let bit = Table::new(&ctx);
    let _ = g.set(ctx, "bit", bit);
    let put = |name: &'static str, cb: Callback<'gc>| {
        let _ = bit.set(ctx, name, cb);
    };
    let mk = |f: for<'a> fn(
        Context<'a>,
        Execution<'a, '_>,
        Stack<'a, '_>,
        &Shared,
    ) -> Result<CallbackReturn<'a>, piccolo::Error<'a>>| {
        let host = host.clone();
        Callback::from_fn(&ctx, move |ctx, exec, stack| f(ctx, exec, stack, &host))
    };
    put(
        "tobit",
        mk(|ctx, exec, mut stack, host| {
            let b = barg(ctx, &exec, host, &stack, 0, "tobit")?;
            stack.replace(ctx, num(b));
            Ok(CallbackReturn::Return)
        }),
    );
    put(
        "bnot",
        mk(|ctx, exec, mut stack, host| {
            let b = barg(ctx, &exec, host, &stack, 0, "bnot")?;
            stack.replace(ctx, num(!b));
            Ok(CallbackReturn::Return)
        }),
    );
    put(
        "tohex",
        mk(|ctx, exec, mut stack, host| {
            let b = barg(ctx, &exec, host, &stack, 0, "tohex")?;
            let n = if stack.len() < 2 {
                8
            } else {
                barg(ctx, &exec, host, &stack, 1, "tohex")? as i32
            };
            stack.replace(ctx, lua_str(ctx, hex(b, n)));
            Ok(CallbackReturn::Return)
        }),
    );
    let folds: [(&'static str, Fold); 3] = [
        ("band", |a, b| a & b),
        ("bor", |a, b| a | b),
        ("bxor", |a, b| a ^ b),
    ];
    for (name, f) in folds {
        let host = host.clone();
        put(
            name,
            Callback::from_fn(&ctx, move |ctx, exec, mut stack| {
                let mut b = barg(ctx, &exec, &host, &stack, 0, name)?;
                // LuaBitOp reads the arguments from the last to the second.
                for i in (1..stack.len()).rev() {
                    b = f(b, barg(ctx, &exec, &host, &stack, i, name)?);
                }
                stack.replace(ctx, num(b));
                Ok(CallbackReturn::Return)
            }),
        );
    }
    let shifts: [(&'static str, Shift); 5] = [
        ("lshift", |b, n| b << n),
        ("rshift", |b, n| b >> n),
        ("arshift", |b, n| ((b as i32) >> n) as u32),
        ("rol", u32::rotate_left),
        ("ror", u32::rotate_right),
    ];
    for (name, f) in shifts {
        let host = host.clone();
        put(
            name,
            Callback::from_fn(&ctx, move |ctx, exec, mut stack| {
                let b = barg(ctx, &exec, &host, &stack, 0, name)?;
                let n = barg(ctx, &exec, &host, &stack, 1, name)? & 31;
                stack.replace(ctx, num(f(b, n)));
                Ok(CallbackReturn::Return)
            }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tobit_rounds_to_nearest_even_and_wraps() {
        assert_eq!(tobit(1.5), 2);
        assert_eq!(tobit(2.5), 2);
        assert_eq!(tobit(-1.0), u32::MAX);
        assert_eq!(tobit(4_294_967_296.0 + 5.0), 5);
        assert_eq!(tobit(f64::INFINITY), 0);
        assert_eq!(tobit(f64::NAN), 0);
    }

    #[test]
    fn hex_pads_clamps_and_uppercases() {
        assert_eq!(hex(255, 8), b"000000ff".to_vec());
        assert_eq!(hex(255, -4), b"00FF".to_vec());
        assert_eq!(hex(0x1234_5678, 20), b"12345678".to_vec());
        assert_eq!(hex(0x1234_5678, 2), b"78".to_vec());
        assert_eq!(hex(1, i32::MIN), Vec::<u8>::new());
    }
}

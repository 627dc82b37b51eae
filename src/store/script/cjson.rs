//! `cjson.encode`, `cjson.decode` and `cjson.null` as Redis 7.0 ships them (lua-cjson 2.1.0
//! with its defaults). A table is an array when every key is a positive integer and it is
//! not excessively sparse (largest key over twice the number of items, and over 10: an
//! error); otherwise an object, whose keys this VM writes sorted (`order.rs`: Redis writes
//! them in its hash order). Numbers as `%.14g`, `/` as `\/`, NaN and infinities refused;
//! nesting at most 1 000 deep either way; the decoder reads numbers as C's `strtod` (hex,
//! `inf`, `nan`, leading `+` and zeros: lua-cjson's `decode_invalid_numbers` is on) and stops
//! at a NUL byte, and errors name the token and its position as lua-cjson does.
//!
//! Both walk with an explicit stack (never recursion on the input's depth), burn fuel per
//! value and per copied byte (refusing to go past the budget left), and charge what they
//! build before they build it: the encoder its output and key lists, the decoder its
//! scratch buffer, strings, tables and each table's next growth.

use piccolo::{Context, Execution, Stack, Table, UserData, Value};

use super::alloc::{self, room, Fail};
use super::cfmt;
use super::host::Shared;
use super::lauxlib::{lua_owned, lua_str, number_value, positioned, type_name};

/// lua-cjson's default `encode_max_depth` and `decode_max_depth`.
const MAX_DEPTH: usize = 1000;
/// Bytes charged per array slot, per object entry and per new table (over-estimates of
/// piccolo's `Value`, hash entry with its control byte and load factor, and table header).
const ARRAY_SLOT: usize = 16;
const MAP_SLOT: usize = 64;
const TABLE_BYTES: usize = 256;
/// The raw global holding `cjson.null` (a name no Lua identifier can spell).
const NULL_KEY: &str = "\0cjson.null";

pub(crate) fn install<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
    let cjson = Table::new(&ctx);
    let _ = cjson.set(ctx, "encode", alloc::charged(ctx, host, encode));
    let _ = cjson.set(ctx, "decode", alloc::charged(ctx, host, decode));
    let null = Value::UserData(UserData::new_static(&ctx, ()));
    let _ = cjson.set(ctx, "null", null);
    let _ = cjson.set(ctx, "_NAME", "cjson");
    let _ = cjson.set(ctx, "_VERSION", "2.1.0");
    let _ = g.set(ctx, "cjson", cjson);
    let _ = g.set(ctx, NULL_KEY, null);
}

/// Whether `v` is `cjson.null` (one userdata per VM, as Redis's is the NULL light userdata).
pub(crate) fn is_null<'gc>(ctx: Context<'gc>, v: Value<'gc>) -> bool {
    matches!((v, ctx.globals().get(ctx, NULL_KEY)), (Value::UserData(u), Value::UserData(n)) if n == u)
}

fn lua_err<'gc>(ctx: Context<'gc>, exec: &Execution, host: &Shared, msg: &str) -> Fail<'gc> {
    Fail::Lua(positioned(ctx, exec, host, msg))
}

/// Fuel for one more step of a walk; the script's budget ends the walk when it runs out.
fn burn<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution,
    host: &Shared,
    spent: &mut u64,
    n: u64,
) -> Result<(), Fail<'gc>> {
    *spent = spent.saturating_add(n);
    if *spent > host.try_borrow().map_or(0, |h| h.fuel_left) {
        return Err(Fail::Lua(alloc::out_of_fuel(ctx, exec, host)));
    }
    exec.fuel().consume(i32::try_from(n).unwrap_or(i32::MAX));
    Ok(())
}

fn one_argument<'gc>(
    ctx: Context<'gc>,
    exec: &Execution,
    host: &Shared,
    stack: &Stack<'gc, '_>,
    fname: &str,
) -> Result<Value<'gc>, Fail<'gc>> {
    if stack.len() != 1 {
        let msg = format!("bad argument #1 to '{fname}' (expected 1 argument)");
        return Err(lua_err(ctx, exec, host, &msg));
    }
    Ok(stack.get(0))
}

/// Appends byte `c` as lua-cjson's `char2escape` writes it.
fn push_escaped(out: &mut Vec<u8>, c: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short: &[u8] = match c {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'/' => b"\\/",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x08 => b"\\b",
        0x0c => b"\\f",
        c if c < 0x20 || c == 0x7f => {
            out.extend_from_slice(b"\\u00");
            out.extend(HEX.get(usize::from(c >> 4)));
            out.extend(HEX.get(usize::from(c & 15)));
            return;
        }
        c => return out.push(c),
    };
    out.extend_from_slice(short);
}

/// The encoder's output and the key lists it holds, all charged before they grow.
struct Out<'gc> {
    bytes: Vec<u8>,
    /// Bytes held by the key lists of the open objects.
    keys: usize,
    ctx: Context<'gc>,
}

impl<'gc> Out<'gc> {
    /// Room for `more` bytes besides what the output and key lists hold.
    fn room(&self, host: &Shared, more: usize) -> Result<(), Fail<'gc>> {
        room(
            self.ctx,
            host,
            self.bytes
                .capacity()
                .saturating_add(self.keys)
                .saturating_add(more),
        )
    }

    /// Capacity for `more` bytes after the output, charged before the buffer grows.
    fn reserve(&mut self, host: &Shared, more: usize) -> Result<(), Fail<'gc>> {
        let need = self.bytes.len().saturating_add(more);
        if need > self.bytes.capacity() {
            // While the buffer moves, both copies exist.
            let grown = need.max(self.bytes.capacity().saturating_mul(2)).max(64);
            self.room(host, grown)?;
            self.bytes.reserve_exact(grown - self.bytes.len());
        }
        Ok(())
    }

    fn put(&mut self, host: &Shared, b: &[u8]) -> Result<(), Fail<'gc>> {
        self.reserve(host, b.len())?;
        self.bytes.extend_from_slice(b);
        Ok(())
    }

    fn string(&mut self, host: &Shared, s: &[u8]) -> Result<(), Fail<'gc>> {
        // An escape makes at most 6 bytes of one.
        self.reserve(host, s.len().saturating_mul(6).saturating_add(2))?;
        self.bytes.push(b'"');
        for &c in s {
            push_escaped(&mut self.bytes, c);
        }
        self.bytes.push(b'"');
        Ok(())
    }
}

/// A number as lua-cjson writes it (`%.14g`), or its error for NaN and infinities.
fn number_bytes(v: Value) -> Result<Vec<u8>, &'static str> {
    let n = match v {
        Value::Integer(i) => i as f64,
        Value::Number(n) => n,
        _ => return Err("type not supported"),
    };
    if n.is_finite() {
        Ok(cfmt::g(n, 14).into_bytes())
    } else {
        Err("Cannot serialise number: must not be NaN or Inf")
    }
}

/// lua-cjson's `lua_array_length`: `Ok(Some(n))` when every key is a positive integer
/// (n the largest, kept in a C `int` as lua-cjson does: a key past `INT_MAX` makes it
/// `INT_MIN`, so such a table is an object), `Ok(None)` for an object; also the number of
/// keys.
fn array_length<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution,
    host: &Shared,
    spent: &mut u64,
    table: Table<'gc>,
) -> Result<(Option<usize>, usize), Fail<'gc>> {
    let (mut max, mut items, mut array) = (0_i32, 0_usize, true);
    for (k, _) in table.iter() {
        burn(ctx, exec, host, spent, 1)?;
        items += 1;
        let n = match k {
            Value::Integer(i) => i as f64,
            Value::Number(n) => n,
            _ => f64::NAN,
        };
        if n.floor() == n && n >= 1.0 {
            if n > f64::from(max) {
                // x86's cvttsd2si: out of range is INT_MIN.
                max = if n < 2_147_483_648.0 { n as i32 } else { i32::MIN };
            }
        } else {
            array = false;
        }
    }
    if !array {
        return Ok((None, items));
    }
    if i64::from(max) > 2 * items as i64 && max > 10 {
        return Err(lua_err(
            ctx,
            exec,
            host,
            "Cannot serialise table: excessively sparse array",
        ));
    }
    // Bounded: at most 2·items + 10.
    Ok((usize::try_from(max).ok(), items))
}

enum Frame<'gc> {
    Array {
        table: Table<'gc>,
        next: usize,
        len: usize,
    },
    Object {
        table: Table<'gc>,
        keys: Vec<Value<'gc>>,
        next: usize,
    },
}

fn encode<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &mut Stack<'gc, '_>,
    host: &Shared,
) -> Result<(), Fail<'gc>> {
    let value = one_argument(ctx, exec, host, stack, "encode")?;
    let mut out = Out {
        bytes: Vec::new(),
        // The stack of open tables, at its deepest.
        keys: 2 * MAX_DEPTH * std::mem::size_of::<Frame>(),
        ctx,
    };
    let mut frames: Vec<Frame<'gc>> = Vec::new();
    let mut spent = 0_u64;
    // The value to write next, if any; then the innermost frame moves on.
    let mut pending = Some(value);
    loop {
        if let Some(v) = pending.take() {
            burn(ctx, exec, host, &mut spent, 1)?;
            match v {
                Value::Nil => out.put(host, b"null")?,
                Value::Boolean(b) => out.put(host, if b { b"true" } else { b"false" })?,
                Value::Integer(_) | Value::Number(_) => {
                    let text = number_bytes(v).map_err(|m| lua_err(ctx, exec, host, m))?;
                    out.put(host, &text)?;
                }
                Value::String(s) => {
                    burn(ctx, exec, host, &mut spent, (s.as_bytes().len() / 64) as u64)?;
                    out.string(host, s.as_bytes())?;
                }
                Value::Table(t) => {
                    if frames.len() >= MAX_DEPTH {
                        let msg = format!("Cannot serialise, excessive nesting ({})", frames.len() + 1);
                        return Err(lua_err(ctx, exec, host, &msg));
                    }
                    match array_length(ctx, exec, host, &mut spent, t)? {
                        (Some(len), _) if len > 0 => {
                            out.put(host, b"[")?;
                            frames.push(Frame::Array {
                                table: t,
                                next: 1,
                                len,
                            });
                        }
                        (_, items) => {
                            out.put(host, b"{")?;
                            let bytes = items.saturating_mul(std::mem::size_of::<Value>());
                            out.room(host, bytes)?;
                            let cost = items.saturating_mul(1 + items.max(1).ilog2() as usize / 8);
                            burn(ctx, exec, host, &mut spent, cost as u64)?;
                            let mut keys = Vec::with_capacity(items);
                            keys.extend(t.iter().map(|(k, _)| k).take(items));
                            crate::sorting::sort_by(&mut keys, |a, b| super::order::compare(*a, *b));
                            out.keys = out.keys.saturating_add(bytes);
                            frames.push(Frame::Object {
                                table: t,
                                keys,
                                next: 0,
                            });
                        }
                    }
                }
                v if is_null(ctx, v) => out.put(host, b"null")?,
                other => {
                    let msg = format!("Cannot serialise {}: type not supported", type_name(other));
                    return Err(lua_err(ctx, exec, host, &msg));
                }
            }
        }
        let Some(top) = frames.last_mut() else { break };
        match top {
            Frame::Array { table, next, len } => {
                if *next > *len {
                    frames.pop();
                    out.put(host, b"]")?;
                    continue;
                }
                if *next > 1 {
                    out.put(host, b",")?;
                }
                pending = Some(table.get(ctx, *next as i64));
                *next += 1;
            }
            Frame::Object { table, keys, next } => {
                let Some(&k) = keys.get(*next) else {
                    out.keys = out
                        .keys
                        .saturating_sub(keys.capacity() * std::mem::size_of::<Value>());
                    frames.pop();
                    out.put(host, b"}")?;
                    continue;
                };
                if *next > 0 {
                    out.put(host, b",")?;
                }
                *next += 1;
                pending = Some(table.get_value(k));
                match k {
                    Value::String(s) => out.string(host, s.as_bytes())?,
                    Value::Integer(_) | Value::Number(_) => {
                        let text = number_bytes(k).map_err(|m| lua_err(ctx, exec, host, m))?;
                        out.put(host, b"\"")?;
                        out.put(host, &text)?;
                        out.put(host, b"\"")?;
                    }
                    other => {
                        let msg = format!(
                            "Cannot serialise {}: table key must be a number or string",
                            type_name(other)
                        );
                        return Err(lua_err(ctx, exec, host, &msg));
                    }
                }
                out.put(host, b":")?;
            }
        }
    }
    // The Lua string is made while the buffer still exists.
    room(ctx, host, out.bytes.capacity().saturating_add(out.bytes.len()))?;
    stack.replace(ctx, lua_owned(ctx, out.bytes));
    Ok(())
}

#[derive(Clone, Copy, PartialEq)]
enum Tok {
    ObjBegin,
    ObjEnd,
    ArrBegin,
    ArrEnd,
    Str,
    Num,
    Bool,
    Null,
    Colon,
    Comma,
    End,
    Error(&'static str),
}

fn tok_name(t: Tok) -> &'static str {
    match t {
        Tok::ObjBegin => "T_OBJ_BEGIN",
        Tok::ObjEnd => "T_OBJ_END",
        Tok::ArrBegin => "T_ARR_BEGIN",
        Tok::ArrEnd => "T_ARR_END",
        Tok::Str => "T_STRING",
        Tok::Num => "T_NUMBER",
        Tok::Bool => "T_BOOLEAN",
        Tok::Null => "T_NULL",
        Tok::Colon => "T_COLON",
        Tok::Comma => "T_COMMA",
        Tok::End => "T_END",
        Tok::Error(m) => m,
    }
}

/// lua-cjson's tokeniser over the input up to its first NUL (C's end of string).
struct Lexer<'s> {
    src: &'s [u8],
    pos: usize,
    /// The last string token's bytes (sized for the whole input, as lua-cjson's buffer is).
    text: Vec<u8>,
    num: f64,
    flag: bool,
}

impl Lexer<'_> {
    fn at(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    /// The next token and its 0-based index (for an error: where the lexer stopped).
    fn next(&mut self) -> (Tok, usize) {
        while matches!(self.at(self.pos), b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
        let start = self.pos;
        let c = self.at(start);
        let single = match c {
            b'{' => Tok::ObjBegin,
            b'}' => Tok::ObjEnd,
            b'[' => Tok::ArrBegin,
            b']' => Tok::ArrEnd,
            b':' => Tok::Colon,
            b',' => Tok::Comma,
            0 => return (Tok::End, start),
            b'"' => {
                let t = self.string();
                let at = if matches!(t, Tok::Error(_)) {
                    self.pos
                } else {
                    start
                };
                return (t, at);
            }
            b'-' | b'0'..=b'9' => return (self.number(), start),
            _ => return (self.word(), start),
        };
        self.pos += 1;
        (single, start)
    }

    fn word(&mut self) -> Tok {
        let rest = self.src.get(self.pos..).unwrap_or_default();
        if !matches!(rest.first(), Some(b't' | b'f' | b'n' | b'i' | b'I' | b'N' | b'+')) {
            return Tok::Error("invalid token");
        }
        for (w, tok, flag) in [
            (&b"true"[..], Tok::Bool, true),
            (b"false", Tok::Bool, false),
            (b"null", Tok::Null, false),
        ] {
            if rest.starts_with(w) {
                self.pos += w.len();
                self.flag = flag;
                return tok;
            }
        }
        let lower = |n: usize| rest.get(n..n + 3).map(<[u8]>::to_ascii_lowercase);
        if rest.first() == Some(&b'+') || matches!(lower(0).as_deref(), Some(b"inf" | b"nan")) {
            return self.number();
        }
        Tok::Error("invalid token")
    }

    fn number(&mut self) -> Tok {
        match strtod(self.src.get(self.pos..).unwrap_or_default()) {
            Some((n, used)) => {
                self.pos += used;
                self.num = n;
                Tok::Num
            }
            None => Tok::Error("invalid number"),
        }
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        (0..4).try_fold(0, |acc, i| {
            Some(acc * 16 + char::from(self.at(at + i)).to_digit(16)?)
        })
    }

    /// A string token; an error's index is where the lexer stopped (`self.pos`).
    fn string(&mut self) -> Tok {
        self.text.clear();
        self.pos += 1;
        loop {
            match self.at(self.pos) {
                b'"' => {
                    self.pos += 1;
                    return Tok::Str;
                }
                0 => return Tok::Error("unexpected end of string"),
                b'\\' => {
                    let c = match self.at(self.pos + 1) {
                        c @ (b'"' | b'\\' | b'/') => c,
                        b'b' => 0x08,
                        b'f' => 0x0c,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'u' => {
                            let Some((ch, used)) = self.unicode() else {
                                return Tok::Error("invalid unicode escape code");
                            };
                            let mut buf = [0_u8; 4];
                            self.text.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                            self.pos += used;
                            continue;
                        }
                        _ => return Tok::Error("invalid escape code"),
                    };
                    self.text.push(c);
                    self.pos += 2;
                }
                c => {
                    self.text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `\uXXXX` (or a surrogate pair) at `pos`: the character and the bytes it took.
    fn unicode(&self) -> Option<(char, usize)> {
        let hi = self.hex4(self.pos + 2)?;
        if hi & 0xf800 != 0xd800 {
            return Some((char::from_u32(hi)?, 6));
        }
        if hi & 0x400 != 0 || self.at(self.pos + 6) != b'\\' || self.at(self.pos + 7) != b'u' {
            return None;
        }
        let lo = self.hex4(self.pos + 8)?;
        if lo & 0xfc00 != 0xdc00 {
            return None;
        }
        Some((
            char::from_u32((((hi & 0x3ff) << 10) | (lo & 0x3ff)) + 0x10000)?,
            12,
        ))
    }
}

/// C's `strtod` on the front of `s`: the number and the bytes it took, or `None` when no
/// number starts there. Decimal, hex (`0x1.8p3`), `inf`/`infinity`, `nan`/`nan(...)`.
fn strtod(s: &[u8]) -> Option<(f64, usize)> {
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    let neg = at(0) == b'-';
    let i = usize::from(matches!(at(0), b'-' | b'+'));
    let sign = |v: f64| if neg { -v } else { v };
    let word = |i: usize, w: &[u8]| s.get(i..i + w.len()).is_some_and(|x| x.eq_ignore_ascii_case(w));
    if word(i, b"inf") {
        let used = if word(i, b"infinity") { i + 8 } else { i + 3 };
        return Some((sign(f64::INFINITY), used));
    }
    if word(i, b"nan") {
        let mut end = i + 3;
        if at(end) == b'(' {
            let close = (end + 1..).find(|&j| !at(j).is_ascii_alphanumeric() && at(j) != b'_')?;
            if at(close) == b')' {
                end = close + 1;
            }
        }
        return Some((sign(f64::NAN), end));
    }
    let digits = |from: usize, radix: u32| {
        (from..)
            .find(|&j| !char::from(at(j)).is_digit(radix))
            .unwrap_or(from)
    };
    if at(i) == b'0' && at(i + 1) | 0x20 == b'x' {
        let start = i + 2;
        let int_end = digits(start, 16);
        let frac_end = if at(int_end) == b'.' {
            digits(int_end + 1, 16)
        } else {
            int_end
        };
        if frac_end > start + usize::from(at(int_end) == b'.') {
            let mut m = 0_f64;
            let mut scale = 0_i32;
            for j in start..frac_end {
                if let Some(d) = char::from(at(j)).to_digit(16) {
                    m = m * 16.0 + f64::from(d);
                    if j > int_end {
                        scale -= 4;
                    }
                }
            }
            let mut end = frac_end;
            if at(end) | 0x20 == b'p' {
                let (eneg, estart) = match at(end + 1) {
                    b'-' => (true, end + 2),
                    b'+' => (false, end + 2),
                    _ => (false, end + 1),
                };
                let eend = digits(estart, 10);
                if eend > estart {
                    let e: i32 = s
                        .get(estart..eend)
                        .and_then(|t| std::str::from_utf8(t).ok()?.parse().ok())
                        .unwrap_or(i32::MAX);
                    scale = scale.saturating_add(if eneg { e.saturating_neg() } else { e });
                    end = eend;
                }
            }
            return Some((sign(m * 2_f64.powi(scale)), end));
        }
        // "0x" without digits: strtod reads the 0.
        return Some((sign(0.0), i + 1));
    }
    let int_end = digits(i, 10);
    let frac_end = if at(int_end) == b'.' {
        digits(int_end + 1, 10)
    } else {
        int_end
    };
    if frac_end == i || frac_end == i + 1 && at(i) == b'.' {
        return None;
    }
    let mut end = frac_end;
    if at(end) | 0x20 == b'e' {
        let estart = end + 1 + usize::from(matches!(at(end + 1), b'+' | b'-'));
        let eend = digits(estart, 10);
        if eend > estart {
            end = eend;
        }
    }
    let text = std::str::from_utf8(s.get(..end)?).ok()?;
    Some((text.parse().ok()?, end))
}

/// A table the decoder is filling: its items so far and, for an object, the pending key.
struct Open<'gc> {
    table: Table<'gc>,
    items: usize,
    key: Option<Value<'gc>>,
}

fn decode<'gc>(
    ctx: Context<'gc>,
    exec: &mut Execution<'gc, '_>,
    stack: &mut Stack<'gc, '_>,
    host: &Shared,
) -> Result<(), Fail<'gc>> {
    let arg = one_argument(ctx, exec, host, stack, "decode")?;
    let owned;
    let bytes: &[u8] = match arg {
        Value::String(s) => s.as_bytes(),
        Value::Integer(_) | Value::Number(_) => {
            owned = super::lauxlib::number_text(arg).unwrap_or_default();
            owned.as_bytes()
        }
        other => {
            let msg = format!(
                "bad argument #1 to 'decode' (string expected, got {})",
                type_name(other)
            );
            return Err(lua_err(ctx, exec, host, &msg));
        }
    };
    if bytes.len() >= 2 && (bytes.first() == Some(&0) || bytes.get(1) == Some(&0)) {
        return Err(lua_err(
            ctx,
            exec,
            host,
            "JSON parser does not support UTF-16 or UTF-32",
        ));
    }
    let src = bytes.split(|&b| b == 0).next().unwrap_or_default();
    let mut spent = 0_u64;
    burn(ctx, exec, host, &mut spent, (src.len() / 64) as u64)?;
    room(ctx, host, src.len())?;
    let mut lx = Lexer {
        src,
        pos: 0,
        text: Vec::with_capacity(src.len()),
        num: 0.0,
        flag: false,
    };
    // Every later check counts the scratch buffer and the stack of open tables too.
    let held = src.len() + 2 * MAX_DEPTH * std::mem::size_of::<Open>();
    let mut open: Vec<Open<'gc>> = Vec::new();
    let fail = |exec: &Execution, exp: &str, (t, at): (Tok, usize)| {
        let msg = format!("Expected {exp} but found {} at character {}", tok_name(t), at + 1);
        lua_err(ctx, exec, host, &msg)
    };
    let mut tok = lx.next();
    let result = 'value: loop {
        burn(ctx, exec, host, &mut spent, 1)?;
        let mut value = match tok.0 {
            Tok::Str => {
                room(ctx, host, held + lx.text.len() + 32)?;
                lua_str(ctx, &lx.text)
            }
            Tok::Num => number_value(lx.num),
            Tok::Bool => Value::Boolean(lx.flag),
            Tok::Null => ctx.globals().get(ctx, NULL_KEY),
            Tok::ObjBegin | Tok::ArrBegin => {
                if open.len() >= MAX_DEPTH {
                    let msg = format!(
                        "Found too many nested data structures ({}) at character {}",
                        open.len() + 1,
                        lx.pos
                    );
                    return Err(lua_err(ctx, exec, host, &msg));
                }
                room(ctx, host, held + TABLE_BYTES)?;
                let table = Table::new(&ctx);
                let first = lx.next();
                let close = if tok.0 == Tok::ArrBegin {
                    Tok::ArrEnd
                } else {
                    Tok::ObjEnd
                };
                if first.0 == close {
                    Value::Table(table)
                } else if tok.0 == Tok::ArrBegin {
                    open.push(Open {
                        table,
                        items: 0,
                        key: None,
                    });
                    tok = first;
                    continue;
                } else {
                    let key = object_key(ctx, host, held, &mut lx, first).map_err(|e| match e {
                        Ok((exp, t)) => fail(exec, exp, t),
                        Err(f) => f,
                    })?;
                    open.push(Open {
                        table,
                        items: 0,
                        key: Some(key),
                    });
                    tok = lx.next();
                    continue;
                }
            }
            _ => return Err(fail(exec, "value", tok)),
        };
        // Store `value` in the innermost open table, closing those that end here.
        while let Some(top) = open.last_mut() {
            // The table may grow to twice its size, both copies alive while it moves.
            let slot = if top.key.is_some() { MAP_SLOT } else { ARRAY_SLOT };
            room(ctx, host, held + 3 * slot * top.items.max(4))?;
            top.items += 1;
            let key = top.key.unwrap_or(Value::Integer(top.items as i64));
            let _ = top.table.set(ctx, key, value);
            let t = lx.next();
            let (close, expected) = match top.key {
                None => (Tok::ArrEnd, "comma or array end"),
                Some(_) => (Tok::ObjEnd, "comma or object end"),
            };
            if t.0 == close {
                value = Value::Table(top.table);
                open.pop();
            } else if t.0 != Tok::Comma {
                return Err(fail(exec, expected, t));
            } else {
                if top.key.is_some() {
                    let first = lx.next();
                    let key = object_key(ctx, host, held, &mut lx, first).map_err(|e| match e {
                        Ok((exp, t)) => fail(exec, exp, t),
                        Err(f) => f,
                    })?;
                    top.key = Some(key);
                }
                tok = lx.next();
                continue 'value;
            }
        }
        break value;
    };
    let t = lx.next();
    if t.0 != Tok::End {
        return Err(fail(exec, "the end", t));
    }
    stack.replace(ctx, result);
    Ok(())
}

type KeyError<'gc> = Result<(&'static str, (Tok, usize)), Fail<'gc>>;

/// An object's key (the token `first`, which must be a string) and the colon after it.
fn object_key<'gc>(
    ctx: Context<'gc>,
    host: &Shared,
    held: usize,
    lx: &mut Lexer,
    first: (Tok, usize),
) -> Result<Value<'gc>, KeyError<'gc>> {
    if first.0 != Tok::Str {
        return Err(Ok(("object key string", first)));
    }
    room(ctx, host, held + lx.text.len() + 32).map_err(Err)?;
    let key = lua_str(ctx, &lx.text);
    let colon = lx.next();
    if colon.0 != Tok::Colon {
        return Err(Ok(("colon", colon)));
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::strtod;

    #[test]
    fn strtod_reads_what_c_reads() {
        let cases: &[(&str, f64, usize)] = &[
            ("12", 12.0, 2),
            ("-1.5e3x", -1500.0, 6),
            ("1.", 1.0, 2),
            ("1e", 1.0, 1),
            ("1e+", 1.0, 1),
            ("0x10", 16.0, 4),
            ("0x", 0.0, 1),
            ("0x1.8p1", 3.0, 7),
            ("007", 7.0, 3),
            ("+5", 5.0, 2),
            ("-Infinity", f64::NEG_INFINITY, 9),
            ("inf", f64::INFINITY, 3),
            ("1e400", f64::INFINITY, 5),
        ];
        for &(text, value, used) in cases {
            assert_eq!(strtod(text.as_bytes()), Some((value, used)), "{text}");
        }
        assert!(strtod(b"nan(x1)").is_some_and(|(n, used)| n.is_nan() && used == 7));
        for bad in ["-", "+", ".", "-.", "x", ""] {
            assert_eq!(strtod(bad.as_bytes()), None, "{bad}");
        }
    }
}

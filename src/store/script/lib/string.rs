//! `string`: Lua 5.1's pattern functions (`find`, `match`, `gmatch`, `gsub`), `rep`,
//! `format` and the rest, each charged for what it allocates and fuelled per step.

use std::rc::Rc;

use gc_arena::Collect;
use piccolo::{BoxSequence, CallbackReturn, Context, Execution, Sequence, SequencePoll, Stack, Table, Value};

use crate::store::script::alloc::{self, Fail};
use crate::store::script::cfmt::{self, Spec};
use crate::store::script::convert::truncate;
use crate::store::script::host::Shared;
use crate::store::script::lauxlib::{
    arg_number, arg_opt_int, arg_string, bad_arg, callback, check_string, lua_owned, lua_str, number_text,
    positioned, set, type_name, CbResult, MAX_RESULTS,
};
use crate::store::script::pattern::{self, Capture, Matcher, PatError};

pub(super) fn install_string<'gc>(ctx: Context<'gc>, g: Table<'gc>, host: &Shared) {
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
pub(super) fn str_rep<'gc>(
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
pub(super) fn pattern_error<'gc>(
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

pub(super) fn steps_left(host: &Shared) -> u64 {
    host.try_borrow().map_or(0, |h| h.pattern_steps)
}

/// Records the steps a match left and charges the ones it took as instructions.
pub(super) fn charge(exec: &mut Execution, host: &Shared, before: u64, after: u64) {
    if let Ok(mut h) = host.try_borrow_mut() {
        h.pattern_steps = after;
    }
    let used = before.saturating_sub(after) / PATTERN_STEPS_PER_FUEL;
    exec.fuel().consume(i32::try_from(used).unwrap_or(i32::MAX));
}

pub(super) fn capture_value<'gc>(ctx: Context<'gc>, src: &[u8], c: Capture) -> Value<'gc> {
    match c {
        Capture::Span(a, b) => lua_str(ctx, src.get(a..b).unwrap_or_default()),
        Capture::Position(n) => Value::Integer(i64::try_from(n).unwrap_or(i64::MAX)),
    }
}

/// `string.find` (`find`) and `string.match`, as Lua 5.1's `str_find_aux`.
pub(super) fn str_find<'gc>(
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
pub(super) struct Gsub {
    pub(super) src: Vec<u8>,
    pub(super) pat: Vec<u8>,
    pub(super) anchor: bool,
    pub(super) max_n: i64,
    pub(super) pos: usize,
    pub(super) n: i64,
    pub(super) out: Vec<u8>,
    pub(super) done: bool,
}

impl Gsub {
    pub(super) fn new(src: Vec<u8>, pat: Vec<u8>, max_n: i64) -> Gsub {
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
    pub(super) fn next(
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
    pub(super) fn advance(&mut self, e: Option<usize>) {
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

    pub(super) fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.out);
        out.extend_from_slice(self.src.get(self.pos..).unwrap_or_default());
        out
    }

    /// Lua 5.1's `add_s`: the replacement string with `%0`–`%9` and `%%`.
    pub(super) fn add_string(
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
    pub(super) fn add_value<'gc>(&mut self, v: Value<'gc>, s: usize, e: usize) -> Result<(), &'static str> {
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
pub(super) struct GsubCall<'gc> {
    pub(super) f: piccolo::Function<'gc>,
    #[collect(require_static)]
    pub(super) walk: Gsub,
    #[collect(require_static)]
    pub(super) host: Shared,
    /// The match whose replacement the function is computing.
    #[collect(require_static)]
    pub(super) pending: Option<(usize, usize)>,
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

pub(super) fn str_gsub<'gc>(
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

pub(super) fn str_gmatch<'gc>(
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

/// Lua 5.1's `string.format`.
pub(super) fn string_format<'gc>(
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
        let spec = match read_spec(&fmt, &mut i) {
            Ok(spec) => spec,
            Err(msg) => return Err(positioned(ctx, &exec, host, msg)),
        };
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
                lua_quote(&s)
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

/// A conversion's flags, width (2 digits at most) and precision (2 digits at most), read
/// from `fmt` at `i` (just after the `%`); the error is Lua 5.1's text.
fn read_spec(fmt: &[u8], i: &mut usize) -> Result<Spec, &'static str> {
    let mut spec = Spec::default();
    let flags_start = *i;
    while let Some(&f) = fmt.get(*i) {
        match f {
            b'-' => spec.left = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.alt = true,
            b'0' => spec.zero = true,
            _ => break,
        }
        *i += 1;
    }
    if *i - flags_start > 5 {
        return Err("invalid format (repeated flags)");
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
    let (width, wc) = digits(i);
    spec.width = width;
    let mut pc = 0;
    if fmt.get(*i) == Some(&b'.') {
        *i += 1;
        let (p, count) = digits(i);
        spec.precision = Some(p);
        pc = count;
    }
    if wc > 2 || pc > 2 {
        return Err("invalid format (width or precision too long)");
    }
    Ok(spec)
}

/// `%q`: the string in double quotes, as Lua 5.1 writes it (a newline escaped as `\`
/// and a real newline, NUL as `\000`).
fn lua_quote(s: &[u8]) -> Vec<u8> {
    let mut q = Vec::with_capacity(s.len() + 2);
    q.push(b'"');
    for &b in s {
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

pub(super) fn pad(spec: &Spec, body: &[u8], numeric: bool) -> Vec<u8> {
    cfmt::pad(spec, body, numeric)
}

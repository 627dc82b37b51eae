// Lockstep patch (the whole file): Lua 5.1's runtime error texts for errors raised by an
// instruction, with the culprit named as Lua 5.1's `getobjname` names it (`attempt to index
// local 'x' (a nil value)`, `field 'z'`, `upvalue 'u'`, `global 'g'`) and the line of the
// failing instruction. The error keeps piccolo's own text as its `Display`; the embedder
// reads [`LockstepVmError`] with `downcast_ref`.
//
// A name is given only when it is certain: a local whose scope (recorded by the compiler in
// `DebugNames`) covers the instruction, or the one instruction that last wrote the register
// when no jump can land between it and the failing one. Anything else stays unnamed.

use std::{fmt, sync::Arc};

use crate::{
    opcode::{Operation, RCIndex},
    types::RegisterIndex,
    Closure, Constant, FunctionPrototype, RuntimeError, Value,
};

/// A runtime error raised by a Lua instruction: where, and Lua 5.1's wording if known.
#[derive(Debug)]
pub struct LockstepVmError {
    /// 1-based line of the failing instruction.
    pub line: u64,
    /// Lua 5.1's message, without position (`attempt to index local 'x' (a nil value)`).
    pub message: Option<std::string::String>,
    /// piccolo's own text, shown by `Display`.
    pub original: std::string::String,
}

impl fmt::Display for LockstepVmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.original)
    }
}

impl std::error::Error for LockstepVmError {}

/// How far `Move`s are followed back to the variable they copied.
const MAX_MOVES: usize = 8;

pub(super) fn annotate<'gc>(
    closure: Closure<'gc>,
    pc: usize,
    registers: &[Value<'gc>],
    err: RuntimeError,
) -> RuntimeError {
    if err.0.downcast_ref::<LockstepVmError>().is_some() {
        return err;
    }
    let proto = closure.prototype();
    let Some(failing) = pc.checked_sub(1) else {
        return err;
    };
    let line = match proto
        .opcode_line_numbers
        .binary_search_by_key(&failing, |(opi, _)| *opi)
    {
        Ok(i) => proto.opcode_line_numbers.get(i).map(|l| l.1 .0),
        Err(i) => i
            .checked_sub(1)
            .and_then(|i| proto.opcode_line_numbers.get(i))
            .map(|l| l.1 .0),
    };
    let original = err.to_string();
    let message = proto
        .opcodes
        .get(failing)
        .and_then(|op| describe(&proto, failing, op.decode(), registers, &original));
    RuntimeError(Arc::new(anyhow::Error::new(LockstepVmError {
        line: line.unwrap_or(0) + 1,
        message,
        original,
    })))
}

fn describe<'gc>(
    proto: &FunctionPrototype<'gc>,
    pc: usize,
    op: Operation,
    regs: &[Value<'gc>],
    original: &str,
) -> Option<std::string::String> {
    let reg = |r: RegisterIndex| regs.get(usize::from(r.0)).copied();
    let rc = |x: RCIndex| match x {
        RCIndex::Register(r) => reg(r),
        RCIndex::Constant(c) => proto
            .constants
            .get(usize::from(c.0))
            .map(|c| Value::from(*c)),
    };
    let reg_of = |x: RCIndex| match x {
        RCIndex::Register(r) => Some(r),
        RCIndex::Constant(_) => None,
    };
    let targets = jump_targets(proto);
    // The culprit's type as piccolo's type error gives it (for upvalue tables).
    let found = original
        .strip_prefix("type error, expected table, found ")
        .map(|t| if t == "integer" { "number" } else { t });
    match op {
        Operation::GetTable { table, .. } | Operation::SetTable { table, .. } => {
            let v = reg(table)?;
            // A table is indexed through its metatable; a string, in Lua 5.1, through the
            // string library's (which piccolo lacks): neither is the failure named here.
            if matches!(v, Value::Table(_) | Value::String(_)) {
                return None;
            }
            Some(culprit("index", v.type_name(), name_of(proto, &targets, pc, table.0, 0)))
        }
        Operation::GetUpTable { table, .. } | Operation::SetUpTable { table, .. } => {
            let t = found?;
            if matches!(t, "table" | "string") {
                return None;
            }
            let name = upvalue_name(proto, table.0)?;
            Some(culprit("index", t, Some(("upvalue", name))))
        }
        Operation::Call { func, .. } | Operation::TailCall { func, .. } => {
            let v = reg(func)?;
            // Only a function can be called (a table through its `__call`, which Lua 5.1
            // then blames on the table).
            if matches!(v, Value::Function(_)) {
                return None;
            }
            Some(culprit("call", v.type_name(), name_of(proto, &targets, pc, func.0, 0)))
        }
        Operation::Add { left, right, .. }
        | Operation::Sub { left, right, .. }
        | Operation::Mul { left, right, .. }
        | Operation::Div { left, right, .. }
        | Operation::Mod { left, right, .. }
        | Operation::Pow { left, right, .. } => {
            let (l, r) = (rc(left)?, rc(right)?);
            // Lua 5.1 blames the first operand that does not convert to a number.
            let bad = match (numeric(l)?, numeric(r)?) {
                (false, _) => left,
                (true, false) => right,
                (true, true) => return None,
            };
            let v = rc(bad)?;
            let name = reg_of(bad).and_then(|r| name_of(proto, &targets, pc, r.0, 0));
            Some(culprit("perform arithmetic on", v.type_name(), name))
        }
        Operation::Minus { source, .. } => {
            let v = reg(source)?;
            if numeric(v)? {
                return None;
            }
            Some(culprit("perform arithmetic on", v.type_name(), name_of(proto, &targets, pc, source.0, 0)))
        }
        Operation::Length { source, .. } => {
            let v = reg(source)?;
            if matches!(v, Value::String(_) | Value::Table(_)) {
                return None;
            }
            Some(culprit("get length of", v.type_name(), name_of(proto, &targets, pc, source.0, 0)))
        }
        Operation::NumericForPrep { base, .. } | Operation::NumericForLoop { base, .. } => {
            // Lua 5.1's `forprep` checks the three values in this order (piccolo's prep
            // checks only the first and the step: a bad limit fails its first loop test).
            let at = |k: u8| regs.get(usize::from(base.0) + usize::from(k)).copied();
            for (k, what) in [(0, "initial value"), (1, "limit"), (2, "step")] {
                if !numeric(at(k)?)? {
                    return Some(format!("'for' {what} must be a number"));
                }
            }
            None
        }
        Operation::Less { left, right, .. } | Operation::LessEq { left, right, .. } => {
            let (l, r) = (rc(left)?, rc(right)?);
            let (a, b) = (l.type_name(), r.type_name());
            if a == b && matches!(a, "number" | "string") {
                return None;
            }
            Some(if a == b {
                format!("attempt to compare two {a} values")
            } else {
                format!("attempt to compare {a} with {b}")
            })
        }
        _ => None,
    }
}

fn culprit(what: &str, type_name: &str, name: Option<(&str, std::string::String)>) -> std::string::String {
    match name {
        Some((kind, name)) => format!("attempt to {what} {kind} '{name}' (a {type_name} value)"),
        None => format!("attempt to {what} a {type_name} value"),
    }
}

/// Whether Lua 5.1 converts the value to a number for arithmetic; None when unsure (a string
/// whose conversion this check does not decide).
fn numeric(v: Value<'_>) -> Option<bool> {
    match v {
        Value::Integer(_) | Value::Number(_) => Some(true),
        Value::String(s) => {
            let text = std::str::from_utf8(s.as_bytes()).ok()?.trim();
            if text.parse::<f64>().is_ok() && !text.chars().any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E') {
                Some(true)
            } else if !text.bytes().any(|b| b.is_ascii_digit()) {
                Some(false)
            } else {
                None
            }
        }
        _ => Some(false),
    }
}

fn upvalue_name(proto: &FunctionPrototype<'_>, index: u8) -> Option<std::string::String> {
    let name = proto.debug_names.upvalues.get(usize::from(index))?;
    let name = std::string::String::from_utf8_lossy(name).into_owned();
    (name != "_ENV").then_some(name)
}

fn constant_name(proto: &FunctionPrototype<'_>, key: RCIndex) -> std::string::String {
    match key {
        RCIndex::Constant(c) => match proto.constants.get(usize::from(c.0)) {
            Some(Constant::String(s)) => std::string::String::from_utf8_lossy(s.as_bytes()).into_owned(),
            _ => "?".into(),
        },
        RCIndex::Register(_) => "?".into(),
    }
}

/// Lua 5.1's `getobjname`: what register `reg` holds at instruction `pc`, if certain.
fn name_of(
    proto: &FunctionPrototype<'_>,
    targets: &[usize],
    pc: usize,
    reg: u8,
    moves: usize,
) -> Option<(&'static str, std::string::String)> {
    if let Some((name, ..)) = proto
        .debug_names
        .locals
        .iter()
        .rev()
        .find(|(_, r, start, end)| *r == reg && *start <= pc && pc < *end)
    {
        return Some(("local", std::string::String::from_utf8_lossy(name).into_owned()));
    }
    let mut i = pc;
    while i > 0 {
        if targets.binary_search(&i).is_ok() {
            return None;
        }
        i -= 1;
        let op = proto.opcodes.get(i)?.decode();
        match writes(op, reg) {
            Write::No => continue,
            Write::Unknown => return None,
            Write::Yes => {
                return match op {
                    Operation::GetTable { key, .. } => Some(("field", constant_name(proto, key))),
                    Operation::GetUpTable { table, key, .. } => {
                        let env = proto
                            .debug_names
                            .upvalues
                            .get(usize::from(table.0))
                            .is_some_and(|n| &**n == b"_ENV");
                        match (env, key) {
                            (true, RCIndex::Constant(_)) => Some(("global", constant_name(proto, key))),
                            (true, RCIndex::Register(_)) => None,
                            (false, _) => Some(("field", constant_name(proto, key))),
                        }
                    }
                    Operation::GetUpValue { source, .. } => {
                        upvalue_name(proto, source.0).map(|n| ("upvalue", n))
                    }
                    Operation::Move { source, dest } if source.0 < dest.0 && moves < MAX_MOVES => {
                        name_of(proto, targets, i, source.0, moves + 1)
                    }
                    _ => None,
                };
            }
        }
    }
    None
}

enum Write {
    Yes,
    No,
    Unknown,
}

/// Whether `op` sets register `reg`.
fn writes(op: Operation, reg: u8) -> Write {
    let one = |dest: RegisterIndex| if dest.0 == reg { Write::Yes } else { Write::No };
    match op {
        Operation::Move { dest, .. }
        | Operation::LoadConstant { dest, .. }
        | Operation::LoadBool { dest, .. }
        | Operation::NewTable { dest, .. }
        | Operation::GetTable { dest, .. }
        | Operation::GetUpTable { dest, .. }
        | Operation::GetUpValue { dest, .. }
        | Operation::Closure { dest, .. }
        | Operation::Length { dest, .. }
        | Operation::Not { dest, .. }
        | Operation::Minus { dest, .. }
        | Operation::Add { dest, .. }
        | Operation::Sub { dest, .. }
        | Operation::Mul { dest, .. }
        | Operation::Div { dest, .. }
        | Operation::Mod { dest, .. }
        | Operation::Pow { dest, .. }
        | Operation::Concat { dest, .. } => one(dest),
        Operation::LoadNil { dest, count } => {
            if reg >= dest.0 && u16::from(reg) < u16::from(dest.0) + u16::from(count) {
                Write::Unknown
            } else {
                Write::No
            }
        }
        Operation::SetTable { .. }
        | Operation::SetUpTable { .. }
        | Operation::SetUpValue { .. }
        | Operation::Jump { .. }
        | Operation::Test { .. }
        | Operation::Eq { .. }
        | Operation::Less { .. }
        | Operation::LessEq { .. } => Write::No,
        Operation::Call { func, .. } if reg < func.0 => Write::No,
        _ => Write::Unknown,
    }
}

/// Every instruction index some instruction can jump to (other than by falling through),
/// sorted.
fn jump_targets(proto: &FunctionPrototype<'_>) -> Vec<usize> {
    let mut targets: Vec<usize> = proto
        .opcodes
        .iter()
        .enumerate()
        .filter_map(|(j, op)| {
            let rel = |off: i16| usize::try_from(j as i64 + 1 + i64::from(off)).ok();
            match op.decode() {
                Operation::Jump { offset, .. } => rel(offset),
                Operation::NumericForPrep { jump, .. }
                | Operation::NumericForLoop { jump, .. }
                | Operation::GenericForLoop { jump, .. } => rel(jump),
                Operation::Test { .. }
                | Operation::TestSet { .. }
                | Operation::Eq { .. }
                | Operation::Less { .. }
                | Operation::LessEq { .. }
                | Operation::LoadBool {
                    skip_next: true, ..
                } => Some(j + 2),
                _ => None,
            }
        })
        .collect();
    targets.sort_unstable();
    targets
}

//! The texts of script errors as Redis 7.0 and Lua 5.1 word them: compile errors, uncaught
//! errors (`... script: <sha>, on @user_script:<line>.`) and the VM's runtime errors.

use piccolo::{Context, Value};

use super::host::Host;
use super::lauxlib::number_text;

pub(crate) fn compile_error_text(e: &piccolo::PrototypeError) -> String {
    match e {
        piccolo::PrototypeError::Parser(p) => {
            let kind = match &p.kind {
                piccolo::compiler::ParseErrorKind::EndOfStream { .. } => {
                    "unexpected symbol near '<eof>'".to_string()
                }
                other => other.to_string(),
            };
            format!("user_script:{}: {kind}", p.line_number)
        }
        piccolo::PrototypeError::Compiler(c) => format!("user_script:{}: {}", c.line_number, c.kind),
    }
}

/// The text of an uncaught script error, as Redis 7.0 reports it:
/// `<message> script: <sha>, on @user_script:<line>.`
pub(crate) fn error_text<'gc>(
    ctx: Context<'gc>,
    error: &piccolo::Error<'gc>,
    host: &Host,
    sha: &str,
) -> String {
    let mut line = host.line;
    let message = match error {
        piccolo::Error::Lua(lua) => match lua.0 {
            Value::Table(t) => match t.get(ctx, "err") {
                Value::String(s) => String::from_utf8_lossy(s.as_bytes()).into_owned(),
                _ => "ERR unknown error".to_string(),
            },
            Value::String(s) if host.call_error.as_deref() == Some(s.as_bytes()) => {
                String::from_utf8_lossy(s.as_bytes()).into_owned()
            }
            Value::String(s) => format!("ERR {}", String::from_utf8_lossy(s.as_bytes())),
            Value::Nil => "ERR nil".to_string(),
            Value::Boolean(b) => format!("ERR {b}"),
            other => match number_text(other) {
                Some(n) => format!("ERR {n}"),
                None => format!("ERR {}", other.type_name()),
            },
        },
        piccolo::Error::Runtime(rt) => {
            let (at, text) = runtime_text(rt, host.line);
            line = at;
            format!("ERR user_script:{at}: {text}")
        }
    };
    format!("{message} script: {sha}, on @user_script:{line}.")
}

/// A VM error's line and text: the failing instruction's line and Lua 5.1's wording with
/// the culprit named, as the VM recorded them (`thread/lockstep_names.rs` in the vendored
/// piccolo), else `line` and piccolo's text reworded.
pub(crate) fn runtime_text(rt: &piccolo::RuntimeError, line: u64) -> (u64, String) {
    match rt.0.downcast_ref::<piccolo::thread::LockstepVmError>() {
        Some(site) => (
            site.line,
            site.message.clone().unwrap_or_else(|| vm_message(&site.original)),
        ),
        None => (line, vm_message(&rt.to_string())),
    }
}

/// piccolo's runtime error texts, reworded as Lua 5.1 says them where the meaning is clear.
fn vm_message(text: &str) -> String {
    if let Some(rest) = text.strip_prefix("type error, expected ") {
        if let Some((expected, found)) = rest.split_once(", found ") {
            return match expected {
                "function" => format!("attempt to call a {found} value"),
                "table" => format!("attempt to index a {found} value"),
                _ => format!("bad argument ({expected} expected, got {found})"),
            };
        }
    }
    let arithmetic = [
        "cannot add values",
        "cannot subtract values",
        "cannot multiply values",
        "cannot float divide values",
        "cannot floor divide values",
        "cannot modulo values",
        "cannot exponentiate values",
        "cannot negate value",
    ];
    if arithmetic.contains(&text) {
        return "attempt to perform arithmetic on a non-number value".to_string();
    }
    if text.starts_with("cannot compare values") {
        return "attempt to compare incompatible values".to_string();
    }
    text.to_string()
}

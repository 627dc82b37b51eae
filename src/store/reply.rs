//! The one reply type, and its rendering exactly as `redis-cli --no-raw` prints it.

use serde::{Deserialize, Serialize};

/// A reply, as RESP2 carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reply {
    /// `+OK`: printed bare.
    Status(String),
    /// `-ERR ...`: the full text including its code (`ERR`, `WRONGTYPE`, `NOSCRIPT`, ...).
    Error(String),
    Int(i64),
    Bulk(Vec<u8>),
    /// The null bulk string.
    Nil,
    Array(Vec<Reply>),
    /// The null array (EXEC after a WATCHed key changed).
    NilArray,
}

impl Reply {
    pub fn ok() -> Reply {
        Reply::Status("OK".to_string())
    }

    /// An error reply; `msg` carries its own code (`ERR ...`).
    pub fn err(msg: impl Into<String>) -> Reply {
        Reply::Error(msg.into())
    }

    pub fn syntax_error() -> Reply {
        Reply::err("ERR syntax error")
    }

    pub fn not_an_integer() -> Reply {
        Reply::err("ERR value is not an integer or out of range")
    }

    pub fn bulk(bytes: impl Into<Vec<u8>>) -> Reply {
        Reply::Bulk(bytes.into())
    }

    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }
}

/// Renders a reply exactly as `redis-cli --no-raw` prints it, without the final newline.
///
/// A port of `cliFormatReplyTTY`: nested arrays print their first element on the parent's
/// line and indent the others by the width of the parent's index column.
pub fn render(reply: &Reply) -> String {
    let mut out = String::new();
    render_into(&mut out, reply, "");
    if out.ends_with('\n') {
        out.pop();
    }
    out
}

/// A reply on one line, for a trace, a log or a message on the timeline: an array's
/// elements in `[…, …]`, everything else as [`render`] prints it.
pub fn render_line(reply: &Reply) -> String {
    let mut out = String::new();
    line_into(&mut out, reply);
    out
}

fn line_into(out: &mut String, reply: &Reply) {
    match reply {
        // As redis-cli says it (`KEYS *` on an empty node), not `[]`.
        Reply::Array(items) if items.is_empty() => out.push_str("(empty array)"),
        Reply::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                line_into(out, item);
            }
            out.push(']');
        }
        other => scalar_into(out, other),
    }
}

/// Everything but an array, as redis-cli prints it (no newline).
fn scalar_into(out: &mut String, reply: &Reply) {
    match reply {
        Reply::Status(s) => out.push_str(s),
        Reply::Error(s) => {
            out.push_str("(error) ");
            out.push_str(s);
        }
        Reply::Int(n) => {
            out.push_str("(integer) ");
            out.push_str(&n.to_string());
        }
        Reply::Bulk(bytes) => quote_into(out, bytes),
        Reply::Nil | Reply::NilArray => out.push_str("(nil)"),
        Reply::Array(_) => line_into(out, reply),
    }
}

fn render_into(out: &mut String, reply: &Reply, prefix: &str) {
    match reply {
        Reply::Array(items) if items.is_empty() => out.push_str("(empty array)\n"),
        Reply::Array(items) => {
            let width = items.len().to_string().len();
            let child_prefix = format!("{prefix}{}", " ".repeat(width + 2));
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(prefix);
                }
                out.push_str(&format!("{:>width$}) ", i + 1));
                render_into(out, item, &child_prefix);
            }
        }
        other => {
            scalar_into(out, other);
            out.push('\n');
        }
    }
}

/// `sdscatrepr`: a double-quoted string with C escapes, printable ASCII kept as is.
pub fn quote_into(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_arrays_indent_like_redis_cli() {
        let reply = Reply::Array(vec![
            Reply::Int(1),
            Reply::Array(vec![Reply::Int(2), Reply::Int(3)]),
            Reply::Array(vec![
                Reply::bulk("a"),
                Reply::Array(vec![Reply::bulk("b"), Reply::Array(vec![])]),
            ]),
        ]);
        let expected = "1) (integer) 1\n2) 1) (integer) 2\n   2) (integer) 3\n3) 1) \"a\"\n   2) 1) \"b\"\n      2) (empty array)";
        assert_eq!(render(&reply), expected);
    }

    #[test]
    fn one_line_keeps_redis_clis_quoting_and_puts_arrays_in_brackets() {
        let reply = Reply::Array(vec![
            Reply::bulk("a\"b"),
            Reply::Int(2),
            Reply::Array(vec![Reply::Nil, Reply::Status("OK".into())]),
            Reply::Error("ERR no".into()),
        ]);
        assert_eq!(
            render_line(&reply),
            r#"["a\"b", (integer) 2, [(nil), OK], (error) ERR no]"#
        );
        // An empty array reads as redis-cli says it, alone or inside another.
        assert_eq!(render_line(&Reply::Array(vec![])), "(empty array)");
        assert_eq!(
            render_line(&Reply::Array(vec![Reply::Int(1), Reply::Array(vec![])])),
            "[(integer) 1, (empty array)]"
        );
        for r in [
            Reply::bulk("x"),
            Reply::Int(-1),
            Reply::Nil,
            Reply::Status("OK".into()),
        ] {
            assert_eq!(render_line(&r), render(&r), "a scalar reads the same on one line");
        }
    }

    #[test]
    fn ten_or_more_elements_pad_the_index() {
        let reply = Reply::Array((0..10).map(Reply::Int).collect());
        let text = render(&reply);
        assert!(text.starts_with(" 1) (integer) 0\n 2) (integer) 1\n"));
        assert!(text.ends_with("\n10) (integer) 9"));
    }

    #[test]
    fn bulk_escapes() {
        assert_eq!(
            render(&Reply::bulk(b"a\"b\\c\n\x01\xc3\xa9".to_vec())),
            r#""a\"b\\c\n\x01\xc3\xa9""#
        );
        assert_eq!(render(&Reply::Nil), "(nil)");
        assert_eq!(render(&Reply::NilArray), "(nil)");
        assert_eq!(render(&Reply::err("ERR x")), "(error) ERR x");
    }
}

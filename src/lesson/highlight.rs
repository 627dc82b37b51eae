//! A small syntax highlighter for the lesson's code blocks (Lua, redis-cli sessions,
//! JavaScript). It only classifies spans; concatenating the spans gives back the code
//! exactly, so copying highlighted code copies what was written.

/// The class of a span; `ui` maps it to a CSS class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Plain,
    Keyword,
    Str,
    Comment,
    Number,
    /// redis-cli: the `> ` prompt.
    Prompt,
    /// redis-cli: the command name after the prompt.
    Command,
    /// redis-cli: an `(error)` reply line.
    ErrorReply,
    /// redis-cli: a reply line.
    Reply,
}

impl Kind {
    pub fn css_class(self) -> &'static str {
        match self {
            Kind::Plain => "",
            Kind::Keyword => "tok-kw",
            Kind::Str => "tok-str",
            Kind::Comment => "tok-com",
            Kind::Number => "tok-num",
            Kind::Prompt => "tok-prompt",
            Kind::Command => "tok-cmd",
            Kind::ErrorReply => "tok-err",
            Kind::Reply => "tok-reply",
        }
    }
}

const LUA_KEYWORDS: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local", "nil",
    "not", "or", "repeat", "return", "then", "true", "until", "while",
];
const JS_KEYWORDS: &[&str] = &[
    "async",
    "await",
    "break",
    "catch",
    "class",
    "const",
    "else",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "from",
    "let",
    "new",
    "null",
    "of",
    "return",
    "throw",
    "true",
    "try",
    "undefined",
    "var",
    "while",
];

/// The label a code block shows for its language: what a reader calls it. Plain text
/// (`text`, or none) has no label.
pub fn code_label(lang: Option<&str>) -> Option<&'static str> {
    match lang? {
        "js" | "javascript" => Some("JavaScript"),
        "lua" => Some("Lua"),
        "redis" => Some("redis-cli"),
        "toml" => Some("TOML"),
        "sh" | "bash" => Some("shell"),
        _ => None,
    }
}

/// Splits `code` into classified spans.
pub fn highlight(lang: Option<&str>, code: &str) -> Vec<(Kind, String)> {
    match lang {
        Some("lua") => tokens(code, LUA_KEYWORDS, "--"),
        Some("js" | "javascript" | "ts" | "typescript") => tokens(code, JS_KEYWORDS, "//"),
        Some("redis" | "redis-cli") => redis_session(code),
        _ => vec![(Kind::Plain, code.to_string())],
    }
}

fn push(out: &mut Vec<(Kind, String)>, kind: Kind, text: &str) {
    if text.is_empty() {
        return;
    }
    match out.last_mut() {
        Some((k, s)) if *k == kind => s.push_str(text),
        _ => out.push((kind, text.to_string())),
    }
}

/// A character that starts or continues a name: an ASCII letter, `_`, `$`, or any
/// non-ASCII character (`størrelse` is one name). Not `char::is_alphabetic`, whose
/// Unicode tables the page's module would carry for this alone; the keywords are ASCII.
fn word_char(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$' || !c.is_ascii()
}

fn tokens(code: &str, keywords: &[&str], line_comment: &str) -> Vec<(Kind, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(c) = rest.chars().next() {
        let (kind, len) = if rest.starts_with(line_comment) {
            (Kind::Comment, rest.find('\n').unwrap_or(rest.len()))
        } else if c == '"' || c == '\'' || c == '`' {
            (Kind::Str, string_len(rest, c))
        } else if c.is_ascii_digit() {
            (
                Kind::Number,
                rest.find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.'))
                    .unwrap_or(rest.len()),
            )
        } else if word_char(c) {
            let len = rest
                .find(|ch: char| !(word_char(ch) || ch.is_ascii_digit()))
                .unwrap_or(rest.len());
            let word = &rest[..len];
            (
                if keywords.contains(&word) {
                    Kind::Keyword
                } else {
                    Kind::Plain
                },
                len,
            )
        } else {
            (Kind::Plain, c.len_utf8())
        };
        push(&mut out, kind, &rest[..len]);
        rest = &rest[len..];
    }
    out
}

/// Length of a quoted string starting at the quote, honouring backslash escapes;
/// an unterminated string runs to the end of the line.
fn string_len(s: &str, quote: char) -> usize {
    let mut escaped = false;
    for (i, ch) in s.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if ch == '\\' {
            escaped = true;
        } else if ch == quote {
            return i + ch.len_utf8();
        } else if ch == '\n' && quote != '`' {
            return i;
        }
    }
    s.len()
}

fn redis_session(code: &str) -> Vec<(Kind, String)> {
    let mut out = Vec::new();
    for line in code.split_inclusive('\n') {
        if let Some(cmd) = line.strip_prefix("> ") {
            push(&mut out, Kind::Prompt, "> ");
            let name_len = cmd.find(char::is_whitespace).unwrap_or(cmd.len());
            push(&mut out, Kind::Command, &cmd[..name_len]);
            push(&mut out, Kind::Plain, &cmd[name_len..]);
        } else if line.trim_start().starts_with('#') {
            push(&mut out, Kind::Comment, line);
        } else if line.contains("(error)") {
            push(&mut out, Kind::ErrorReply, line);
        } else {
            push(&mut out, Kind::Reply, line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_has_no_label_and_the_others_their_names() {
        assert_eq!(code_label(Some("text")), None);
        assert_eq!(code_label(None), None);
        assert_eq!(code_label(Some("js")), Some("JavaScript"));
        assert_eq!(code_label(Some("lua")), Some("Lua"));
        assert_eq!(code_label(Some("redis")), Some("redis-cli"));
    }

    fn joined(spans: &[(Kind, String)]) -> String {
        spans.iter().map(|(_, s)| s.as_str()).collect()
    }

    #[test]
    fn lua_spans_round_trip_and_classify() {
        let code = "-- release\nif redis.call('get', KEYS[1]) == ARGV[1] then\n  return 1\nend\n";
        let spans = highlight(Some("lua"), code);
        assert_eq!(joined(&spans), code);
        assert!(spans.contains(&(Kind::Comment, "-- release".into())));
        assert!(spans.contains(&(Kind::Str, "'get'".into())));
        assert!(spans.contains(&(Kind::Keyword, "then".into())));
        assert!(spans.contains(&(Kind::Number, "1".into())));
    }

    #[test]
    fn names_with_letters_beyond_ascii_are_one_name() {
        // `ønew` and `$return` are names, not `new` or `return` after something else.
        let code = "const størrelse = ønew + $return; return x2;";
        let spans = highlight(Some("js"), code);
        assert_eq!(joined(&spans), code);
        let keywords: Vec<&str> = spans
            .iter()
            .filter(|(k, _)| *k == Kind::Keyword)
            .map(|(_, s)| s.as_str())
            .collect();
        assert_eq!(keywords, ["const", "return"]);
    }

    #[test]
    fn redis_sessions() {
        let code = "> SET lock:a t1 NX PX 30000\nOK\n> FOO\n(error) ERR unknown command 'FOO'\n";
        let spans = highlight(Some("redis"), code);
        assert_eq!(joined(&spans), code);
        assert!(spans.contains(&(Kind::Command, "SET".into())));
        assert!(spans.contains(&(Kind::ErrorReply, "(error) ERR unknown command 'FOO'\n".into())));
    }

    #[test]
    fn odd_input_round_trips() {
        for code in [
            "'unterminated\nx",
            "\"esc\\\"aped\"",
            "ünïcode 12ab",
            "",
            "`multi\nline`",
        ] {
            for lang in [Some("lua"), Some("js"), Some("redis"), None] {
                assert_eq!(joined(&highlight(lang, code)), code);
            }
        }
    }
}

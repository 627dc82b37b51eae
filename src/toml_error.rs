//! One reading of a `toml` parse error for every file format we load (scenarios, lesson
//! packs): the line it points at, the field it is about, and a one-line message.

/// What a toml error says, ready for a `file:line: field: message` report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TomlProblem {
    /// 1-based line, when toml gave a position.
    pub line: Option<usize>,
    /// The field named in the message (`unknown field `foo``), or the key written on the
    /// line the error points at (a bad value); empty if neither is known.
    pub field: String,
    pub message: String,
}

/// 1-based line of byte `offset` in `src`.
pub fn line_of(src: &str, offset: usize) -> usize {
    let end = offset.min(src.len());
    src.as_bytes()[..end].iter().filter(|b| **b == b'\n').count() + 1
}

/// The line (1-based) of the first `key = …` at or after line `from_line` of TOML
/// `text`: where a loader points when a value it read is wrong.
pub fn key_line(text: &str, from_line: usize, key: &str) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from_line.saturating_sub(1))
        .find(|(_, l)| l.split_once('=').is_some_and(|(k, _)| k.trim() == key))
        .map(|(i, _)| i + 1)
}

pub fn explain(src: &str, e: &toml::de::Error) -> TomlProblem {
    let line = e.span().map(|s| line_of(src, s.start));
    // One line: toml's messages sometimes continue on further lines.
    let message = e
        .message()
        .trim()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    let mut field = message
        .split('`')
        .nth(1)
        .filter(|_| message.contains("field"))
        .unwrap_or("")
        .to_string();
    if field.is_empty() {
        if let Some((key, _)) = line
            .and_then(|l| src.lines().nth(l - 1))
            .and_then(|l| l.split_once('='))
        {
            field = key.trim().trim_start_matches('{').trim().to_string();
        }
    }
    TomlProblem { line, field, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_line_and_field() {
        let src = "a = 1\nttl_ms = \"ten\"\n";
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct S {
            a: u32,
            ttl_ms: u32,
        }
        let e = toml::from_str::<S>(src).unwrap_err();
        let p = explain(src, &e);
        assert_eq!((p.line, p.field.as_str()), (Some(2), "ttl_ms"));
        assert!(!p.message.contains('\n'));
        #[derive(serde::Deserialize, Debug)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct T {
            a: u32,
        }
        let e = toml::from_str::<T>("a = 1\nb = 2\n").unwrap_err();
        assert_eq!(explain("a = 1\nb = 2\n", &e).field, "b");
    }

    #[test]
    fn key_line_finds_the_key_itself_from_a_line_on() {
        let src = "[run]\nname = \"ttl_ms = 5\"\n  ttl_ms=7\nttl_ms_max = 1\n[[x]]\nttl_ms = 2\n";
        assert_eq!(
            key_line(src, 1, "ttl_ms"),
            Some(3),
            "not inside a value, and spaces around"
        );
        assert_eq!(key_line(src, 4, "ttl_ms"), Some(6), "from line 4 on");
        assert_eq!(key_line(src, 1, "ttl"), None, "a whole key, not a prefix");
    }
}

//! redis-cli's command-line splitting (`sdssplitargs`): blanks separate arguments, double
//! quotes allow `\n \r \t \b \a \" \\ \xHH` escapes, single quotes allow only `\'`, and a
//! closing quote must be followed by a blank or the end of the line.

use std::fmt;

/// The line could not be split; redis-cli prints this message and sends nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// An unterminated quote, or a closing quote followed by something other than a blank.
    InvalidArguments,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::InvalidArguments => f.write_str("Invalid argument(s)"),
        }
    }
}

impl std::error::Error for ParseError {}

/// C's `isspace` in the "C" locale.
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

fn hex_value(b: u8) -> Option<u8> {
    char::from(b).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// Splits one command line into arguments the way redis-cli does.
/// A blank line gives an empty vector.
pub fn parse_line(line: &str) -> Result<Vec<Vec<u8>>, ParseError> {
    parse_line_bytes(line.as_bytes())
}

/// [`parse_line`] on raw bytes: a line that is not UTF-8 keeps its bytes as they are
/// (redis-cli sends what it reads).
pub fn parse_line_bytes(bytes: &[u8]) -> Result<Vec<Vec<u8>>, ParseError> {
    // A NUL ends the line for redis-cli (it works on C strings).
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let bytes = bytes.get(..end).unwrap_or(bytes);
    let at = |i: usize| bytes.get(i).copied();
    let mut args = Vec::new();
    let mut i = 0;
    loop {
        while at(i).is_some_and(is_blank) {
            i += 1;
        }
        if at(i).is_none() {
            return Ok(args);
        }
        let mut current = Vec::new();
        let mut in_double = false;
        let mut in_single = false;
        loop {
            let c = at(i);
            if in_double {
                match c {
                    None => return Err(ParseError::InvalidArguments),
                    Some(b'\\') => {
                        let hex = at(i + 1) == Some(b'x');
                        match (hex, at(i + 2).and_then(hex_value), at(i + 3).and_then(hex_value)) {
                            (true, Some(hi), Some(lo)) => {
                                current.push(hi * 16 + lo);
                                i += 4;
                            }
                            _ => match at(i + 1) {
                                None => {
                                    current.push(b'\\');
                                    i += 1;
                                }
                                Some(e) => {
                                    current.push(match e {
                                        b'n' => b'\n',
                                        b'r' => b'\r',
                                        b't' => b'\t',
                                        b'b' => 0x08,
                                        b'a' => 0x07,
                                        other => other,
                                    });
                                    i += 2;
                                }
                            },
                        }
                    }
                    Some(b'"') => {
                        if at(i + 1).is_some_and(|b| !is_blank(b)) {
                            return Err(ParseError::InvalidArguments);
                        }
                        i += 1;
                        break;
                    }
                    Some(b) => {
                        current.push(b);
                        i += 1;
                    }
                }
            } else if in_single {
                match c {
                    None => return Err(ParseError::InvalidArguments),
                    Some(b'\\') if at(i + 1) == Some(b'\'') => {
                        current.push(b'\'');
                        i += 2;
                    }
                    Some(b'\'') => {
                        if at(i + 1).is_some_and(|b| !is_blank(b)) {
                            return Err(ParseError::InvalidArguments);
                        }
                        i += 1;
                        break;
                    }
                    Some(b) => {
                        current.push(b);
                        i += 1;
                    }
                }
            } else {
                match c {
                    None | Some(b' ' | b'\n' | b'\r' | b'\t') => {
                        if c.is_some() {
                            i += 1;
                        }
                        break;
                    }
                    Some(b'"') => {
                        in_double = true;
                        i += 1;
                    }
                    Some(b'\'') => {
                        in_single = true;
                        i += 1;
                    }
                    Some(b) => {
                        current.push(b);
                        i += 1;
                    }
                }
            }
        }
        args.push(current);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(line: &str) -> Vec<String> {
        parse_line(line)
            .expect("valid line")
            .into_iter()
            .map(|a| String::from_utf8_lossy(&a).into_owned())
            .collect()
    }

    #[test]
    fn quoting_rules() {
        assert_eq!(split("  SET  k   v "), ["SET", "k", "v"]);
        assert_eq!(
            split(r#"ECHO "a b\n\"c\"" 'd "e"' 'it\'s'"#),
            ["ECHO", "a b\n\"c\"", "d \"e\"", "it's"]
        );
        assert_eq!(split(r#"ECHO "\x41\x4a\xzz""#), ["ECHO", "AJxzz"]);
        assert_eq!(split(r#"a"b c"d"#.replace("d", "").as_str()), ["ab c"]);
        assert_eq!(split(""), Vec::<String>::new());
        assert_eq!(split("   \t "), Vec::<String>::new());
        assert_eq!(split(r#"ECHO """#), ["ECHO", ""]);
    }

    #[test]
    fn bad_quotes_are_errors() {
        for line in [r#"ECHO "abc"#, "ECHO 'abc", r#"ECHO "a"b"#, "ECHO 'a'b"] {
            assert_eq!(parse_line(line), Err(ParseError::InvalidArguments), "{line}");
        }
        assert_eq!(ParseError::InvalidArguments.to_string(), "Invalid argument(s)");
    }
}

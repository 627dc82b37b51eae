//! A small cursor over a command's arguments, plus Redis's strict number parsing.
//!
//! Running out of arguments is an ordinary case (`next` returns `None`); `finish` rejects
//! leftovers with Redis's `ERR syntax error`.

use super::reply::Reply;

pub(crate) struct Args<'a> {
    argv: &'a [Vec<u8>],
    pos: usize,
}

impl<'a> Args<'a> {
    /// A cursor over the arguments after the command name.
    pub(crate) fn new(argv: &'a [Vec<u8>]) -> Args<'a> {
        Args {
            argv: argv.get(1..).unwrap_or(&[]),
            pos: 0,
        }
    }

    pub(crate) fn next(&mut self) -> Option<&'a [u8]> {
        let arg = self.argv.get(self.pos)?;
        self.pos += 1;
        Some(arg.as_slice())
    }

    /// The next argument, which the command's arity guarantees; a syntax error otherwise.
    pub(crate) fn required(&mut self) -> Result<&'a [u8], Reply> {
        self.next().ok_or_else(Reply::syntax_error)
    }

    pub(crate) fn required_int(&mut self) -> Result<i64, Reply> {
        parse_i64(self.required()?).ok_or_else(Reply::not_an_integer)
    }

    pub(crate) fn peek(&self) -> Option<&'a [u8]> {
        self.argv.get(self.pos).map(Vec::as_slice)
    }

    /// The arguments not consumed yet.
    pub(crate) fn rest(&mut self) -> &'a [Vec<u8>] {
        let rest = self.argv.get(self.pos..).unwrap_or(&[]);
        self.pos = self.argv.len();
        rest
    }

    pub(crate) fn remaining(&self) -> usize {
        self.argv.len().saturating_sub(self.pos)
    }

    pub(crate) fn finish(&self) -> Result<(), Reply> {
        if self.remaining() == 0 {
            Ok(())
        } else {
            Err(Reply::syntax_error())
        }
    }
}

/// Case-insensitive ASCII comparison of an argument with a keyword.
pub(crate) fn is(arg: &[u8], keyword: &str) -> bool {
    arg.eq_ignore_ascii_case(keyword.as_bytes())
}

/// Redis's `string2ll`: optional `-`, no `+`, no blanks, no leading zeros, no overflow.
pub(crate) fn parse_i64(s: &[u8]) -> Option<i64> {
    if s == b"0" {
        return Some(0);
    }
    let (negative, digits) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, s),
    };
    match digits.first() {
        Some(b'1'..=b'9') => {}
        _ => return None,
    }
    let mut value: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        value = value.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    if negative {
        if value == 1u64 << 63 {
            Some(i64::MIN)
        } else {
            i64::try_from(value).ok().map(|v| -v)
        }
    } else {
        i64::try_from(value).ok()
    }
}

/// C's `strtod` applied to a whole argument the way `DEBUG SLEEP` does: the longest numeric
/// prefix counts, anything unparsable is 0.
pub(crate) fn parse_f64_prefix(s: &[u8]) -> f64 {
    // A number longer than this is not a sleep anyone means; the cap keeps this linear.
    const MAX_LEN: usize = 64;
    let text = String::from_utf8_lossy(s.get(..MAX_LEN).unwrap_or(s));
    let text = text.trim_start();
    let ends = text
        .char_indices()
        .map(|(i, _)| i)
        .skip(1)
        .chain(std::iter::once(text.len()));
    ends.filter_map(|i| text.get(..i)?.parse::<f64>().ok())
        .last()
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string2ll_is_strict() {
        assert_eq!(parse_i64(b"0"), Some(0));
        assert_eq!(parse_i64(b"-12"), Some(-12));
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        for bad in [
            &b""[..],
            b"-",
            b"-0",
            b"01",
            b"+1",
            b" 1",
            b"1 ",
            b"1.0",
            b"9223372036854775808",
            b"abc",
        ] {
            assert_eq!(parse_i64(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn strtod_prefix() {
        assert_eq!(parse_f64_prefix(b"0.25"), 0.25);
        assert_eq!(parse_f64_prefix(b" 1.5xyz"), 1.5);
        assert_eq!(parse_f64_prefix(b"abc"), 0.0);
    }
}

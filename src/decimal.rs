//! A decimal number as text, read into an `f64`: what the page reads from a learner
//! (a knob, a fault's drift, a quiz's number) and from a link.
//!
//! Not `str::parse::<f64>`: its correctly rounded reader for any length of digits
//! (Eisel-Lemire with a 10 KB table of powers of five, and a big-decimal fallback) cost
//! the page's module about 9 KB gzip, for numbers a person types. Here:
//! - up to 19 significant digits are kept; further ones are dropped (read as zeros),
//!   which moves the value by less than one part in 10^18;
//! - with at most 15 significant digits and a power of ten within 10^±22, which every
//!   number a learner types is, the result is exactly `parse::<f64>`'s (both factors are
//!   exact doubles, so the one multiplication or division rounds correctly; the tests
//!   compare the two);
//! - otherwise it is within a few units in the last place of it.
//!
//! Accepted: an optional sign, digits with at most one `.` (at least one digit in all),
//! then optionally `e` or `E`, a sign and digits. Nothing else: no spaces, no `inf` or
//! `NaN`, no hexadecimal. A result too large for an `f64` is `None`, as is anything over
//! [`MAX_CHARS`] characters.

/// The longest text read.
pub const MAX_CHARS: usize = 400;

/// 10^0 … 10^22, each exact in an `f64`.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    1e19, 1e20, 1e21, 1e22,
];

/// `text` as a finite `f64`, or `None` (see the module's documentation).
pub fn parse(text: &str) -> Option<f64> {
    if text.is_empty() || text.len() > MAX_CHARS {
        return None;
    }
    let b = text.as_bytes();
    let mut i = 0;
    let negative = match b.first() {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let (mut mantissa, mut kept, mut exp10, mut digits) = (0u64, 0u32, 0i64, 0usize);
    let mut seen_point = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'0'..=b'9' => {
                digits += 1;
                let d = u64::from(c - b'0');
                if mantissa == 0 && d == 0 {
                    // A leading zero: only its place counts.
                    if seen_point {
                        exp10 -= 1;
                    }
                } else if kept < 19 {
                    mantissa = mantissa * 10 + d;
                    kept += 1;
                    if seen_point {
                        exp10 -= 1;
                    }
                } else if !seen_point {
                    // A digit past the 19th, before the point: read as a zero.
                    exp10 += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    if digits == 0 {
        return None;
    }
    if let Some(&(b'e' | b'E')) = b.get(i) {
        i += 1;
        let sign = match b.get(i) {
            Some(b'-') => {
                i += 1;
                -1
            }
            Some(b'+') => {
                i += 1;
                1
            }
            _ => 1,
        };
        let start = i;
        let mut e: i64 = 0;
        while let Some(&c @ b'0'..=b'9') = b.get(i) {
            // Capped: past 10^±100 000 the answer is 0 or too large whatever follows.
            e = (e * 10 + i64::from(c - b'0')).min(100_000);
            i += 1;
        }
        if i == start {
            return None;
        }
        exp10 += sign * e;
    }
    if i != b.len() {
        return None;
    }
    let value = scale(mantissa, exp10);
    let value = if negative { -value } else { value };
    value.is_finite().then_some(value)
}

/// A number as a learner types it in a field: spaces around or between digits, a decimal
/// comma (`0,5`) and the minus sign `−` (U+2212) are read as `0.5` and `-`; then
/// [`parse`]. (A quiz's answer has its own reader, which also tells a thousands separator
/// from a decimal comma: `lesson::quiz::read_number`.)
pub fn parse_typed(text: &str) -> Option<f64> {
    let plain: String = text
        .chars()
        .filter(|c| *c != ' ')
        .map(|c| match c {
            ',' => '.',
            '\u{2212}' => '-',
            c => c,
        })
        .collect();
    parse(&plain)
}

/// `mantissa × 10^exp10`.
fn scale(mantissa: u64, exp10: i64) -> f64 {
    if mantissa == 0 {
        return 0.0;
    }
    let m = mantissa as f64;
    let exact = mantissa < (1 << 53);
    match usize::try_from(exp10.unsigned_abs()) {
        Ok(e) if exact && e < EXACT_POWERS.len() => {
            if exp10 >= 0 {
                m * EXACT_POWERS[e]
            } else {
                m / EXACT_POWERS[e]
            }
        }
        _ => {
            // Out of the exact range: powers of 10^22 at a time (a few ulps at most),
            // stopping once the value is 0 or infinite.
            let mut v = m;
            let mut left = exp10;
            while left != 0 && v != 0.0 && v.is_finite() {
                let step = left.clamp(-22, 22);
                let p = EXACT_POWERS[step.unsigned_abs() as usize];
                v = if step > 0 { v * p } else { v / p };
                left -= step;
            }
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_people_type_reads_as_parse_reads_it() {
        for t in [
            "0",
            "-0",
            "+7",
            "1",
            "250",
            "0.5",
            "0.01",
            "0.001",
            "99.5",
            "1.25",
            "-3.75",
            "12345.678",
            "0.1",
            "0.2",
            "0.3",
            "2.675",
            "1e3",
            "1E-3",
            "2.5e+2",
            ".5",
            "5.",
            "007.50",
            "1000000000000000",
            "123456789012345",
            "0.000000000000001",
            "9007199254740991",
            "4.35",
            "1e22",
            "1e-22",
            "3.14159265358979",
        ] {
            assert_eq!(parse(t), t.parse::<f64>().ok(), "{t}");
        }
    }

    #[test]
    fn many_digits_or_large_powers_stay_close() {
        for t in [
            "123456789012345678901234567890",
            "0.1234567890123456789012345",
            "1e200",
            "-2.5e-200",
            "1.7976931348623157e308",
            "98765432109876543210e-10",
        ] {
            let (ours, std) = (parse(t).unwrap(), t.parse::<f64>().unwrap());
            assert!(((ours - std) / std).abs() < 1e-14, "{t}: {ours} vs {std}");
        }
    }

    #[test]
    fn typed_numbers_take_a_decimal_comma_spaces_and_the_minus_sign() {
        assert_eq!(parse_typed(" 0,02 "), Some(0.02));
        assert_eq!(parse_typed("10 000"), Some(10_000.0));
        assert_eq!(parse_typed("\u{2212}1,5"), Some(-1.5));
        assert_eq!(parse_typed("1,2,3"), None);
        assert_eq!(parse_typed(""), None);
    }

    #[test]
    fn what_is_not_a_number_is_none() {
        for t in [
            "", "-", "+", ".", "e5", "1e", "1e+", "1.2.3", " 1", "1 ", "1,5", "abc", "0x10", "inf", "NaN",
            "1e400", "--1", "1-",
        ] {
            assert_eq!(parse(t), None, "{t:?}");
        }
        assert_eq!(parse(&"1".repeat(MAX_CHARS + 1)), None);
        assert_eq!(parse("1e-400"), Some(0.0));
        assert_eq!(parse("1e99999999999999999999"), None);
    }
}

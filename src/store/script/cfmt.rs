//! C `printf` number formatting (`%g`, `%e`, `%f`, `%d`, `%x`, ...), as Lua 5.1's
//! `string.format` and `tostring` (`%.14g`) and Redis's argument conversion (`%.17g`) use it.

/// One parsed conversion: `%[flags][width][.precision]conv`.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Spec {
    pub(crate) left: bool,
    pub(crate) plus: bool,
    pub(crate) space: bool,
    pub(crate) alt: bool,
    pub(crate) zero: bool,
    pub(crate) width: usize,
    pub(crate) precision: Option<usize>,
}

/// Pads a formatted number or string to the field width.
pub(crate) fn pad(spec: &Spec, body: &[u8], numeric: bool) -> Vec<u8> {
    if body.len() >= spec.width {
        return body.to_vec();
    }
    let fill = spec.width - body.len();
    let mut out = Vec::with_capacity(spec.width);
    if spec.left {
        out.extend_from_slice(body);
        out.resize(spec.width, b' ');
    } else if spec.zero && numeric {
        // Zeros go after the sign (and after 0x).
        let sign_len = match body.first() {
            Some(b'-' | b'+' | b' ') => 1,
            _ => 0,
        };
        let (sign, digits) = body.split_at(sign_len);
        out.extend_from_slice(sign);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(digits);
    } else {
        out.resize(fill, b' ');
        out.extend_from_slice(body);
    }
    out
}

fn sign_prefix(spec: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

fn non_finite(spec: &Spec, v: f64, upper: bool) -> String {
    let text = if v.is_nan() { "nan" } else { "inf" };
    let text = if upper {
        text.to_uppercase()
    } else {
        text.to_string()
    };
    format!("{}{}", sign_prefix(spec, v.is_sign_negative()), text)
}

/// `%e` body for a finite non-negative value: `d.ddde+XX`.
fn exp_body(v: f64, precision: usize, upper: bool, alt: bool) -> String {
    let s = format!("{v:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut m = mantissa.to_string();
    if alt && precision == 0 {
        m.push('.');
    }
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{m}{e}{sign}{:02}", exp.unsigned_abs())
}

pub(crate) fn format_e(spec: &Spec, v: f64, upper: bool) -> String {
    if !v.is_finite() {
        return non_finite(spec, v, upper);
    }
    let p = spec.precision.unwrap_or(6);
    format!(
        "{}{}",
        sign_prefix(spec, v.is_sign_negative()),
        exp_body(v.abs(), p, upper, spec.alt)
    )
}

pub(crate) fn format_f(spec: &Spec, v: f64) -> String {
    if !v.is_finite() {
        return non_finite(spec, v, false);
    }
    let p = spec.precision.unwrap_or(6);
    let mut body = format!("{:.p$}", v.abs());
    if spec.alt && p == 0 {
        body.push('.');
    }
    format!("{}{}", sign_prefix(spec, v.is_sign_negative()), body)
}

pub(crate) fn format_g(spec: &Spec, v: f64, upper: bool) -> String {
    if !v.is_finite() {
        return non_finite(spec, v, upper);
    }
    let p = match spec.precision {
        Some(0) => 1,
        Some(p) => p,
        None => 6,
    };
    let a = v.abs();
    // The exponent %e would print, after rounding to p significant digits.
    let x: i32 = if a == 0.0 {
        0
    } else {
        let s = format!("{a:.prec$e}", prec = p - 1);
        s.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0)
    };
    let p_i = i32::try_from(p).unwrap_or(i32::MAX);
    let mut body = if x < p_i && x >= -4 {
        let decimals = usize::try_from(p_i - 1 - x).unwrap_or(0);
        format!("{a:.decimals$}")
    } else {
        exp_body(a, p - 1, upper, false)
    };
    if !spec.alt {
        // Strip trailing zeros of the fraction (and a bare '.').
        let (num, exp) = match body.find(['e', 'E']).and_then(|i| body.split_at_checked(i)) {
            Some((num, exp)) => (num.to_string(), exp.to_string()),
            None => (body.clone(), String::new()),
        };
        let num = if num.contains('.') {
            num.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            num
        };
        body = format!("{num}{exp}");
    } else if !body.contains('.') {
        body.push('.');
    }
    format!("{}{}", sign_prefix(spec, v.is_sign_negative()), body)
}

/// `%.Ng` with default flags.
pub(crate) fn g(v: f64, precision: usize) -> String {
    format_g(
        &Spec {
            precision: Some(precision),
            ..Spec::default()
        },
        v,
        false,
    )
}

pub(crate) fn format_int(spec: &Spec, v: i64) -> String {
    let digits = v.unsigned_abs().to_string();
    let digits = match spec.precision {
        Some(0) if v == 0 => String::new(),
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    };
    format!("{}{digits}", sign_prefix(spec, v < 0))
}

pub(crate) fn format_radix(spec: &Spec, v: i64, conv: u8) -> String {
    // C takes the bits as unsigned.
    let u = v as u64;
    let digits = match conv {
        b'x' => format!("{u:x}"),
        b'X' => format!("{u:X}"),
        b'o' => format!("{u:o}"),
        _ => u.to_string(),
    };
    let digits = match spec.precision {
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    };
    if spec.alt && u != 0 {
        match conv {
            b'x' => format!("0x{digits}"),
            b'X' => format!("0X{digits}"),
            b'o' if !digits.starts_with('0') => format!("0{digits}"),
            _ => digits,
        }
    } else {
        digits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_g_like_c() {
        assert_eq!(g(7.0, 14), "7");
        assert_eq!(g(0.1, 17), "0.10000000000000001");
        assert_eq!(g(1e20, 17), "1e+20");
        assert_eq!(g(1e15, 14), "1e+15");
        assert_eq!(g(12345678901234567.0, 14), "1.2345678901235e+16");
        assert_eq!(g(2f64.powi(53), 14), "9.007199254741e+15");
        assert_eq!(g(2.14, 17), "2.1400000000000001");
        assert_eq!(g(100000.0, 6), "100000");
        assert_eq!(g(1000000.0, 6), "1e+06");
        assert_eq!(g(1e-5, 6), "1e-05");
        assert_eq!(g(0.0001, 6), "0.0001");
        assert_eq!(g(-0.0, 14), "-0");
        assert_eq!(g(f64::INFINITY, 14), "inf");
        assert_eq!(g(-f64::INFINITY, 14), "-inf");
        assert_eq!(g(0.5, 14), "0.5");
        let alt = Spec {
            alt: true,
            ..Spec::default()
        };
        assert_eq!(format_g(&alt, 1.0, false), "1.00000");
        let p2 = Spec {
            precision: Some(2),
            width: 5,
            ..Spec::default()
        };
        assert_eq!(
            String::from_utf8(pad(&p2, format_g(&p2, 3.16159, false).as_bytes(), true)).unwrap(),
            "  3.2"
        );
    }

    #[test]
    fn percent_e_f_d_x() {
        let d = Spec::default();
        assert_eq!(format_e(&d, 12345.678, false), "1.234568e+04");
        assert_eq!(
            format_f(
                &Spec {
                    precision: Some(3),
                    ..d
                },
                3.16159
            ),
            "3.162"
        );
        assert_eq!(format_int(&Spec { plus: true, ..d }, 5), "+5");
        assert_eq!(format_int(&Spec { space: true, ..d }, 5), " 5");
        assert_eq!(format_radix(&d, -1, b'x'), "ffffffffffffffff");
        assert_eq!(format_radix(&d, 255, b'X'), "FF");
        assert_eq!(format_radix(&d, 8, b'o'), "10");
        let z = Spec {
            zero: true,
            width: 5,
            ..d
        };
        assert_eq!(pad(&z, b"-42", true), b"-0042");
        let l = Spec {
            left: true,
            width: 5,
            ..d
        };
        assert_eq!(pad(&l, b"ab", false), b"ab   ");
    }
}

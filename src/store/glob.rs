//! Redis's `stringmatchlen`: `*`, `?`, `[abc]`, `[^a-z]`, `\x` escapes.

/// Bounds the recursion `*` causes, as Redis does (its limit is also 1000).
const MAX_NESTING: u32 = 1000;

/// `s` without its first `n` bytes (empty if shorter).
fn skip(s: &[u8], n: usize) -> &[u8] {
    s.get(n..).unwrap_or(&[])
}

pub(crate) fn glob_match(pattern: &[u8], string: &[u8]) -> bool {
    let mut skip_longer = false;
    match_impl(pattern, string, &mut skip_longer, 0)
}

fn match_impl(mut p: &[u8], mut s: &[u8], skip_longer: &mut bool, nesting: u32) -> bool {
    if nesting > MAX_NESTING {
        return false;
    }
    while let (Some(&pc), Some(&sc)) = (p.first(), s.first()) {
        match pc {
            b'*' => {
                while p.get(1) == Some(&b'*') {
                    p = skip(p, 1);
                }
                if p.len() == 1 {
                    return true;
                }
                while !s.is_empty() {
                    if match_impl(skip(p, 1), s, skip_longer, nesting + 1) {
                        return true;
                    }
                    if *skip_longer {
                        return false;
                    }
                    s = skip(s, 1);
                }
                // No match for the rest of the pattern anywhere in the rest of the string:
                // earlier stars cannot help either.
                *skip_longer = true;
                return false;
            }
            b'?' => s = skip(s, 1),
            b'[' => {
                p = skip(p, 1);
                let negate = p.first() == Some(&b'^');
                if negate {
                    p = skip(p, 1);
                }
                let mut matched = false;
                loop {
                    match p.first() {
                        Some(b'\\') if p.len() >= 2 => {
                            p = skip(p, 1);
                            if p.first() == Some(&sc) {
                                matched = true;
                            }
                        }
                        Some(b']') => break,
                        None => {
                            // Unterminated class: the pattern ends here.
                            break;
                        }
                        Some(&lo) if p.len() >= 3 && p.get(1) == Some(&b'-') => {
                            let hi = p.get(2).copied().unwrap_or(lo);
                            let (lo, hi) = if lo > hi { (hi, lo) } else { (lo, hi) };
                            p = skip(p, 2);
                            if (lo..=hi).contains(&sc) {
                                matched = true;
                            }
                        }
                        Some(&c) => {
                            if c == sc {
                                matched = true;
                            }
                        }
                    }
                    p = skip(p, 1);
                }
                if negate {
                    matched = !matched;
                }
                if !matched {
                    return false;
                }
                // `p` is at the closing ']' (or empty); the common advance below skips it.
                s = skip(s, 1);
            }
            b'\\' if p.len() >= 2 => {
                p = skip(p, 1);
                if p.first() != Some(&sc) {
                    return false;
                }
                s = skip(s, 1);
            }
            _ => {
                if pc != sc {
                    return false;
                }
                s = skip(s, 1);
            }
        }
        p = skip(p, 1);
        if s.is_empty() {
            return p.iter().all(|&c| c == b'*');
        }
    }
    p.is_empty() && s.is_empty()
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        let cases: &[(&str, &str, bool)] = &[
            ("*", "anything", true),
            ("lock:*", "lock:a", true),
            ("lock:*", "lock:", true),
            ("lock:*", "lockx", false),
            ("h?llo", "hello", true),
            ("h?llo", "hllo", false),
            ("h[ae]llo", "hallo", true),
            ("h[ae]llo", "hillo", false),
            ("h[^e]llo", "hallo", true),
            ("h[^e]llo", "hello", false),
            ("h[a-b]llo", "hbllo", true),
            ("h[b-a]llo", "hbllo", true),
            ("h\\*llo", "h*llo", true),
            ("h\\*llo", "hello", false),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false),
            ("[abc", "a", true),
            ("a[", "a", false),
        ];
        for &(pattern, string, expected) in cases {
            assert_eq!(
                glob_match(pattern.as_bytes(), string.as_bytes()),
                expected,
                "{pattern} vs {string}"
            );
        }
    }
}

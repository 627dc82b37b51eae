//! Lua 5.1 patterns on bytes, for `string.find`, `match`, `gmatch` and `gsub`: classes
//! (`%a %c %d %l %p %s %u %w %x %z` and their complements), sets, `* + - ?`, anchors,
//! captures and position captures, back references, `%b` and `%f`, with Lua 5.1's error
//! texts.
//!
//! A pattern can take exponential time (`("a"):rep(30):find(("a-"):rep(30) .. "b")`), and
//! the matcher runs inside one library call, outside the VM's instruction count. So
//! every step is counted against a budget the caller gives, and the match stops with
//! [`PatError::Budget`] when it runs out. Recursion is capped at [`MAX_DEPTH`] (Lua 5.2's
//! `MAXCCALLS`; 5.1 relied on the C stack), so no pattern can overflow ours.

/// At most this many captures (Lua's `LUA_MAXCAPTURES`).
pub(crate) const MAX_CAPTURES: usize = 32;
/// Nested matcher calls before "pattern too complex".
pub(crate) const MAX_DEPTH: usize = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Len {
    Unfinished,
    Position,
    Bytes(usize),
}

/// One capture of a match: a byte range of the subject, or a position (`()`, 1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Capture {
    Span(usize, usize),
    Position(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PatError {
    /// A malformed pattern or a bad capture reference, in Lua's words.
    Lua(&'static str),
    /// The step budget ran out.
    Budget,
}

type Res<T> = Result<T, PatError>;

/// One attempt to match a pattern at a position of a subject.
pub(crate) struct Matcher<'a> {
    src: &'a [u8],
    pat: &'a [u8],
    caps: Vec<(usize, Len)>,
    /// Steps left; shared across calls through [`Matcher::steps_left`].
    steps: u64,
    depth: usize,
}

impl<'a> Matcher<'a> {
    /// `pat` is cut at its first NUL byte, as Lua 5.1's C-string matcher sees it.
    pub(crate) fn new(src: &'a [u8], pat: &'a [u8], steps: u64) -> Matcher<'a> {
        let end = pat.iter().position(|&b| b == 0).unwrap_or(pat.len());
        Matcher {
            src,
            pat: pat.get(..end).unwrap_or_default(),
            caps: Vec::new(),
            steps,
            depth: 0,
        }
    }

    pub(crate) fn steps_left(&self) -> u64 {
        self.steps
    }

    /// The end of a match of the pattern from `p` on at subject position `s`, if any.
    pub(crate) fn match_at(&mut self, s: usize, p: usize) -> Res<Option<usize>> {
        self.caps.clear();
        self.depth = 0;
        self.do_match(s, p)
    }

    /// The captures of the last match `s..e` (the whole match if it has none and
    /// `whole_if_none`).
    pub(crate) fn captures(&self, s: usize, e: usize, whole_if_none: bool) -> Res<Vec<Capture>> {
        let n = if self.caps.is_empty() && whole_if_none {
            1
        } else {
            self.caps.len()
        };
        (0..n).map(|i| self.capture(i, s, e)).collect()
    }

    /// Capture `i` of the match `s..e` (0 is the whole match when there are none).
    pub(crate) fn capture(&self, i: usize, s: usize, e: usize) -> Res<Capture> {
        match self.caps.get(i) {
            None if i == 0 => Ok(Capture::Span(s, e)),
            None => Err(PatError::Lua("invalid capture index")),
            Some((_, Len::Unfinished)) => Err(PatError::Lua("unfinished capture")),
            Some((start, Len::Position)) => Ok(Capture::Position(start + 1)),
            Some((start, Len::Bytes(n))) => Ok(Capture::Span(*start, start + n)),
        }
    }

    pub(crate) fn capture_count(&self) -> usize {
        self.caps.len()
    }

    fn step(&mut self) -> Res<()> {
        self.steps_n(1)
    }

    /// `n` steps at once (a test against a long `[set]` costs more than one byte compare).
    fn steps_n(&mut self, n: u64) -> Res<()> {
        if self.steps < n {
            self.steps = 0;
            return Err(PatError::Budget);
        }
        self.steps -= n;
        Ok(())
    }

    /// What testing one byte against the class at `p..ep` costs, in steps.
    fn class_cost(p: usize, ep: usize) -> u64 {
        1 + u64::try_from(ep.saturating_sub(p) / 4).unwrap_or(u64::MAX)
    }

    fn at(&self, p: usize) -> u8 {
        self.pat.get(p).copied().unwrap_or(0)
    }

    /// Where the single-character class starting at `p` ends.
    fn class_end(&self, p: usize) -> Res<usize> {
        let c = self.at(p);
        let mut p = p + 1;
        match c {
            b'%' => {
                if p >= self.pat.len() {
                    return Err(PatError::Lua("malformed pattern (ends with '%')"));
                }
                Ok(p + 1)
            }
            b'[' => {
                if self.at(p) == b'^' {
                    p += 1;
                }
                // The first character is part of the set even if it is `]`.
                loop {
                    if p >= self.pat.len() {
                        return Err(PatError::Lua("malformed pattern (missing ']')"));
                    }
                    let c = self.at(p);
                    p += 1;
                    if c == b'%' && p < self.pat.len() {
                        p += 1;
                    }
                    if self.at(p) == b']' {
                        return Ok(p + 1);
                    }
                }
            }
            _ => Ok(p),
        }
    }

    fn single_match(&self, c: u8, p: usize, ep: usize) -> bool {
        match self.at(p) {
            b'.' => true,
            b'%' => class(c, self.at(p + 1)),
            b'[' => self.in_set(c, p, ep - 1),
            pc => pc == c,
        }
    }

    /// Whether `c` is in the set `[`…`]` at `p..=ec` (`ec` is its `]`).
    fn in_set(&self, c: u8, p: usize, ec: usize) -> bool {
        let mut p = p + 1;
        let mut yes = true;
        if self.at(p) == b'^' {
            yes = false;
            p += 1;
        }
        while p < ec {
            let pc = self.at(p);
            if pc == b'%' {
                p += 1;
                if class(c, self.at(p)) {
                    return yes;
                }
            } else if self.at(p + 1) == b'-' && p + 2 < ec {
                if pc <= c && c <= self.at(p + 2) {
                    return yes;
                }
                p += 2;
            } else if pc == c {
                return yes;
            }
            p += 1;
        }
        !yes
    }

    fn do_match(&mut self, s: usize, p: usize) -> Res<Option<usize>> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(PatError::Lua("pattern too complex"));
        }
        let r = self.match_loop(s, p);
        self.depth -= 1;
        r
    }

    fn match_loop(&mut self, mut s: usize, mut p: usize) -> Res<Option<usize>> {
        loop {
            self.step()?;
            if p >= self.pat.len() {
                return Ok(Some(s));
            }
            match self.at(p) {
                b'(' => {
                    return if self.at(p + 1) == b')' {
                        self.start_capture(s, p + 2, Len::Position)
                    } else {
                        self.start_capture(s, p + 1, Len::Unfinished)
                    };
                }
                b')' => return self.end_capture(s, p + 1),
                b'%' if self.at(p + 1) == b'b' => match self.balance(s, p + 2)? {
                    Some(e) => {
                        s = e;
                        p += 4;
                        continue;
                    }
                    None => return Ok(None),
                },
                b'%' if self.at(p + 1) == b'f' => {
                    p += 2;
                    if self.at(p) != b'[' {
                        return Err(PatError::Lua("missing '[' after '%f' in pattern"));
                    }
                    let ep = self.class_end(p)?;
                    let prev = s
                        .checked_sub(1)
                        .and_then(|i| self.src.get(i))
                        .copied()
                        .unwrap_or(0);
                    let cur = self.src.get(s).copied().unwrap_or(0);
                    if !self.in_set(prev, p, ep - 1) && self.in_set(cur, p, ep - 1) {
                        p = ep;
                        continue;
                    }
                    return Ok(None);
                }
                b'%' if self.at(p + 1).is_ascii_digit() => match self.back_reference(s, self.at(p + 1))? {
                    Some(e) => {
                        s = e;
                        p += 2;
                        continue;
                    }
                    None => return Ok(None),
                },
                b'$' if p + 1 == self.pat.len() => {
                    return Ok((s == self.src.len()).then_some(s));
                }
                _ => {
                    let ep = self.class_end(p)?;
                    self.steps_n(Self::class_cost(p, ep) - 1)?;
                    let m = self.src.get(s).is_some_and(|&c| self.single_match(c, p, ep));
                    match self.at(ep) {
                        b'?' => {
                            if m {
                                if let Some(e) = self.do_match(s + 1, ep + 1)? {
                                    return Ok(Some(e));
                                }
                            }
                            p = ep + 1;
                        }
                        b'*' => return self.max_expand(s, p, ep),
                        b'+' => {
                            return if m {
                                self.max_expand(s + 1, p, ep)
                            } else {
                                Ok(None)
                            }
                        }
                        b'-' => return self.min_expand(s, p, ep),
                        _ => {
                            if !m {
                                return Ok(None);
                            }
                            s += 1;
                            p = ep;
                        }
                    }
                }
            }
        }
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> Res<Option<usize>> {
        let mut i = 0;
        while self.src.get(s + i).is_some_and(|&c| self.single_match(c, p, ep)) {
            self.steps_n(Self::class_cost(p, ep))?;
            i += 1;
        }
        loop {
            if let Some(e) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(e));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    fn min_expand(&mut self, mut s: usize, p: usize, ep: usize) -> Res<Option<usize>> {
        loop {
            if let Some(e) = self.do_match(s, ep + 1)? {
                return Ok(Some(e));
            }
            self.steps_n(Self::class_cost(p, ep))?;
            if self.src.get(s).is_some_and(|&c| self.single_match(c, p, ep)) {
                s += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, what: Len) -> Res<Option<usize>> {
        if self.caps.len() >= MAX_CAPTURES {
            return Err(PatError::Lua("too many captures"));
        }
        self.caps.push((s, what));
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.caps.pop();
        }
        Ok(r)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> Res<Option<usize>> {
        let Some(l) = self.caps.iter().rposition(|c| c.1 == Len::Unfinished) else {
            return Err(PatError::Lua("invalid pattern capture"));
        };
        if let Some(cap) = self.caps.get_mut(l) {
            cap.1 = Len::Bytes(s - cap.0);
        }
        let r = self.do_match(s, p)?;
        if r.is_none() {
            if let Some(cap) = self.caps.get_mut(l) {
                cap.1 = Len::Unfinished;
            }
        }
        Ok(r)
    }

    fn balance(&mut self, s: usize, p: usize) -> Res<Option<usize>> {
        if p + 1 >= self.pat.len() {
            return Err(PatError::Lua("unbalanced pattern"));
        }
        let (open, close) = (self.at(p), self.at(p + 1));
        if self.src.get(s) != Some(&open) {
            return Ok(None);
        }
        let mut depth = 1usize;
        for (i, &c) in self.src.iter().enumerate().skip(s + 1) {
            self.step()?;
            if c == close {
                depth -= 1;
                if depth == 0 {
                    return Ok(Some(i + 1));
                }
            } else if c == open {
                depth += 1;
            }
        }
        Ok(None)
    }

    fn back_reference(&mut self, s: usize, digit: u8) -> Res<Option<usize>> {
        let l = usize::from(digit).wrapping_sub(usize::from(b'1'));
        let Some(&(start, len)) = self.caps.get(l) else {
            return Err(PatError::Lua("invalid capture index"));
        };
        let len = match len {
            Len::Unfinished => return Err(PatError::Lua("invalid capture index")),
            // A position capture never matches text (Lua compares a huge length).
            Len::Position => return Ok(None),
            Len::Bytes(n) => n,
        };
        self.steps = self.steps.saturating_sub(len as u64);
        let want = self.src.get(start..start + len);
        Ok(self
            .src
            .get(s..s + len)
            .filter(|got| Some(*got) == want)
            .map(|_| s + len))
    }
}

/// Lua's character classes, in the C locale: `%a`, `%d`, … and `%A`, `%D`, … for the
/// complement; any other character stands for itself.
fn class(c: u8, cl: u8) -> bool {
    let yes = match cl.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c.is_ascii_control(),
        b'd' => c.is_ascii_digit(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0,
        _ => return cl == c,
    };
    if cl.is_ascii_uppercase() {
        !yes
    } else {
        yes
    }
}

/// Whether a pattern has no special characters, so `find` can search for it as text.
pub(crate) fn is_plain(pat: &[u8]) -> bool {
    let end = pat.iter().position(|&b| b == 0).unwrap_or(pat.len());
    !pat.iter().take(end).any(|b| b"^$*+?.([%-".contains(b))
}

/// The first match at or after `init` (0-based): `(start, end, matcher)`. A leading `^`
/// anchors it at `init`.
pub(crate) fn find<'a>(
    src: &'a [u8],
    pat: &'a [u8],
    init: usize,
    steps: u64,
) -> (Res<Option<(usize, usize)>>, Matcher<'a>) {
    let mut m = Matcher::new(src, pat, steps);
    let anchor = m.at(0) == b'^';
    let p = usize::from(anchor);
    let mut s = init;
    loop {
        match m.match_at(s, p) {
            Ok(Some(e)) => return (Ok(Some((s, e))), m),
            Ok(None) => {}
            Err(err) => return (Err(err), m),
        }
        if anchor || s >= src.len() {
            return (Ok(None), m);
        }
        s += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str, p: &str) -> Option<(usize, usize)> {
        find(s.as_bytes(), p.as_bytes(), 0, 1_000_000)
            .0
            .expect("a valid pattern")
    }

    fn caps(s: &str, p: &str) -> Vec<String> {
        let (r, m) = find(s.as_bytes(), p.as_bytes(), 0, 1_000_000);
        let (a, b) = r.expect("valid").expect("a match");
        m.captures(a, b, true)
            .expect("captures")
            .into_iter()
            .map(|c| match c {
                Capture::Span(x, y) => s[x..y].to_string(),
                Capture::Position(n) => format!("@{n}"),
            })
            .collect()
    }

    #[test]
    fn classes_sets_and_repetition() {
        assert_eq!(f("hello world", "o w"), Some((4, 7)));
        assert_eq!(f("lock:invoice:42", "%d+"), Some((13, 15)));
        assert_eq!(f("abc", "^b"), None);
        assert_eq!(f("abc", "c$"), Some((2, 3)));
        assert_eq!(f("a.b", "%."), Some((1, 2)));
        assert_eq!(f("xyz", "[^x]+"), Some((1, 3)));
        assert_eq!(f("a]b", "[]]"), Some((1, 2)));
        assert_eq!(f("F00d", "^%x+$"), Some((0, 4)));
        assert_eq!(f("  x", "%S"), Some((2, 3)));
        assert_eq!(f("aaa", "a-"), Some((0, 0)));
        assert_eq!(f("aaab", "a-b"), Some((0, 4)));
        assert_eq!(f("ab", "a?b"), Some((0, 2)));
        assert_eq!(f("b", "a?b"), Some((0, 1)));
        assert_eq!(f("", ""), Some((0, 0)));
        assert_eq!(f("x", "[a-c]"), None);
        assert_eq!(f("b", "[a-c]"), Some((0, 1)));
    }

    #[test]
    fn captures_back_references_balance_and_frontier() {
        assert_eq!(caps("key=value", "(%w+)=(%w+)"), ["key", "value"]);
        assert_eq!(caps("hello", "()ll()"), ["@3", "@5"]);
        assert_eq!(caps("say \"hi\" now", "([\"'])(.-)%1"), ["\"", "hi"]);
        assert_eq!(caps("f(a(b)c) d", "%b()"), ["(a(b)c)"]);
        assert_eq!(caps("THE (quick) fox", "%f[%a]%a+"), ["THE"]);
        assert_eq!(caps("abc", "b"), ["b"]);
    }

    #[test]
    fn malformed_patterns_are_lua_errors() {
        let e = |p: &str| find(b"abc", p.as_bytes(), 0, 1_000).0.expect_err(p);
        assert_eq!(e("%"), PatError::Lua("malformed pattern (ends with '%')"));
        assert_eq!(e("[a"), PatError::Lua("malformed pattern (missing ']')"));
        assert_eq!(e("a)"), PatError::Lua("invalid pattern capture"));
        assert_eq!(e("%1"), PatError::Lua("invalid capture index"));
        assert_eq!(e("%f"), PatError::Lua("missing '[' after '%f' in pattern"));
        assert_eq!(e("%b"), PatError::Lua("unbalanced pattern"));
        assert_eq!(e(&"()".repeat(33)), PatError::Lua("too many captures"));
        let long = "a".repeat(300);
        let (r, _) = find(long.as_bytes(), "a?".repeat(300).as_bytes(), 0, 1_000_000);
        assert_eq!(r, Err(PatError::Lua("pattern too complex")));
        // An open capture matches, but cannot be read.
        let (r, m) = find(b"abc", b"(a", 0, 1_000);
        let (a, b) = r.expect("valid").expect("a match");
        assert_eq!(m.captures(a, b, true), Err(PatError::Lua("unfinished capture")));
    }

    #[test]
    fn a_runaway_pattern_stops_at_its_budget() {
        let s = "a".repeat(40);
        let p = format!("{}b", "a-".repeat(40));
        let (r, m) = find(s.as_bytes(), p.as_bytes(), 0, 100_000);
        assert_eq!(r, Err(PatError::Budget));
        assert_eq!(m.steps_left(), 0);
        // The same pattern on a subject that matches quickly is fine.
        let (r, _) = find(b"b", p.as_bytes(), 0, 100_000);
        assert_eq!(r, Ok(Some((0, 1))));
    }

    #[test]
    fn plain_text_and_nul_bytes() {
        assert!(is_plain(b"lock:x"));
        assert!(!is_plain(b"lock.x"));
        assert!(is_plain(b"a\0.b"), "Lua 5.1 stops reading a pattern at NUL");
        assert_eq!(find(b"xa", b"a\0zz", 0, 100).0, Ok(Some((1, 2))));
    }
}

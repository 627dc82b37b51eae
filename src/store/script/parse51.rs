//! Lua 5.1's compile errors, worded as Redis's Lua says them. piccolo's parser reports its
//! own texts (`found "Add", expected "grouped expression or name"`) and no token position,
//! so before piccolo compiles a script this module reads it with Lua 5.1's grammar (a
//! recognizer following `llex.c` and `lparser.c` of Lua 5.1.5: it builds nothing) and, on
//! the first mistake, gives 5.1's message: `unexpected symbol near '+'`, `'then' expected
//! near 'return'`, `'end' expected (to close 'function' at line 1) near '<eof>'`,
//! `unfinished string near ''abc'`, `malformed number near '1.2.3'`, `no loop to break`...
//!
//! It only ever adds an error where Lua 5.1 has one: a script it accepts goes on to piccolo
//! unchanged. Nesting deeper than [`MAX_DEPTH`] ends the reading without a verdict (piccolo
//! decides), so the recursion is bounded; the token list is bounded by the source.

/// Nesting (parentheses, tables, functions, blocks) past which the recognizer gives up.
const MAX_DEPTH: usize = 150;

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Name,
    Str,
    Num,
    /// A keyword or a symbol, by its text.
    Word(&'static str),
    Eof,
    /// A lexical error, met when the parser reaches this token: (message, near text).
    Bad(&'static str, String),
}

#[derive(Clone, Debug)]
struct Tok {
    kind: Kind,
    /// What Lua 5.1 prints for it in `near '...'`.
    text: String,
    /// The line the lexer is on once the token is read (its last line).
    line: usize,
}

const KEYWORDS: [&str; 21] = [
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local", "nil",
    "not", "or", "repeat", "return", "then", "true", "until", "while",
];

const SYMBOLS3: [&str; 1] = ["..."];
const SYMBOLS2: [&str; 5] = ["..", "==", ">=", "<=", "~="];
/// The braces, spelled so that a brace count over the source stays balanced.
const LBRACE: &str = "\u{7b}";
const RBRACE: &str = "\u{7d}";

const SYMBOLS1: [&str; 22] = [
    "+", "-", "*", "/", "%", "^", "#", "<", ">", "=", "(", ")", "{", "}", "[", "]", ";", ":", ",", ".", "~",
    "&",
];

struct Lexer<'a> {
    src: &'a [u8],
    i: usize,
    line: usize,
}

impl Lexer<'_> {
    fn at(&self, k: usize) -> u8 {
        self.src.get(self.i + k).copied().unwrap_or(0)
    }

    fn more(&self) -> bool {
        self.i < self.src.len()
    }

    fn tok(&self, kind: Kind, text: String) -> Tok {
        Tok {
            kind,
            text,
            line: self.line,
        }
    }

    fn bad(&self, msg: &'static str, near: String) -> Tok {
        self.tok(Kind::Bad(msg, near.clone()), near)
    }

    /// The level of a long bracket `[==[` at the cursor: Some(level), or None with the
    /// number of `=` seen (Lua's `skip_sep`).
    fn long_level(&self) -> Result<usize, usize> {
        let eq = self
            .src
            .iter()
            .skip(self.i + 1)
            .take_while(|&&b| b == b'=')
            .count();
        if self.src.get(self.i + 1 + eq) == Some(&b'[') {
            Ok(eq)
        } else {
            Err(eq)
        }
    }

    /// Skips a long string or comment whose opening bracket starts at the cursor.
    fn long(&mut self, level: usize, what: &'static str) -> Result<(), Tok> {
        self.i += level + 2;
        while self.more() {
            match self.at(0) {
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                b']' => {
                    let eq = self
                        .src
                        .iter()
                        .skip(self.i + 1)
                        .take_while(|&&b| b == b'=')
                        .count();
                    if eq == level && self.src.get(self.i + 1 + eq) == Some(&b']') {
                        self.i += eq + 2;
                        return Ok(());
                    }
                    self.i += 1;
                }
                b'[' => {
                    // LUA_COMPAT_LSTR: `[[` inside a level-0 long string is an error in 5.1.
                    if level == 0 && self.at(1) == b'[' {
                        return Err(self.bad("nesting of [[...]] is deprecated", "[".into()));
                    }
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
        Err(self.bad(what, "<eof>".into()))
    }

    fn string(&mut self, quote: u8) -> Tok {
        let mut text = vec![quote];
        self.i += 1;
        loop {
            if !self.more() {
                return self.bad("unfinished string", "<eof>".into());
            }
            let c = self.at(0);
            match c {
                b'\n' | b'\r' => {
                    return self.bad("unfinished string", String::from_utf8_lossy(&text).into_owned());
                }
                b'\\' => {
                    self.i += 1;
                    let e = self.at(0);
                    if !self.more() {
                        continue;
                    }
                    if e.is_ascii_digit() {
                        let mut v: u32 = 0;
                        let mut n = 0;
                        while n < 3 && self.at(0).is_ascii_digit() {
                            v = v * 10 + u32::from(self.at(0) - b'0');
                            self.i += 1;
                            n += 1;
                        }
                        if v > 255 {
                            return self.bad(
                                "escape sequence too large",
                                String::from_utf8_lossy(&text).into_owned(),
                            );
                        }
                        text.push(u8::try_from(v).unwrap_or(0));
                        continue;
                    }
                    if e == b'\n' {
                        self.line += 1;
                    }
                    text.push(match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'a' => 7,
                        b'b' => 8,
                        b'f' => 12,
                        b'v' => 11,
                        other => other,
                    });
                    self.i += 1;
                }
                q if q == quote => {
                    self.i += 1;
                    text.push(q);
                    return self.tok(Kind::Str, String::from_utf8_lossy(&text).into_owned());
                }
                other => {
                    text.push(other);
                    self.i += 1;
                }
            }
        }
    }

    /// Lua 5.1's `read_numeral`: digits and dots, an exponent with its sign, then any
    /// letters, digits and underscores; the whole must convert as `strtod` would.
    fn number(&mut self) -> Tok {
        let start = self.i;
        while self.at(0).is_ascii_digit() || self.at(0) == b'.' {
            self.i += 1;
        }
        if matches!(self.at(0), b'e' | b'E') {
            self.i += 1;
            if matches!(self.at(0), b'+' | b'-') {
                self.i += 1;
            }
        }
        while self.at(0).is_ascii_alphanumeric() || self.at(0) == b'_' {
            self.i += 1;
        }
        let raw = self.src.get(start..self.i).unwrap_or_default();
        let text = String::from_utf8_lossy(raw).into_owned();
        if numeral_converts(&text) {
            self.tok(Kind::Num, text)
        } else {
            self.bad("malformed number", text)
        }
    }

    /// The next token; a lexical error comes back as a `Kind::Bad` token.
    fn next(&mut self) -> Tok {
        loop {
            if !self.more() {
                return self.tok(Kind::Eof, "<eof>".into());
            }
            let c = self.at(0);
            match c {
                b'\n' => {
                    self.line += 1;
                    self.i += 1;
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.i += 1,
                b'-' if self.at(1) == b'-' => {
                    self.i += 2;
                    if self.at(0) == b'[' {
                        if let Ok(level) = self.long_level() {
                            if let Err(t) = self.long(level, "unfinished long comment") {
                                return t;
                            }
                            continue;
                        }
                    }
                    while self.more() && self.at(0) != b'\n' {
                        self.i += 1;
                    }
                }
                b'[' => match self.long_level() {
                    Ok(level) => {
                        let start = self.i;
                        if let Err(t) = self.long(level, "unfinished long string") {
                            return t;
                        }
                        let raw = self.src.get(start..self.i).unwrap_or_default();
                        return self.tok(Kind::Str, String::from_utf8_lossy(raw).into_owned());
                    }
                    Err(0) => {
                        self.i += 1;
                        return self.tok(Kind::Word("["), "[".into());
                    }
                    Err(eq) => {
                        self.i += 1 + eq;
                        return self.bad("invalid long string delimiter", format!("[{}", "=".repeat(eq)));
                    }
                },
                b'"' | b'\'' => return self.string(c),
                b'.' if self.at(1).is_ascii_digit() => return self.number(),
                b'0'..=b'9' => return self.number(),
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    let start = self.i;
                    while self.at(0).is_ascii_alphanumeric() || self.at(0) == b'_' {
                        self.i += 1;
                    }
                    let raw = self.src.get(start..self.i).unwrap_or_default();
                    let text = String::from_utf8_lossy(raw).into_owned();
                    let kind = match KEYWORDS.iter().find(|k| **k == text) {
                        Some(k) => Kind::Word(k),
                        None => Kind::Name,
                    };
                    return self.tok(kind, text);
                }
                _ => {
                    let rest = self.src.get(self.i..).unwrap_or_default();
                    let sym = SYMBOLS3
                        .iter()
                        .chain(SYMBOLS2.iter())
                        .chain(SYMBOLS1.iter())
                        .find(|s| rest.starts_with(s.as_bytes()));
                    if let Some(s) = sym {
                        self.i += s.len();
                        return self.tok(Kind::Word(s), (*s).to_string());
                    }
                    // Any other character is a one-character token the parser refuses.
                    self.i += 1;
                    let text = if c.is_ascii_control() {
                        format!("char({c})")
                    } else {
                        String::from_utf8_lossy(&[c]).into_owned()
                    };
                    return self.tok(Kind::Word("?"), text);
                }
            }
        }
    }
}

/// Whether a numeral converts as Lua 5.1's `luaO_str2d` (C `strtod`, or `strtoul` base 16
/// after `0x`). Hexadecimal forms beyond plain digits are let through (no verdict).
fn numeral_converts(text: &str) -> bool {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        if hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return !hex.is_empty();
        }
        return hex.bytes().any(|b| matches!(b, b'p' | b'P' | b'.'));
    }
    text.bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        && text.parse::<f64>().is_ok()
}

enum Stop {
    /// Lua 5.1's message, `user_script:LINE: ... near '...'`.
    Error(String),
    /// Too deep to follow: no verdict.
    Unsure,
}

type R<T = ()> = Result<T, Stop>;

/// What a suffixed expression turned out to be (for assignments and call statements).
#[derive(PartialEq)]
enum Exp {
    Call,
    Assignable,
    Other,
}

struct Parser<'a> {
    lex: Lexer<'a>,
    tok: Tok,
    /// The line of the previous token (Lua's `lastline`).
    last_line: usize,
    depth: usize,
    /// Per function being read: (is vararg, enclosing loops).
    funcs: Vec<(bool, usize)>,
}

impl Parser<'_> {
    fn next(&mut self) -> R {
        self.last_line = self.tok.line;
        self.tok = self.lex.next();
        self.check_bad()
    }

    fn check_bad(&self) -> R {
        if let Kind::Bad(msg, near) = &self.tok.kind {
            return Err(Stop::Error(format!(
                "user_script:{}: {msg} near '{near}'",
                self.tok.line
            )));
        }
        Ok(())
    }

    fn error(&self, msg: &str) -> Stop {
        Stop::Error(format!(
            "user_script:{}: {msg} near '{}'",
            self.tok.line, self.tok.text
        ))
    }

    fn is(&self, w: &str) -> bool {
        self.tok.kind == Kind::Word(leak(w))
    }

    fn test_next(&mut self, w: &str) -> R<bool> {
        if self.is(w) {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn check_next(&mut self, w: &str) -> R {
        if self.test_next(w)? {
            Ok(())
        } else {
            Err(self.error(&format!("'{w}' expected")))
        }
    }

    fn check_match(&mut self, what: &str, who: &str, line: usize) -> R {
        if self.test_next(what)? {
            return Ok(());
        }
        if line == self.tok.line {
            Err(self.error(&format!("'{what}' expected")))
        } else {
            Err(self.error(&format!("'{what}' expected (to close '{who}' at line {line})")))
        }
    }

    fn check_name(&mut self) -> R {
        if self.tok.kind == Kind::Name {
            self.next()
        } else {
            Err(self.error("'<name>' expected"))
        }
    }

    fn enter(&mut self) -> R {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Stop::Unsure);
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn block_follow(&self) -> bool {
        matches!(self.tok.kind, Kind::Eof) || ["else", "elseif", "end", "until"].iter().any(|w| self.is(w))
    }

    fn chunk(&mut self) -> R {
        self.enter()?;
        let mut last = false;
        while !last && !self.block_follow() {
            last = self.statement()?;
            self.test_next(";")?;
        }
        self.leave();
        Ok(())
    }

    fn loop_block(&mut self) -> R {
        if let Some(f) = self.funcs.last_mut() {
            f.1 += 1;
        }
        let r = self.chunk();
        if let Some(f) = self.funcs.last_mut() {
            f.1 = f.1.saturating_sub(1);
        }
        r
    }

    /// One statement; true if it must be the last of its block (`return`, `break`).
    fn statement(&mut self) -> R<bool> {
        let line = self.tok.line;
        let word = match self.tok.kind {
            Kind::Word(w) => w,
            _ => "",
        };
        match word {
            "if" => {
                self.test_then_block()?;
                while self.is("elseif") {
                    self.test_then_block()?;
                }
                if self.test_next("else")? {
                    self.chunk()?;
                }
                self.check_match("end", "if", line)?;
            }
            "while" => {
                self.next()?;
                self.expr()?;
                self.check_next("do")?;
                self.loop_block()?;
                self.check_match("end", "while", line)?;
            }
            "do" => {
                self.next()?;
                self.chunk()?;
                self.check_match("end", "do", line)?;
            }
            "for" => self.for_stat(line)?,
            "repeat" => {
                self.next()?;
                self.loop_block()?;
                self.check_match("until", "repeat", line)?;
                self.expr()?;
            }
            "function" => {
                self.next()?;
                self.check_name()?;
                while self.test_next(".")? {
                    self.check_name()?;
                }
                if self.test_next(":")? {
                    self.check_name()?;
                }
                self.body(line, false)?;
            }
            "local" => {
                self.next()?;
                if self.test_next("function")? {
                    self.check_name()?;
                    self.body(line, false)?;
                } else {
                    loop {
                        self.check_name()?;
                        if !self.test_next(",")? {
                            break;
                        }
                    }
                    if self.test_next("=")? {
                        self.expr_list()?;
                    }
                }
            }
            "return" => {
                self.next()?;
                if !self.block_follow() && !self.is(";") {
                    self.expr_list()?;
                }
                return Ok(true);
            }
            "break" => {
                self.next()?;
                if self.funcs.last().map_or(0, |f| f.1) == 0 {
                    return Err(self.error("no loop to break"));
                }
                return Ok(true);
            }
            _ => self.expr_stat()?,
        }
        Ok(false)
    }

    fn test_then_block(&mut self) -> R {
        self.next()?;
        self.expr()?;
        self.check_next("then")?;
        self.chunk()
    }

    fn for_stat(&mut self, line: usize) -> R {
        self.next()?;
        self.check_name()?;
        if self.test_next("=")? {
            self.expr()?;
            self.check_next(",")?;
            self.expr()?;
            if self.test_next(",")? {
                self.expr()?;
            }
        } else if self.is(",") || self.is("in") {
            while self.test_next(",")? {
                self.check_name()?;
            }
            self.check_next("in")?;
            self.expr_list()?;
        } else {
            return Err(self.error("'=' or 'in' expected"));
        }
        self.check_next("do")?;
        self.loop_block()?;
        self.check_match("end", "for", line)
    }

    /// A function's parameters and body; `line` is where `function` was.
    fn body(&mut self, line: usize, _method: bool) -> R {
        self.enter()?;
        self.check_next("(")?;
        let mut vararg = false;
        if !self.is(")") {
            loop {
                if self.tok.kind == Kind::Name {
                    self.next()?;
                } else if self.is("...") {
                    self.next()?;
                    vararg = true;
                } else {
                    return Err(self.error("<name> or '...' expected"));
                }
                if vararg || !self.test_next(",")? {
                    break;
                }
            }
        }
        self.check_next(")")?;
        self.funcs.push((vararg, 0));
        let r = self.chunk();
        self.funcs.pop();
        r?;
        self.check_match("end", "function", line)?;
        self.leave();
        Ok(())
    }

    fn expr_stat(&mut self) -> R {
        let kind = self.suffixed()?;
        if kind == Exp::Call {
            return Ok(());
        }
        let mut kind = kind;
        loop {
            if kind != Exp::Assignable {
                return Err(self.error("syntax error"));
            }
            if self.test_next(",")? {
                kind = self.suffixed()?;
                continue;
            }
            self.check_next("=")?;
            return self.expr_list();
        }
    }

    fn expr_list(&mut self) -> R {
        self.expr()?;
        while self.test_next(",")? {
            self.expr()?;
        }
        Ok(())
    }

    fn primary(&mut self) -> R<Exp> {
        match self.tok.kind {
            Kind::Name => {
                self.next()?;
                Ok(Exp::Assignable)
            }
            Kind::Word("(") => {
                let line = self.tok.line;
                self.enter()?;
                self.next()?;
                self.expr()?;
                self.check_match(")", "(", line)?;
                self.leave();
                Ok(Exp::Other)
            }
            _ => Err(self.error("unexpected symbol")),
        }
    }

    fn suffixed(&mut self) -> R<Exp> {
        let mut kind = self.primary()?;
        loop {
            match self.tok.kind {
                Kind::Word(".") => {
                    self.next()?;
                    self.check_name()?;
                    kind = Exp::Assignable;
                }
                Kind::Word("[") => {
                    self.enter()?;
                    self.next()?;
                    self.expr()?;
                    self.check_next("]")?;
                    self.leave();
                    kind = Exp::Assignable;
                }
                Kind::Word(":") => {
                    self.next()?;
                    self.check_name()?;
                    self.call_args()?;
                    kind = Exp::Call;
                }
                Kind::Word("(") | Kind::Word(LBRACE) | Kind::Str => {
                    self.call_args()?;
                    kind = Exp::Call;
                }
                _ => return Ok(kind),
            }
        }
    }

    fn call_args(&mut self) -> R {
        let line = self.tok.line;
        match self.tok.kind {
            Kind::Str => self.next(),
            Kind::Word(LBRACE) => self.constructor(),
            Kind::Word("(") => {
                if line != self.last_line {
                    return Err(self.error("ambiguous syntax (function call x new statement)"));
                }
                self.enter()?;
                self.next()?;
                if !self.is(")") {
                    self.expr_list()?;
                }
                self.check_match(")", "(", line)?;
                self.leave();
                Ok(())
            }
            _ => Err(self.error("function arguments expected")),
        }
    }

    fn constructor(&mut self) -> R {
        let line = self.tok.line;
        self.enter()?;
        self.check_next(LBRACE)?;
        loop {
            if self.is(RBRACE) {
                break;
            }
            if self.tok.kind == Kind::Name && self.peek_is_assign() {
                self.next()?;
                self.check_next("=")?;
                self.expr()?;
            } else if self.is("[") {
                self.next()?;
                self.expr()?;
                self.check_next("]")?;
                self.check_next("=")?;
                self.expr()?;
            } else {
                self.expr()?;
            }
            if !(self.test_next(",")? || self.test_next(";")?) {
                break;
            }
        }
        self.check_match(RBRACE, LBRACE, line)?;
        self.leave();
        Ok(())
    }

    /// Whether the token after the current one is `=` (Lua's one-token lookahead).
    fn peek_is_assign(&self) -> bool {
        let mut probe = Lexer {
            src: self.lex.src,
            i: self.lex.i,
            line: self.lex.line,
        };
        probe.next().kind == Kind::Word("=")
    }

    fn simple(&mut self) -> R {
        match self.tok.kind {
            Kind::Num | Kind::Str | Kind::Word("nil" | "true" | "false") => self.next(),
            Kind::Word("...") => {
                if !self.funcs.last().is_some_and(|f| f.0) {
                    return Err(self.error("cannot use '...' outside a vararg function"));
                }
                self.next()
            }
            Kind::Word(LBRACE) => self.constructor(),
            Kind::Word("function") => {
                let line = self.tok.line;
                self.next()?;
                self.body(line, false)
            }
            _ => self.suffixed().map(|_| ()),
        }
    }

    fn expr(&mut self) -> R {
        loop {
            while matches!(self.tok.kind, Kind::Word("not" | "-" | "#")) {
                self.next()?;
            }
            self.simple()?;
            let binop = matches!(
                self.tok.kind,
                Kind::Word(
                    "+" | "-"
                        | "*"
                        | "/"
                        | "%"
                        | "^"
                        | ".."
                        | "=="
                        | "~="
                        | "<"
                        | "<="
                        | ">"
                        | ">="
                        | "and"
                        | "or"
                )
            );
            if !binop {
                return Ok(());
            }
            self.next()?;
        }
    }
}

/// The `&'static str` of a keyword or symbol (tokens carry them so kinds compare cheaply).
fn leak(w: &str) -> &'static str {
    KEYWORDS
        .iter()
        .chain(SYMBOLS3.iter())
        .chain(SYMBOLS2.iter())
        .chain(SYMBOLS1.iter())
        .find(|k| **k == w)
        .copied()
        .unwrap_or("")
}

/// Lua 5.1's compile error for `src` (`user_script:LINE: ... near '...'`), or None when
/// Lua 5.1 accepts it (or it nests too deep to tell).
pub(crate) fn lua51_syntax_error(src: &[u8]) -> Option<String> {
    let mut lex = Lexer { src, i: 0, line: 1 };
    let tok = lex.next();
    let mut p = Parser {
        lex,
        tok,
        last_line: 1,
        depth: 0,
        // The main chunk is a vararg function outside any loop.
        funcs: vec![(true, 0)],
    };
    let outcome = p.check_bad().and_then(|()| p.chunk()).and_then(|()| {
        if p.tok.kind == Kind::Eof {
            Ok(())
        } else {
            Err(p.error("'<eof>' expected"))
        }
    });
    match outcome {
        Err(Stop::Error(msg)) => Some(msg),
        Ok(()) | Err(Stop::Unsure) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::lua51_syntax_error as check;

    #[test]
    fn learners_mistakes_read_as_lua_5_1_says_them() {
        for (src, msg) in [
            (
                "if KEYS[1] then return 1",
                "user_script:1: 'end' expected near '<eof>'",
            ),
            (
                "local function f()\nreturn 1\n",
                "user_script:3: 'end' expected (to close 'function' at line 1) near '<eof>'",
            ),
            (
                "if KEYS[1] return 1 end",
                "user_script:1: 'then' expected near 'return'",
            ),
            ("return + 1", "user_script:1: unexpected symbol near '+'"),
            ("local x = 'abc", "user_script:1: unfinished string near '<eof>'"),
            (
                "return 'abc\nreturn 1",
                "user_script:1: unfinished string near ''abc'",
            ),
            ("x + 1", "user_script:1: '=' expected near '+'"),
            ("local x = 1.2.3", "user_script:1: malformed number near '1.2.3'"),
            ("return 1 2", "user_script:1: '<eof>' expected near '2'"),
            ("break", "user_script:1: no loop to break near '<eof>'"),
            ("goto done", "user_script:1: '=' expected near 'done'"),
            (
                "return \"a\" \"b\"",
                "user_script:1: '<eof>' expected near '\"b\"'",
            ),
            ("local = 1", "user_script:1: '<name>' expected near '='"),
            ("(x) = 1", "user_script:1: syntax error near '='"),
        ] {
            assert_eq!(check(src.as_bytes()).as_deref(), Some(msg), "{src}");
        }
    }

    #[test]
    fn valid_lua_5_1_is_let_through() {
        for src in [
            "return 1",
            "local t = {1, 2, a = 3, ['b'] = 4; 5} return t",
            "for i = 1, 10, 2 do if i > 3 then break end end",
            "for k, v in pairs({}) do end return ...",
            "local function f(a, ...) return select('#', ...) end return f(1, 2)",
            "while true do break end repeat local x = 1 until x",
            "local s = ('x'):rep(3) .. [[long]] .. [==[ ]] ]==] return #s",
            "return 0x1F + 1e3 + .5 + 3. -- comment\n",
            "--[[ long\ncomment ]] return redis.call('get', KEYS[1])",
            "return f{1} or f'x' or not nil",
        ] {
            assert_eq!(check(src.as_bytes()), None, "{src}");
        }
    }

    #[test]
    fn any_bytes_get_a_positioned_verdict_or_none() {
        let script =
            b"local t = {a = [[x]], 'b\\n'} for i = 1, #t do t[i] = t[i] .. 0x1F end --[=[ c ]=] return t";
        let mut seed: u32 = 7;
        let mut inputs: Vec<Vec<u8>> = (0..=script.len()).map(|n| script[..n].to_vec()).collect();
        for _ in 0..2000 {
            let bytes = (0..40)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    script[(seed >> 16) as usize % script.len()]
                })
                .collect();
            inputs.push(bytes);
        }
        for input in inputs {
            if let Some(msg) = check(&input) {
                assert!(
                    msg.starts_with("user_script:") && msg.contains(" near '"),
                    "{msg}"
                );
            }
        }
    }

    #[test]
    fn deep_nesting_gives_no_verdict_and_does_not_overflow() {
        let src = format!("return {}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert_eq!(check(src.as_bytes()), None);
        let src = "do ".repeat(100_000);
        assert_eq!(check(src.as_bytes()), None);
    }
}

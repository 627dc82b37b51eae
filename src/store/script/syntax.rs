//! Redis runs Lua 5.1; piccolo compiles Lua 5.3/5.4. Before a script reaches piccolo's
//! compiler, the operators 5.1 does not have (`~` alone, `&`, `|`, `<<`, `>>`, `//`) are
//! refused as Lua 5.1 refuses them: "unexpected symbol". So a script that a real Redis
//! rejects is rejected here too, instead of running with bitwise operators, and piccolo's
//! constant folding of those operators (which panics on some string constants, e.g.
//! `~''`, found by the `eval_scripts` fuzzer) is never reached.

/// The first operator Lua 5.1 lacks, outside strings and comments, as a compile error
/// text (`user_script:LINE: unexpected symbol near 'OP'`).
pub(crate) fn check_lua51_operators(src: &[u8]) -> Result<(), String> {
    let mut i = 0;
    let mut line = 1usize;
    let at = |i: usize| src.get(i).copied().unwrap_or(0);
    while i < src.len() {
        let c = at(i);
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'-' if at(i + 1) == b'-' => {
                i += 2;
                if let Some(level) = long_bracket(src, i) {
                    i = skip_long(src, i, level, &mut line);
                } else {
                    while i < src.len() && at(i) != b'\n' {
                        i += 1;
                    }
                }
            }
            b'[' if long_bracket(src, i).is_some() => {
                let level = long_bracket(src, i).unwrap_or(0);
                i = skip_long(src, i, level, &mut line);
            }
            b'\'' | b'"' => {
                i += 1;
                while i < src.len() {
                    match at(i) {
                        b'\\' => {
                            if at(i + 1) == b'\n' {
                                line += 1;
                            }
                            i += 2;
                        }
                        b'\n' => break, // unfinished string: the compiler says so
                        q if q == c => {
                            i += 1;
                            break;
                        }
                        _ => i += 1,
                    }
                }
            }
            b'~' if at(i + 1) == b'=' => i += 2,
            b'~' | b'&' | b'|' => return Err(near(line, &[c])),
            b'<' | b'>' | b'/' if at(i + 1) == c => return Err(near(line, &[c])),
            _ => i += 1,
        }
    }
    Ok(())
}

fn near(line: usize, tok: &[u8]) -> String {
    format!(
        "user_script:{line}: unexpected symbol near '{}'",
        String::from_utf8_lossy(tok)
    )
}

/// If a long bracket (`[[`, `[=[`, `[==[`, …) opens at `i`, its level (the number of `=`).
fn long_bracket(src: &[u8], i: usize) -> Option<usize> {
    if src.get(i) != Some(&b'[') {
        return None;
    }
    let level = src.iter().skip(i + 1).take_while(|&&b| b == b'=').count();
    (src.get(i + 1 + level) == Some(&b'[')).then_some(level)
}

/// The position after the long bracket of `level` opened at `i` closes (or the end).
fn skip_long(src: &[u8], i: usize, level: usize, line: &mut usize) -> usize {
    let mut j = i + level + 2;
    while j < src.len() {
        match src.get(j) {
            Some(b'\n') => *line += 1,
            Some(b']') => {
                let eq = src.iter().skip(j + 1).take_while(|&&b| b == b'=').count();
                if eq == level && src.get(j + 1 + eq) == Some(&b']') {
                    return j + eq + 2;
                }
            }
            _ => {}
        }
        j += 1;
    }
    src.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lua_5_3_operators_are_refused_with_their_line() {
        for (src, op) in [
            ("return ~''", "~"),
            ("return 1 & 2", "&"),
            ("return 1 | 2", "|"),
            ("return 1 << 2", "<"),
            ("return 1 >> 2", ">"),
            ("return 7 // 2", "/"),
            ("local x = 1 ~ 2 return x", "~"),
        ] {
            assert_eq!(
                check_lua51_operators(src.as_bytes()),
                Err(format!("user_script:1: unexpected symbol near '{op}'")),
                "{src}"
            );
        }
        assert_eq!(
            check_lua51_operators(b"local a = 1\n-- fine\nreturn a & 1"),
            Err("user_script:3: unexpected symbol near '&'".into())
        );
    }

    #[test]
    fn lua_5_1_code_strings_and_comments_pass() {
        for src in [
            "return 1 ~= 2",
            "return 'a ~ b & c | d << e // f'",
            "return \"esc \\\" ~ \"",
            "-- a ~ comment\nreturn 1",
            "--[[ a & long\n comment | ]] return 1",
            "--[==[ ]] still ~ comment ]==] return 1",
            "return [[ long ~ string ]]",
            "return [=[ ]] ~ ]=]",
            "return 1 / 2 < 3 and 4 > 5 or 6 <= 7 or 8 >= 9",
            "local t = {} t[1] = 2 return t[1]",
            "return 'unfinished",
        ] {
            assert_eq!(check_lua51_operators(src.as_bytes()), Ok(()), "{src}");
        }
    }
}

//! Store behaviour as transcripts in the redis-cli format: `> command` lines, each followed
//! by the reply exactly as `redis-cli --no-raw` prints it. `@N> command` runs on connection N.
//! The clock starts at 2023-11-14T22:13:20Z and moves only with DEBUG SLEEP.

use lockstep::store::{parse_line, render, Effect, KeyInfo, Reply, ScriptLimits, Store};

const START_MS: u64 = 1_700_000_000_000;

fn new_store() -> Store {
    let mut store = Store::new(7);
    store.set_now_ms(START_MS);
    store
}

/// Runs the `>` lines of `transcript` and asserts the whole transcript matches.
fn check_on(store: &mut Store, transcript: &str) {
    let mut actual = String::new();
    for line in transcript.lines() {
        let line = line.trim_start();
        let Some((conn, command)) = prompt(line) else {
            continue;
        };
        actual.push_str(line);
        actual.push('\n');
        let reply = match parse_line(command) {
            Ok(argv) => render(&store.execute_conn(conn, &argv)),
            Err(e) => e.to_string(),
        };
        actual.push_str(&reply);
        actual.push('\n');
    }
    let expected: String = transcript
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    // Replies may start with blanks (nested arrays); compare trimmed the same way.
    let actual: String = actual.lines().map(|l| format!("{}\n", l.trim_start())).collect();
    assert_eq!(actual, expected);
}

fn check(transcript: &str) {
    check_on(&mut new_store(), transcript);
}

fn prompt(line: &str) -> Option<(u64, &str)> {
    if let Some(rest) = line.strip_prefix("> ") {
        return Some((0, rest));
    }
    let rest = line.strip_prefix('@')?;
    let (conn, command) = rest.split_once("> ")?;
    Some((conn.parse().ok()?, command))
}

fn run(store: &mut Store, line: &str) -> Reply {
    store.execute(&parse_line(line).expect("valid command line"))
}

#[test]
fn strings_and_set_options() {
    check(
        r#"
        > SET k v1
        OK
        > SET k v2 NX
        (nil)
        > SET k v3 XX GET
        "v1"
        > SET k v KEEPTTL PX 10
        (error) ERR syntax error
        > SET k v PX 10 EX 10
        (error) ERR syntax error
        > SET k v EX 10 EX 20
        OK
        > TTL k
        (integer) 20
        > SET k v EXAT 1700000100
        OK
        > TTL k
        (integer) 100
        > SET k v2 KEEPTTL
        OK
        > PTTL k
        (integer) 100000
        > SET k v PXAT 1699999999999
        OK
        > GET k
        (nil)
        > SET k v PX -5
        (error) ERR invalid expire time in 'set' command
        > SET k v PX 9223372036854775807
        (error) ERR invalid expire time in 'set' command
        > SET k v PX 1x
        (error) ERR value is not an integer or out of range
        > SETNX n 1
        (integer) 1
        > SETNX n 2
        (integer) 0
        > GETDEL n
        "1"
        > GETDEL n
        (nil)
        > APPEND a hello
        (integer) 5
        > APPEND a " world"
        (integer) 11
        > STRLEN a
        (integer) 11
        > STRLEN nothing
        (integer) 0
        > TYPE a
        string
        > DEL a a nothing
        (integer) 1
        > EXISTS k n a
        (integer) 0
        "#,
    );
}

#[test]
fn expire_options() {
    check(
        r#"
        > SET k v
        OK
        > EXPIRE k 100 XX
        (integer) 0
        > EXPIRE k 100 NX
        (integer) 1
        > EXPIRE k 50 NX
        (integer) 0
        > EXPIRE k 50 GT
        (integer) 0
        > EXPIRE k 200 GT
        (integer) 1
        > EXPIRE k 300 LT
        (integer) 0
        > PEXPIRE k 1500 LT
        (integer) 1
        > PTTL k
        (integer) 1500
        > PERSIST k
        (integer) 1
        > PERSIST k
        (integer) 0
        > TTL k
        (integer) -1
        > EXPIRE k 10 GT
        (integer) 0
        > EXPIRE k 10 LT
        (integer) 1
        > EXPIRE k 10 NX XX
        (error) ERR NX and XX, GT or LT options at the same time are not compatible
        > EXPIRE k 10 GT LT
        (error) ERR GT and LT options at the same time are not compatible
        > EXPIRE k 10 FOO
        (error) ERR Unsupported option FOO
        > EXPIRE k 9223372036854775807
        (error) ERR invalid expire time in 'expire' command
        > EXPIRE missing 10
        (integer) 0
        > TTL missing
        (integer) -2
        > PEXPIREAT k 1700000000500
        (integer) 1
        > PTTL k
        (integer) 500
        > EXPIRE k 0
        (integer) 1
        > EXISTS k
        (integer) 0
        "#,
    );
}

#[test]
fn expiry_is_lazy_and_exact_at_the_boundary() {
    check(
        r#"
        > SET lock tok PX 100
        OK
        > DEBUG SLEEP 0.1
        OK
        > PTTL lock
        (integer) 0
        > GET lock
        "tok"
        > DEBUG SLEEP 0.001
        OK
        > GET lock
        (nil)
        > SET s v EX 1
        OK
        > DEBUG SLEEP 0.4
        OK
        > TTL s
        (integer) 1
        > DEBUG SLEEP 0.2
        OK
        > TTL s
        (integer) 0
        > DEBUG SLEEP abc
        OK
        > DEBUG SLEEP
        (error) ERR unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG HELP.
        "#,
    );
}

#[test]
fn incr_family() {
    check(
        r#"
        > INCR c
        (integer) 1
        > INCRBY c 10
        (integer) 11
        > DECR c
        (integer) 10
        > DECRBY c -5
        (integer) 15
        > SET c 9223372036854775807
        OK
        > INCR c
        (error) ERR increment or decrement would overflow
        > DECRBY c -9223372036854775808
        (error) ERR decrement would overflow
        > SET c " 1"
        OK
        > INCR c
        (error) ERR value is not an integer or out of range
        > SET c 01
        OK
        > INCR c
        (error) ERR value is not an integer or out of range
        > INCRBY c 1.5
        (error) ERR value is not an integer or out of range
        > SET t 5 PX 1000
        OK
        > INCR t
        (integer) 6
        > PTTL t
        (integer) 1000
        "#,
    );
}

#[test]
fn keys_globs_and_dbsize() {
    check(
        r#"
        > SET lock:a 1
        OK
        > SET lock:b 1
        OK
        > SET lock:ab 1 PX 10
        OK
        > SET other 1
        OK
        > KEYS lock:?
        1) "lock:a"
        2) "lock:b"
        > KEYS *b
        1) "lock:ab"
        2) "lock:b"
        > KEYS lock:[^a]
        1) "lock:b"
        > DEBUG SLEEP 0.02
        OK
        > KEYS *
        1) "lock:a"
        2) "lock:b"
        3) "other"
        > DBSIZE
        (integer) 3
        > FLUSHALL
        OK
        > KEYS *
        (empty array)
        "#,
    );
}

#[test]
fn wrong_arity_and_unknown_commands() {
    check(
        r#"
        > GET
        (error) ERR wrong number of arguments for 'get' command
        > set k
        (error) ERR wrong number of arguments for 'set' command
        > NOPE a "b c"
        (error) ERR unknown command 'NOPE', with args beginning with: 'a' 'b c' 
        > PING a b
        (error) ERR wrong number of arguments for 'ping' command
        > PING
        PONG
        > ECHO "a\x00b"
        "a\x00b"
        > EVAL "return 1"
        (error) ERR wrong number of arguments for 'eval' command
        > SCRIPT
        (error) ERR wrong number of arguments for 'script' command
        > SCRIPT FOO
        (error) ERR unknown subcommand 'FOO'. Try SCRIPT HELP.
        > SCRIPT LOAD
        (error) ERR wrong number of arguments for 'script|load' command
        > FLUSHALL NOW
        (error) ERR syntax error
        > ECHO "unterminated
        Invalid argument(s)
        "#,
    );
}

#[test]
fn multi_exec_discard_watch() {
    check(
        r#"
        > MULTI
        OK
        > SET a 1
        QUEUED
        > INCR a
        QUEUED
        > SET a 1 BADOPT
        QUEUED
        > EXEC
        1) OK
        2) (integer) 2
        3) (error) ERR syntax error
        > EXEC
        (error) ERR EXEC without MULTI
        > DISCARD
        (error) ERR DISCARD without MULTI
        > MULTI
        OK
        > MULTI
        (error) ERR MULTI calls can not be nested
        > GET
        (error) ERR wrong number of arguments for 'get' command
        > EXEC
        (error) EXECABORT Transaction discarded because of previous errors.
        > WATCH a
        OK
        @1> SET a changed
        OK
        > MULTI
        OK
        > WATCH b
        (error) ERR WATCH inside MULTI is not allowed
        > SET a mine
        QUEUED
        > EXEC
        (nil)
        > GET a
        "changed"
        > WATCH a
        OK
        > MULTI
        OK
        > SET a mine
        QUEUED
        > EXEC
        1) OK
        > WATCH a
        OK
        > UNWATCH
        OK
        @1> SET a theirs
        OK
        > MULTI
        OK
        > GET a
        QUEUED
        > DISCARD
        OK
        > SET lease x PX 100
        OK
        > WATCH lease
        OK
        > DEBUG SLEEP 0.2
        OK
        > MULTI
        OK
        > SET lease y
        QUEUED
        > EXEC
        (nil)
        "#,
    );
}

#[test]
fn lua_conversions_and_errors() {
    check(
        r#"
        > EVAL "return {1, 'two', 3.9, true, false, nil, 'gone'}" 0
        1) (integer) 1
        2) "two"
        3) (integer) 3
        4) (integer) 1
        5) (nil)
        > EVAL "return {ok='fine'}" 0
        fine
        > EVAL "return {err='MY error'}" 0
        (error) MY error
        > EVAL "return redis.error_reply('plain')" 0
        (error) ERR plain
        > EVAL "return redis.status_reply('DONE')" 0
        DONE
        > EVAL "return {double=3.14}" 0
        "3.1400000000000001"
        > SET s notnum
        OK
        > EVAL "return redis.call('incr', KEYS[1])" 1 s
        (error) ERR value is not an integer or out of range script: 2bab3b661081db58bd2341920e0ba7cf5dc77b25, on @user_script:1.
        > EVAL "local x = 1\nreturn redis.call('incr', KEYS[1])" 1 s
        (error) ERR value is not an integer or out of range script: 24a2d0796f4a8d300d434e84bba0ba6ec56762b2, on @user_script:2.
        > EVAL "return redis.pcall('incr', KEYS[1])" 1 s
        (error) ERR value is not an integer or out of range
        > EVAL "local ok, e = pcall(redis.call, 'incr', KEYS[1]); return {ok and 1 or 0, e}" 1 s
        1) (integer) 0
        2) "ERR value is not an integer or out of range"
        > EVAL "error('boom')" 0
        (error) ERR user_script:1: boom script: 82903a0434f1503e152f89c03c9acd881a0e8150, on @user_script:1.
        > EVAL "a = 5" 0
        (error) ERR user_script:1: Attempt to modify a readonly table script: 18caf8c012aa13c49942060b9653c687e0dcabec, on @user_script:1.
        > EVAL "return a" 0
        (error) ERR user_script:1: Script attempted to access nonexistent global variable 'a' script: bbfcd1ececc90deec823f7fb730e4bfb2a4ba625, on @user_script:1.
        > EVAL "string.format = nil" 0
        (error) ERR user_script:1: Attempt to modify a readonly table script: 305bdbd065a4b38c3730a3a94ef0d564ad94ba91, on @user_script:1.
        > EVAL "return redis.call('nosuch')" 0
        (error) ERR Unknown Redis command called from script script: 206396248e12c6e742fd7296250433c8d7343b74, on @user_script:1.
        > EVAL "return redis.call('multi')" 0
        (error) ERR This Redis command is not allowed from script script: c329a1a294be6bf95b44144f7502610661ae925a, on @user_script:1.
        > EVAL "return redis.call('get', {})" 0
        (error) ERR Lua redis lib command arguments must be strings or integers script: 4368e88f98d93af9caf358186e5fbf273374ee91, on @user_script:1.
        > EVAL "return tostring(7/2*2) .. ' ' .. tostring(0.1) .. ' ' .. tostring(1e15)" 0
        "7 0.1 1e+15"
        > EVAL "return string.format('%5s|%-5s|%05d|%.3f|%g|%x|%q', 'ab', 'cd', 42, 3.14159, 0.0001, 255, 'q\"')" 0
        "   ab|cd   |00042|3.142|0.0001|ff|\"q\\\"\""
        > EVAL "local t = {} table.insert(t, 'b') table.insert(t, 1, 'a') return table.concat(t, ',') .. #t" 0
        "a,b2"
        > EVAL "return {unpack({1, 2, 3}, 2)}" 0
        1) (integer) 2
        2) (integer) 3
        > EVAL "return {tonumber('0x10'), tonumber(' 12 '), tonumber('1e2'), tonumber('z', 36), tonumber('x')}" 0
        1) (integer) 16
        2) (integer) 12
        3) (integer) 100
        4) (integer) 35
        > EVAL "return redis.sha1hex('')" 0
        "da39a3ee5e6b4b0d3255bfef95601890afd80709"
        > EVALSHA ffffffffffffffffffffffffffffffffffffffff 0
        (error) NOSCRIPT No matching script. Please use EVAL.
        > EVAL "return 1 +" 0
        (error) ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'
        "#,
    );
}

#[test]
fn script_cache_load_exists_flush() {
    check(
        r#"
        > SCRIPT LOAD "return ARGV[1]"
        "098e0f0d1448c0a81dafe820f66d460eb09263da"
        > SCRIPT EXISTS 098e0f0d1448c0a81dafe820f66d460eb09263da 098E0F0D1448C0A81DAFE820F66D460EB09263DA abc
        1) (integer) 1
        2) (integer) 1
        3) (integer) 0
        > EVALSHA 098e0f0d1448c0a81dafe820f66d460eb09263da 0 hi
        "hi"
        > SCRIPT FLUSH
        OK
        > EVALSHA 098e0f0d1448c0a81dafe820f66d460eb09263da 0 hi
        (error) NOSCRIPT No matching script. Please use EVAL.
        "#,
    );
}

#[test]
fn runaway_script_is_stopped_and_the_store_keeps_serving() {
    let mut store = new_store();
    let reply = run(&mut store, r#"EVAL "while true do end" 0"#);
    let Reply::Error(text) = &reply else {
        panic!("expected an error reply, got {reply:?}");
    };
    assert!(text.starts_with("ERR Script killed: it ran more than"), "{text}");
    assert_eq!(run(&mut store, "SET k v"), Reply::ok());
    assert_eq!(
        run(&mut store, r#"EVAL "return redis.call('get', 'k')" 0"#),
        Reply::bulk("v")
    );
    // A runaway loop that keeps calling Redis is stopped too.
    let reply = run(
        &mut store,
        r#"EVAL "while true do redis.call('incr', 'n') end" 0"#,
    );
    assert!(
        matches!(&reply, Reply::Error(t) if t.contains("Script killed")),
        "{reply:?}"
    );
}

#[test]
fn lua_5_3_operators_are_compile_errors_and_never_reach_the_compiler() {
    // Found by the eval_scripts fuzzer: piccolo's constant folding of `~''` indexed
    // past the end of an empty string (a panic, so a crashed tab in the browser).
    let mut store = new_store();
    let fuzz_input = "x = 1\nsetmetatable(G, nil)\nrawset(_GA 'y', 2)\nreturn math.max(1, type2) + (string.len(coroutine and 'c' or~'') or 2)\n";
    let reply = run(&mut store, &format!("EVAL \"{fuzz_input}\" 0"));
    assert_eq!(
        reply,
        Reply::Error(
            "ERR Error compiling script (new function): user_script:4: unexpected symbol near '~'".into()
        )
    );
    for script in [
        "return ~''",
        "return '' & 1",
        "return 1 | ''",
        "return '' << 1",
        "return 7 // ''",
    ] {
        let reply = run(&mut store, &format!("EVAL \"{script}\" 0"));
        assert!(
            matches!(&reply, Reply::Error(t) if t.starts_with("ERR Error compiling script")),
            "{script}: {reply:?}"
        );
    }
    assert_eq!(run(&mut store, "PING"), Reply::Status("PONG".into()));
}

#[test]
fn a_runaway_pattern_is_stopped_even_inside_pcall() {
    let mut store = new_store();
    // A small budget keeps this test quick; the default one works the same way.
    store.set_script_limits(ScriptLimits {
        fuel: 200_000,
        ..ScriptLimits::default()
    });
    // Exponential backtracking: each call alone would take far longer than the budget.
    let slow = "string.find(string.rep('a', 40), string.rep('a-', 40) .. 'b')";
    let reply = run(&mut store, &format!("EVAL \"return {slow}\" 0"));
    let Reply::Error(text) = &reply else {
        panic!("expected an error reply, got {reply:?}");
    };
    assert!(
        text.starts_with("ERR Script killed: it ran more than 200000"),
        "{text}"
    );
    // Catching the error does not buy more time: the script is killed.
    let reply = run(
        &mut store,
        &format!("EVAL \"while true do pcall(function() return {slow} end) end\" 0"),
    );
    assert!(
        matches!(&reply, Reply::Error(t) if t.contains("Script killed")),
        "{reply:?}"
    );
    // Patterns that finish are not charged more than they cost.
    let reply = run(
        &mut store,
        r#"EVAL "local n = 0 for i = 1, 1000 do n = n + select(2, string.gsub('a,b,c,d', ',', ';')) end return n" 0"#,
    );
    assert_eq!(reply, Reply::Int(3000));
    // The error a caught runaway gives, in a script that stops looping after it.
    let reply = run(
        &mut store,
        &format!("EVAL \"return {{pcall(function() return {slow} end)}}\" 0"),
    );
    assert!(reply.is_error(), "killed after its one try: {reply:?}");
    assert_eq!(run(&mut store, "PING"), Reply::Status("PONG".into()));
}

#[test]
fn deep_recursion_and_huge_allocations_end_in_error_replies() {
    let mut store = new_store();
    for script in [
        "local function f(n) return f(n + 1) + 1 end return f(1)",
        "local function f() return {f()} end return f()",
        "return string.rep('x', 1e12)",
        "local t = {} for i = 1, 1e9 do t[i] = i end return #t",
        "local s = string.rep('x', 1e6) local t = {} for i = 1, 1e4 do t[i] = s .. i end return #t",
        "return table.concat({string.rep('x', 1e7)}, '', 1, 1e7)",
        "return unpack({}, 1, 1e9)",
        "local t = {} t[1] = t return t",
        "return string.format('%99999d', 1)",
        // Found by the eval_scripts fuzzer: a width of forty digits overflowed usize.
        "return string.format('%5777777777777777777777777777777777777777d', 1)",
    ] {
        let reply = run(&mut store, &format!("EVAL \"{script}\" 0"));
        assert!(reply.is_error(), "{script} gave {reply:?}");
    }
    assert_eq!(run(&mut store, "PING"), Reply::Status("PONG".into()));
}

#[test]
fn smaller_limits_apply() {
    let mut store = new_store();
    store.set_script_limits(ScriptLimits {
        fuel: 1_000,
        ..ScriptLimits::default()
    });
    let reply = run(
        &mut store,
        r#"EVAL "local n = 0 for i = 1, 100000 do n = n + i end return n" 0"#,
    );
    assert!(reply.is_error(), "{reply:?}");
    assert_eq!(run(&mut store, r#"EVAL "return 1 + 1" 0"#), Reply::Int(2));
}

#[test]
fn garbage_never_panics() {
    let mut store = new_store();
    let words: &[&[u8]] = &[
        b"SET",
        b"GET",
        b"EVAL",
        b"EXPIRE",
        b"PEXPIRE",
        b"MULTI",
        b"EXEC",
        b"WATCH",
        b"DEBUG",
        b"SLEEP",
        b"SCRIPT",
        b"LOAD",
        b"KEYS",
        b"[",
        b"*",
        b"\\",
        b"-1",
        b"0",
        b"9223372036854775807",
        b"-9223372036854775808",
        b"NX",
        b"XX",
        b"GT",
        b"PX",
        b"EXAT",
        b"KEEPTTL",
        b"\xff\xfe",
        b"",
        b"return redis.call(",
        b"return {",
        b"1e309",
        b"nan",
    ];
    // A deterministic walk over short combinations.
    let mut state: u64 = 1;
    for _ in 0..20_000 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let len = (state >> 60) as usize % 6 + 1;
        let mut argv = Vec::new();
        let mut s = state;
        for _ in 0..len {
            argv.push(words[(s % words.len() as u64) as usize].to_vec());
            s /= words.len() as u64;
        }
        let _ = store.execute_conn(state % 3, &argv);
        let _ = render(&store.execute(&[]));
    }
    assert_eq!(run(&mut store, "ECHO ok"), Reply::bulk("ok"));
}

#[test]
fn effects_carry_absolute_expiry_and_replicas_converge() {
    let mut primary = new_store();
    run(&mut primary, "SET lock tok NX PX 1000");
    run(
        &mut primary,
        r#"EVAL "redis.call('incr', 'fence') return redis.call('pexpire', 'lock', 5000)" 0"#,
    );
    run(&mut primary, "DEL nothing");
    let effects = primary.take_effects();
    assert_eq!(
        effects,
        vec![
            Effect::Set {
                key: b"lock".to_vec(),
                value: b"tok".to_vec(),
                expire_at_ms: Some(START_MS + 1000)
            },
            Effect::Set {
                key: b"fence".to_vec(),
                value: b"1".to_vec(),
                expire_at_ms: None
            },
            Effect::Set {
                key: b"lock".to_vec(),
                value: b"tok".to_vec(),
                expire_at_ms: Some(START_MS + 5000)
            },
        ]
    );
    assert!(primary.take_effects().is_empty());
    let mut replica = Store::new(1);
    replica.set_now_ms(START_MS);
    for effect in &effects {
        replica.apply_effect(effect);
    }
    assert_eq!(replica.live_keys(), primary.live_keys());
    assert_eq!(
        primary.live_keys(),
        vec![
            KeyInfo {
                key: b"fence".to_vec(),
                value: b"1".to_vec(),
                expire_at_ms: None
            },
            KeyInfo {
                key: b"lock".to_vec(),
                value: b"tok".to_vec(),
                expire_at_ms: Some(START_MS + 5000)
            },
        ]
    );
    // A lazily discovered expiry is a DEL.
    primary.set_now_ms(START_MS + 5001);
    assert_eq!(run(&mut primary, "GET lock"), Reply::Nil);
    assert_eq!(
        primary.take_effects(),
        vec![Effect::Del {
            key: b"lock".to_vec()
        }]
    );
    run(&mut primary, "FLUSHALL");
    assert_eq!(primary.take_effects(), vec![Effect::FlushAll]);
}

#[test]
fn clones_are_independent_and_keep_scripts() {
    let mut a = new_store();
    run(&mut a, "SET k 1");
    let sha = match run(&mut a, r#"SCRIPT LOAD "return redis.call('incr', KEYS[1])""#) {
        Reply::Bulk(b) => String::from_utf8(b).expect("hex"),
        other => panic!("{other:?}"),
    };
    let mut b = a.clone();
    assert_eq!(run(&mut b, &format!("EVALSHA {sha} 1 k")), Reply::Int(2));
    assert_eq!(run(&mut a, "GET k"), Reply::bulk("1"));
    assert_eq!(b.now_ms(), a.now_ms());
    // Same seed and history: the same random numbers.
    let mut c = a.clone();
    let r1 = run(&mut a, r#"EVAL "return math.random(1000000)" 0"#);
    let r2 = run(&mut c, r#"EVAL "return math.random(1000000)" 0"#);
    assert_eq!(r1, r2);
}

#[test]
fn seeds_drive_math_random() {
    let draw = |seed| {
        let mut s = Store::new(seed);
        run(
            &mut s,
            r#"EVAL "return {math.random(1000000), math.random(1000000), math.random(1000000)}" 0"#,
        )
    };
    assert_eq!(draw(1), draw(1));
    assert_ne!(draw(1), draw(2));
}

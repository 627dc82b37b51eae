//! The native REPL: command lines in, replies out, exactly as `redis-cli --no-raw` prints
//! them. The caller supplies the start time (this module never reads the clock).

use std::io::{self, BufRead, Write};

use super::{parse_line_bytes, render, Store};

/// How the REPL talks to its user.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplConfig {
    /// Show a prompt before each line (stdin is a terminal).
    pub interactive: bool,
    /// The store's clock at start, unix-epoch ms.
    pub start_ms: u64,
    /// Seed for `math.random` in scripts.
    pub seed: u64,
}

pub const PROMPT: &str = "lockstep> ";

/// Reads command lines until end of input. Blank lines print nothing; a line redis-cli
/// cannot split prints `Invalid argument(s)`; `N command` repeats a command N times and
/// `quit` / `exit` stop, as in redis-cli.
pub fn run(input: impl BufRead, mut output: impl Write, config: ReplConfig) -> io::Result<()> {
    let mut store = Store::new(config.seed);
    store.set_now_ms(config.start_ms);
    let mut lines = input.split(b'\n');
    loop {
        if config.interactive {
            write!(output, "{PROMPT}")?;
            output.flush()?;
        }
        let Some(line) = lines.next() else {
            break;
        };
        let line = line?;
        // Bytes stay bytes: a value that is not UTF-8 is stored as typed.
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        let argv = match parse_line_bytes(line) {
            Ok(argv) => argv,
            Err(e) => {
                writeln!(output, "{e}")?;
                continue;
            }
        };
        let Some(first) = argv.first() else {
            continue;
        };
        // redis-cli's repeat prefix: `3 INCR x`.
        let (repeat, argv) = match std::str::from_utf8(first)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
        {
            Some(n) if argv.len() > 1 => {
                if n <= 0 {
                    writeln!(output, "Invalid redis-cli repeat command option value.")?;
                    continue;
                }
                (n, argv.get(1..).unwrap_or(&[]))
            }
            _ => (1, argv.as_slice()),
        };
        let quit = |w: &Vec<u8>| w.eq_ignore_ascii_case(b"quit") || w.eq_ignore_ascii_case(b"exit");
        if argv.len() == 1 && argv.first().is_some_and(quit) {
            break;
        }
        for _ in 0..repeat {
            let reply = store.execute(argv);
            // Nobody replicates from the REPL; drop the effect stream as it grows.
            store.take_effects();
            writeln!(output, "{}", render(&reply))?;
        }
        output.flush()?;
    }
    Ok(())
}

//! The Redis-like store every simulated node runs and the in-browser console talks to.
//!
//! Plain Rust: no browser imports, no wall clock, no OS entropy. Time is passed in
//! (`set_now_ms`, `DEBUG SLEEP`), the seed drives `math.random` in scripts.
//!
//! Map: `line.rs` splits redis-cli command lines, `parse.rs` is the argument cursor,
//! `cmd/` has one file per command and the one dispatch, `tx.rs` keeps each connection's
//! transaction state (MULTI queue, WATCHes), `db.rs` is the keyspace with lazy expiry and
//! the stream of `effect.rs`'s effects, `script/` runs Lua on piccolo, `reply.rs` renders
//! replies as `redis-cli --no-raw` prints them, `repl.rs` is the native REPL loop.

// No panics reachable from input: no unwrap/expect, no unchecked indexing or slicing,
// no panic!/unreachable! (tests may). Checked by clippy in `make test`; the one file
// with a documented exception is sim/world.rs. See ARCHITECTURE.md, "Invariants".
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

mod cmd;
mod db;
mod effect;
mod glob;
mod line;
mod parse;
pub mod repl;
mod reply;
mod script;
mod tx;

use serde::{Deserialize, Serialize};

use cmd::{Command, Kind};
use db::Db;
use script::Scripting;
use tx::Conns;

pub use effect::Effect;
pub use line::{parse_line, parse_line_bytes, ParseError};
pub use reply::{render, render_line, Reply};
pub use script::ScriptLimits;

/// A live key, for display.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyInfo {
    pub key: Vec<u8>,
    pub value: Vec<u8>,
    pub expire_at_ms: Option<u64>,
}

/// The store: keyspace, clock, script cache and Lua VM, per-connection MULTI/WATCH state,
/// and the effect stream.
pub struct Store {
    db: Db,
    scripting: Scripting,
    conns: Conns,
}

impl Clone for Store {
    /// A deep copy; the Lua VM is rebuilt and the cached scripts recompiled from source.
    fn clone(&self) -> Store {
        Store {
            db: self.db.clone(),
            scripting: self.scripting.clone(),
            conns: self.conns.clone(),
        }
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("now_ms", &self.db.now_ms)
            .field("keys", &self.db.live_count())
            .finish_non_exhaustive()
    }
}

impl Store {
    /// An empty store at time 0; `seed` drives `math.random` in scripts.
    pub fn new(seed: u64) -> Store {
        Store {
            db: Db::default(),
            scripting: Scripting::new(seed, &cmd::FromScript),
            conns: Conns::default(),
        }
    }

    /// The store's virtual clock, in unix-epoch milliseconds.
    pub fn now_ms(&self) -> u64 {
        self.db.now_ms
    }

    /// Moves the clock (forwards or backwards: a node's clock may jump).
    pub fn set_now_ms(&mut self, now_ms: u64) {
        self.db.now_ms = now_ms;
    }

    pub fn script_limits(&self) -> ScriptLimits {
        self.scripting.limits
    }

    pub fn set_script_limits(&mut self, limits: ScriptLimits) {
        self.scripting.limits = limits;
    }

    /// Bytes the keyspace (and the effects not yet taken) hold, as `maxmemory` counts them.
    pub fn used_memory(&self) -> usize {
        self.db.used_memory()
    }

    /// The store-wide memory limit (Redis's `maxmemory`, policy `noeviction`); 64 MB by
    /// default. Writes that could pass it answer `-OOM`.
    pub fn set_max_memory(&mut self, bytes: usize) {
        self.db.max_memory = db::MaxMemory(bytes);
    }

    /// Runs one redis-cli line on connection 0: its reply as redis-cli prints it (a line
    /// that does not parse gets `(error) …`), or `None` for a line with no command.
    pub fn answer_line(&mut self, line: &str) -> Option<String> {
        match parse_line(line) {
            Ok(argv) if argv.is_empty() => None,
            Ok(argv) => Some(render(&self.execute(&argv))),
            Err(e) => Some(format!("(error) {e}")),
        }
    }

    /// Runs one command on connection 0.
    pub fn execute(&mut self, argv: &[Vec<u8>]) -> Reply {
        self.execute_conn(0, argv)
    }

    /// Runs one command on a connection (MULTI/WATCH state is per connection).
    pub fn execute_conn(&mut self, conn: u64, argv: &[Vec<u8>]) -> Reply {
        let spec = match cmd::check(argv) {
            Ok(spec) => spec,
            Err(reply) => {
                let is_exec = argv.first().is_some_and(|n| n.eq_ignore_ascii_case(b"exec"));
                if is_exec {
                    // `execCommandAbort`: a rejected EXEC discards the transaction.
                    self.conns.abort_exec(&mut self.db, conn);
                    let Reply::Error(msg) = reply else {
                        return reply;
                    };
                    let msg = msg.strip_prefix("ERR ").unwrap_or(&msg);
                    return Reply::err(format!("EXECABORT Transaction discarded because of: {msg}"));
                }
                self.conns.note_rejected(conn);
                return reply;
            }
        };
        let immediate = matches!(spec.kind, Kind::Multi | Kind::Exec | Kind::Discard | Kind::Watch);
        if !immediate && self.conns.enqueue(conn, argv) {
            return Reply::Status("QUEUED".to_string());
        }
        self.run(conn, spec, argv)
    }

    /// Runs a command that passed `cmd::check`: the OOM refusal, its parse, its dispatch.
    fn run(&mut self, conn: u64, spec: &cmd::Spec, argv: &[Vec<u8>]) -> Reply {
        if let Some(oom) = cmd::refuse_oom(spec, &self.db, argv) {
            return oom;
        }
        match Command::parse(spec, argv, self.db.now_ms) {
            Ok(command) => self.dispatch(conn, command),
            Err(reply) => reply,
        }
    }

    fn dispatch(&mut self, conn: u64, command: Command) -> Reply {
        match command {
            Command::Data(c) => c.apply(&mut self.db),
            Command::Eval(c) => c.apply(&mut self.scripting, &mut self.db),
            Command::Script(c) => c.apply(&mut self.scripting),
            Command::Debug(c) => c.apply(&mut self.db),
            Command::Multi => self.conns.multi(conn),
            Command::Exec => self.exec(conn),
            Command::Discard => self.conns.discard(&mut self.db, conn),
            Command::Watch(w) => self.conns.watch(&mut self.db, conn, w.keys),
            Command::Unwatch => {
                self.conns.unwatch_all(&mut self.db, conn);
                Reply::ok()
            }
        }
    }

    /// EXEC: the transaction's checks (`tx.rs`), then each queued command as if it came
    /// now, replies in order.
    fn exec(&mut self, conn: u64) -> Reply {
        let queue = match self.conns.take_exec(&mut self.db, conn) {
            Ok(queue) => queue,
            Err(reply) => return reply,
        };
        let mut replies = Vec::with_capacity(queue.len());
        for argv in queue {
            let reply = match cmd::check(&argv) {
                Ok(spec) => self.run(conn, spec, &argv),
                Err(reply) => reply,
            };
            replies.push(reply);
        }
        Reply::Array(replies)
    }

    /// The writes since the last call, in order.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        self.db.take_effects()
    }

    /// Applies a primary's effect on this replica.
    pub fn apply_effect(&mut self, effect: &Effect) {
        self.db.apply_effect(effect);
    }

    /// Keys not expired at `now_ms`, sorted by key.
    pub fn live_keys(&self) -> Vec<KeyInfo> {
        self.db
            .live()
            .into_iter()
            .map(|(key, entry)| KeyInfo {
                key: key.clone(),
                value: entry.value.clone(),
                expire_at_ms: entry.expire_at_ms,
            })
            .collect()
    }
}

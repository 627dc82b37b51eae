//! What the Lua callbacks share with the host while a script runs (`Host`), and the way
//! `redis.call` reaches the store's commands (`Dispatch`), which the store hands in.

use std::cell::RefCell;
use std::rc::Rc;

use rand_chacha::ChaCha8Rng;

use crate::store::db::Db;
use crate::store::reply::Reply;

/// How `redis.call` and `redis.pcall` run a command. The command layer (`cmd/`) implements
/// it: its EVAL runs scripts, so the script layer calls back through this trait and never
/// names the commands.
pub(crate) trait Dispatch {
    /// Runs one command a script called against the keyspace, with Redis's
    /// script-specific errors (`scriptCall`).
    fn call(&self, db: &mut Db, argv: &[Vec<u8>]) -> Reply;
}

/// State the Lua callbacks share with the host while a script runs.
pub(crate) struct Host {
    /// The keyspace, moved in for the duration of a script.
    pub(crate) db: Db,
    pub(crate) rng: ChaCha8Rng,
    /// The script line the latest callback saw (1-based), for error positions.
    pub(crate) line: u64,
    /// The error `redis.call` raised most recently: reported without the `ERR` prefix
    /// Redis gives other uncaught errors.
    pub(crate) call_error: Option<Vec<u8>>,
    /// Pattern-matching steps the running script may still take (`string.find` & co.).
    pub(crate) pattern_steps: u64,
    /// Bytes the Lua heap may hold (the script's memory cap).
    pub(crate) memory_limit: usize,
    /// Instructions the running script may still spend (as of the current step).
    pub(crate) fuel_left: u64,
    /// A charged allocation did not fit even after a collection: the script is killed.
    pub(crate) oom: bool,
    /// A charged allocation did not fit: collect garbage before the next step.
    pub(crate) gc_wanted: bool,
    /// Bytes charged functions made room for in the current slice (they check the cap
    /// themselves, so the host does not count them as growth it must anticipate).
    pub(crate) charged: usize,
    /// How `redis.call` runs commands (the store's command layer).
    pub(crate) dispatch: &'static dyn Dispatch,
}

/// The host as every Lua callback holds it.
pub(crate) type Shared = Rc<RefCell<Host>>;

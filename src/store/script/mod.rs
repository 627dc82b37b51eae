//! Lua scripting: one piccolo VM per store, compiled scripts cached by SHA1, every run under
//! an instruction (fuel) budget and a memory cap, so a runaway script ends in an error reply
//! and the store keeps serving.

mod alloc;
mod bit;
mod cfmt;
mod cjson;
mod convert;
mod errors;
mod host;
mod lauxlib;
mod lib;
mod order;
mod parse51;
mod pattern;
mod rewrite;
mod syntax;
mod wrap;

use std::cell::RefCell;
use std::rc::Rc;

use piccolo::{Context, Executor, Fuel, Lua, StashedExecutor, StashedFunction, StashedTable, Table, Value};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::db::{Db, Map};
use super::reply::Reply;
use errors::{compile_error_text, error_text};
use host::Host;

pub(crate) use host::Dispatch;

/// Limits on one script run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptLimits {
    /// Lua instructions (piccolo fuel units) one script may run. The default, 10 million,
    /// is roughly 50 ms natively and stops `while true do end` well under a second in a
    /// browser.
    pub fuel: u64,
    /// Bytes the Lua heap may hold while a script runs.
    pub memory_bytes: usize,
}

impl Default for ScriptLimits {
    fn default() -> Self {
        ScriptLimits {
            fuel: 10_000_000,
            memory_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Fuel per `Executor::step` while the heap is far from the cap; between steps the VM may
/// collect garbage and the memory cap is checked.
const FUEL_PER_SLICE: i32 = 4096;

/// The room kept free for growth, as a multiple of the largest net jump a slice made: a
/// table that last grew by `j` (to `2j`) next allocates `4j` while its `2j` copy lives.
const GROWTH_RESERVE: usize = 4;

/// Heap bytes one instruction is allowed for when a slice's length is chosen near the cap.
const BYTES_PER_FUEL: usize = 256;

/// The instructions the next slice may run with `headroom` bytes left under the cap: the
/// full slice far from it, fewer (at least 16) as it nears.
fn slice_fuel(headroom: usize) -> i32 {
    i32::try_from(headroom / BYTES_PER_FUEL).map_or(FUEL_PER_SLICE, |f| f.clamp(16, FUEL_PER_SLICE))
}

/// A forced full collection costs the script one instruction per this many heap bytes.
const GC_BYTES_PER_FUEL: u64 = 256;

struct Cached {
    source: Vec<u8>,
    function: StashedFunction,
}

/// Scripting for one store: a Lua VM built on first use.
///
/// A store that never runs a script never pays for a VM, and a clone (a timeline
/// checkpoint: one per 64 events, every node's store included) holds only the script
/// sources and the generator's state until it runs something. A VM built late starts
/// from exactly what an eager one would have: the same generator state and the same
/// scripts compiled in the same order (the semantics `Clone` always had).
pub(crate) struct Scripting {
    vm: Option<Box<Vm>>,
    /// While there is no VM: the generator's state and the scripts, as (SHA1 hex,
    /// source) in load order, to build it from. Unused once it is built.
    rng: ChaCha8Rng,
    pending: Vec<(String, Vec<u8>)>,
    pub(crate) limits: ScriptLimits,
    /// How `redis.call` runs commands.
    dispatch: &'static dyn Dispatch,
}

impl Scripting {
    /// No scripts yet; `seed` drives `math.random`, and `redis.call` runs commands through
    /// `dispatch`.
    pub(crate) fn new(seed: u64, dispatch: &'static dyn Dispatch) -> Scripting {
        Scripting {
            vm: None,
            rng: ChaCha8Rng::seed_from_u64(seed),
            pending: Vec::new(),
            limits: ScriptLimits::default(),
            dispatch,
        }
    }

    pub(crate) fn sha1_hex(source: &[u8]) -> String {
        sha1_smol::Sha1::from(source).digest().to_string()
    }

    /// Whether the VM exists (laziness is observable only here, for tests).
    #[cfg(test)]
    pub(crate) fn is_built(&self) -> bool {
        self.vm.is_some()
    }

    /// The VM, built now if it was not.
    fn vm(&mut self) -> &mut Vm {
        let (rng, pending, limits) = (&self.rng, &mut self.pending, self.limits);
        let dispatch = self.dispatch;
        let vm = self.vm.get_or_insert_with(|| {
            let mut vm = Vm::with_rng(rng.clone(), limits, dispatch);
            for (_, source) in pending.drain(..) {
                // These compiled before, so they compile again.
                let _ = vm.load(&source);
            }
            Box::new(vm)
        });
        vm.limits = limits;
        vm
    }

    pub(crate) fn exists(&self, sha: &[u8]) -> bool {
        let sha = String::from_utf8_lossy(sha).to_ascii_lowercase();
        match &self.vm {
            Some(vm) => vm.scripts.contains_key(&sha),
            None => self.pending.iter().any(|(s, _)| *s == sha),
        }
    }

    /// Compiles and caches a script; returns its SHA1 or the compile error reply.
    pub(crate) fn load(&mut self, source: &[u8]) -> Result<String, Reply> {
        if self.vm.is_none() {
            let sha = Self::sha1_hex(source);
            if self.pending.iter().any(|(s, _)| *s == sha) {
                return Ok(sha);
            }
        }
        self.vm().load(source)
    }

    /// SCRIPT FLUSH: forget every script and start from a fresh VM (as Redis does), keeping
    /// the random generator's state.
    pub(crate) fn flush(&mut self) {
        if let Some(vm) = self.vm.take() {
            self.rng = vm.host.borrow().rng.clone();
        }
        self.pending.clear();
    }

    /// Runs a cached script against `db`. `sha` must have been loaded.
    pub(crate) fn run(&mut self, db: &mut Db, sha: &str, keys: &[Vec<u8>], args: &[Vec<u8>]) -> Reply {
        if !self.exists(sha.as_bytes()) {
            return Reply::err("NOSCRIPT No matching script. Please use EVAL.");
        }
        let (reply, killed) = self.vm().run(db, sha, keys, args);
        if killed {
            // A killed script may have left anything behind (a heap near the cap, half-built
            // tables in globals' reach): start the next script from a fresh VM with the same
            // scripts and generator state, as a clone would.
            *self = self.clone();
        }
        reply
    }
}

impl Clone for Scripting {
    /// The sources and the generator's state: a fresh VM is built from them on first use.
    fn clone(&self) -> Scripting {
        let (rng, pending) = match &self.vm {
            Some(vm) => (
                vm.host.borrow().rng.clone(),
                vm.order
                    .iter()
                    .filter_map(|sha| vm.scripts.get(sha).map(|c| (sha.clone(), c.source.clone())))
                    .collect(),
            ),
            None => (self.rng.clone(), self.pending.clone()),
        };
        Scripting {
            vm: None,
            rng,
            pending,
            limits: self.limits,
            dispatch: self.dispatch,
        }
    }
}

/// The Lua VM and the script cache.
struct Vm {
    lua: Lua,
    globals: StashedTable,
    env: StashedTable,
    executor: StashedExecutor,
    /// The snapshots `pairs`/`next` traverse tables by (`order.rs`), dropped after each run.
    key_order: StashedTable,
    /// SHA1 hex (lowercase) → compiled script.
    scripts: Map<String, Cached>,
    /// Insertion order, so a clone compiles scripts in the same order.
    order: Vec<String>,
    host: Rc<RefCell<Host>>,
    pub(crate) limits: ScriptLimits,
}

impl Vm {
    fn with_rng(rng: ChaCha8Rng, limits: ScriptLimits, dispatch: &'static dyn Dispatch) -> Vm {
        let host = Rc::new(RefCell::new(Host {
            db: Db::default(),
            rng,
            line: 1,
            call_error: None,
            pattern_steps: 0,
            memory_limit: limits.memory_bytes,
            fuel_left: 0,
            oom: false,
            gc_wanted: false,
            charged: 0,
            dispatch,
        }));
        let mut lua = Lua::empty();
        let (globals, env, executor, key_order) = lua.enter(|ctx| {
            piccolo::stdlib::load_base(ctx);
            piccolo::stdlib::load_coroutine(ctx);
            piccolo::stdlib::load_string(ctx);
            piccolo::stdlib::load_table(ctx);
            let g = ctx.globals();
            lib::install(ctx, g, &host);
            bit::install(ctx, g, &host);
            cjson::install(ctx, g, &host);
            wrap::install(ctx, g, &host);
            let key_order = order::install(ctx, g, &host);
            lib::protect_libraries(ctx, g, &host);
            let env = lib::global_env(ctx, g, &host);
            let _ = g.set(ctx, "_G", env);
            (
                ctx.stash(g),
                ctx.stash(env),
                ctx.stash(Executor::new(ctx)),
                ctx.stash(key_order),
            )
        });
        Vm {
            lua,
            globals,
            env,
            executor,
            key_order,
            scripts: Map::default(),
            order: Vec::new(),
            host,
            limits,
        }
    }

    fn load(&mut self, source: &[u8]) -> Result<String, Reply> {
        let sha = Scripting::sha1_hex(source);
        if self.scripts.contains_key(&sha) {
            return Ok(sha);
        }
        if let Err(msg) = syntax::check_lua51_operators(source) {
            return Err(Reply::Error(format!(
                "ERR Error compiling script (new function): {msg}"
            )));
        }
        if let Some(msg) = parse51::lua51_syntax_error(source) {
            return Err(Reply::Error(format!(
                "ERR Error compiling script (new function): {msg}"
            )));
        }
        let env = &self.env;
        let compiled = self.lua.enter(|ctx| {
            let env = ctx.fetch(env);
            rewrite::load(ctx, source, env)
                .map(|closure| ctx.stash(closure))
                .map_err(|e| compile_error_text(&e))
        });
        match compiled {
            Ok(closure) => {
                self.scripts.insert(
                    sha.clone(),
                    Cached {
                        source: source.to_vec(),
                        function: StashedFunction::Closure(closure),
                    },
                );
                self.order.push(sha.clone());
                Ok(sha)
            }
            Err(msg) => Err(Reply::Error(format!(
                "ERR Error compiling script (new function): {msg}"
            ))),
        }
    }

    /// Steps the started script until it ends; `Some(message)` if it was killed.
    ///
    /// Tables and the VM's stacks grow inside piccolo's instructions, where nothing can be
    /// charged before it is made, and they grow by doubling: one instruction can allocate
    /// twice what a table holds while the old copy still exists. Between slices the heap
    /// is read and two things keep it under the cap: the largest net jump a slice has made
    /// this run (less what charged functions made room for: they check for themselves) is
    /// taken as the last doubling of the biggest growing thing, whose next doubling
    /// allocates four times that while its old copy lives (`GROWTH_RESERVE`), and the
    /// script is stopped before that no longer fits; and a slice runs fewer instructions
    /// the closer the heap is to the cap (`slice_fuel`), so the small allocations of many
    /// instructions cannot pile up past it.
    ///
    /// So one big table stops at about a third of the cap. Measured bound: 0 bytes over the
    /// cap for every table, stack and cjson bomb in `tests/store_limits.rs` (every allocation
    /// of the process counted, 8 MB cap). Not a proof: growth hidden from the jump (a
    /// collection in the same slice, or a charged function's room subtracted) could pass
    /// the cap by one doubling.
    fn drive(&mut self) -> Option<String> {
        let executor = &self.executor;
        let cap = self.limits.memory_bytes;
        let memory_error = || {
            format!(
                "ERR Script killed: it used more than {cap} bytes of Lua memory (lockstep's script memory cap)"
            )
        };
        let mut spent: u64 = 0;
        let mut jump_max: usize = 0;
        let mut before = self.lua.total_memory();
        loop {
            let slice = slice_fuel(
                cap.saturating_sub(before.saturating_add(jump_max.saturating_mul(GROWTH_RESERVE))),
            );
            let (done, used) = self.lua.enter(|ctx| {
                let mut fuel = Fuel::with(slice);
                let done = ctx.fetch(executor).step(ctx, &mut fuel);
                (done, i64::from(slice) - i64::from(fuel.remaining()))
            });
            spent = spent.saturating_add(u64::try_from(used).unwrap_or(0));
            let (oom, gc_wanted, charged) = {
                let mut h = self.host.borrow_mut();
                h.fuel_left = self.limits.fuel.saturating_sub(spent);
                (
                    h.oom,
                    std::mem::take(&mut h.gc_wanted),
                    std::mem::take(&mut h.charged),
                )
            };
            if oom {
                return Some(memory_error());
            }
            if done {
                return None;
            }
            if spent > self.limits.fuel {
                return Some(format!(
                    "ERR Script killed: it ran more than {} Lua instructions (lockstep's script budget; a real Redis would keep running it and answer BUSY to everyone else)",
                    self.limits.fuel
                ));
            }
            let after = self.lua.total_memory();
            jump_max = jump_max.max(after.saturating_sub(before).saturating_sub(charged));
            let needs = |heap: usize| heap.saturating_add(jump_max.saturating_mul(GROWTH_RESERVE));
            if gc_wanted || needs(after) > cap {
                // A full collection walks the heap: it costs the script instructions.
                self.lua.gc_collect();
                let heap = u64::try_from(self.lua.total_memory()).unwrap_or(u64::MAX);
                spent = spent.saturating_add(heap / GC_BYTES_PER_FUEL);
                if needs(self.lua.total_memory()) > cap {
                    return Some(memory_error());
                }
            }
            before = self.lua.total_memory();
        }
    }

    /// Runs a cached script; the flag says whether it was killed (for memory or time).
    fn run(&mut self, db: &mut Db, sha: &str, keys: &[Vec<u8>], args: &[Vec<u8>]) -> (Reply, bool) {
        let Some(cached) = self.scripts.get(sha) else {
            return (Reply::err("NOSCRIPT No matching script. Please use EVAL."), false);
        };
        {
            let mut host = self.host.borrow_mut();
            host.db = std::mem::take(db);
            host.line = 1;
            host.call_error = None;
            host.pattern_steps = self.limits.fuel.saturating_mul(lib::PATTERN_STEPS_PER_FUEL);
            host.memory_limit = self.limits.memory_bytes;
            host.fuel_left = self.limits.fuel;
            host.oom = false;
            host.gc_wanted = false;
            host.charged = 0;
        }
        {
            let (globals, executor, function) = (&self.globals, &self.executor, &cached.function);
            self.lua.enter(|ctx| {
                let g = ctx.fetch(globals);
                let _ = g.set(ctx, "KEYS", string_array(ctx, keys));
                let _ = g.set(ctx, "ARGV", string_array(ctx, args));
                ctx.fetch(executor).restart(ctx, ctx.fetch(function), ());
            });
        }
        let outcome = self.drive();
        let (globals, executor) = (&self.globals, &self.executor);
        let killed = outcome.is_some();
        let reply = match outcome {
            Some(msg) => {
                self.lua.enter(|ctx| ctx.fetch(executor).stop(&ctx));
                self.lua.gc_collect();
                let line = self.host.borrow().line;
                Reply::Error(format!("{msg} script: {sha}, on @user_script:{line}."))
            }
            None => {
                let host = &self.host;
                self.lua.enter(|ctx| {
                    let result = ctx.fetch(executor).take_result::<Value>(ctx);
                    if ctx.fetch(executor).mode() == piccolo::ExecutorMode::Suspended {
                        // The script itself yielded: Lua 5.1 refuses that at the top level.
                        let line = host.borrow().line;
                        return Reply::Error(format!(
                            "ERR attempt to yield across metamethod/C-call boundary script: {sha}, on @user_script:{line}."
                        ));
                    }
                    match result {
                        Ok(Ok(value)) => convert::lua_to_reply(ctx, value),
                        Ok(Err(error)) => Reply::Error(error_text(ctx, &error, &host.borrow(), sha)),
                        Err(_) => Reply::err("ERR script did not finish"),
                    }
                })
            }
        };
        // Drop per-run values so they can be collected, and hand the keyspace back.
        let key_order = &self.key_order;
        self.lua.enter(|ctx| {
            let g = ctx.fetch(globals);
            let _ = g.set(ctx, "KEYS", Value::Nil);
            let _ = g.set(ctx, "ARGV", Value::Nil);
            order::forget(ctx, ctx.fetch(key_order));
        });
        *db = std::mem::take(&mut self.host.borrow_mut().db);
        (reply, killed)
    }
}

fn string_array<'gc>(ctx: Context<'gc>, items: &[Vec<u8>]) -> Table<'gc> {
    let t = Table::new(&ctx);
    for (i, item) in (1i64..).zip(items) {
        let _ = t.set(ctx, i, piccolo::String::from_slice(&ctx, item));
    }
    t
}

#[cfg(test)]
mod tests {
    use crate::store::{Reply, Store};

    fn run(store: &mut Store, args: &[&str]) -> Reply {
        let argv: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        store.execute(&argv)
    }

    const RANDOM: &str = "return math.random(1000000)";

    #[test]
    fn a_store_builds_its_vm_on_the_first_script_only() {
        let mut s = Store::new(7);
        assert!(!s.scripting.is_built());
        assert_eq!(run(&mut s, &["SET", "k", "v", "NX", "PX", "1000"]), Reply::ok());
        assert!(!s.scripting.is_built(), "plain commands need no Lua");
        assert_eq!(run(&mut s, &["EVAL", "return 1", "0"]), Reply::Int(1));
        assert!(s.scripting.is_built());
    }

    #[test]
    fn a_clone_keeps_scripts_and_generator_without_a_vm_until_it_runs_one() {
        let mut a = Store::new(7);
        let Reply::Bulk(sha) = run(&mut a, &["SCRIPT", "LOAD", RANDOM]) else {
            panic!("SCRIPT LOAD answers the sha")
        };
        let sha = String::from_utf8(sha).expect("hex");
        // Advance the generator once, then copy.
        let first = run(&mut a, &["EVALSHA", &sha, "0"]);
        let mut b = a.clone();
        assert!(!b.scripting.is_built(), "a checkpoint holds no VM");
        assert_eq!(
            run(
                &mut b,
                &[
                    "SCRIPT",
                    "EXISTS",
                    &sha,
                    "ffffffffffffffffffffffffffffffffffffffff"
                ]
            ),
            Reply::Array(vec![Reply::Int(1), Reply::Int(0)])
        );
        assert!(!b.scripting.is_built(), "SCRIPT EXISTS needs no VM");
        // The copy goes on exactly as the original does, and differs from the first value.
        let next_a = run(&mut a, &["EVALSHA", &sha, "0"]);
        let next_b = run(&mut b, &["EVALSHA", &sha, "0"]);
        assert!(b.scripting.is_built());
        assert_eq!(next_a, next_b);
        assert_ne!(next_a, first);
        // A clone of a clone that never ran anything is the same again.
        let mut c = b.clone().clone();
        assert_eq!(
            run(&mut c, &["EVALSHA", &sha, "0"]),
            run(&mut a, &["EVALSHA", &sha, "0"])
        );
    }

    fn error_of(store: &mut Store, script: &str) -> String {
        match run(store, &["EVAL", script, "0"]) {
            Reply::Error(e) => e.split(" script: ").next().unwrap_or_default().to_string(),
            other => panic!("{script}: expected an error, got {other:?}"),
        }
    }

    #[test]
    fn runtime_errors_name_the_culprit_as_lua_5_1_does() {
        let mut s = Store::new(1);
        for (script, message) in [
            (
                "local x = nil return x.y",
                "ERR user_script:1: attempt to index local 'x' (a nil value)",
            ),
            (
                "local t = {} return t.a.b",
                "ERR user_script:1: attempt to index field 'a' (a nil value)",
            ),
            (
                "return KEYS[1].x",
                "ERR user_script:1: attempt to index field '?' (a nil value)",
            ),
            (
                "return redis()",
                "ERR user_script:1: attempt to call global 'redis' (a table value)",
            ),
            (
                "local u local function f() return u.x end return f()",
                "ERR user_script:1: attempt to index upvalue 'u' (a nil value)",
            ),
            (
                "local s = '10' local n return s + n",
                "ERR user_script:1: attempt to perform arithmetic on local 'n' (a nil value)",
            ),
            (
                "return nil > 1",
                "ERR user_script:1: attempt to compare number with nil",
            ),
            (
                "local id return 'user:' .. id .. ':name'",
                "ERR user_script:1: attempt to concatenate local 'id' (a nil value)",
            ),
            (
                "local t = {} return 'k:' .. t.id",
                "ERR user_script:1: attempt to concatenate field 'id' (a nil value)",
            ),
            (
                "local v = 1 local function g() local v = {} return 'x' .. v end return g()",
                "ERR user_script:1: attempt to concatenate local 'v' (a table value)",
            ),
            (
                "local t return t:get()",
                "ERR user_script:1: attempt to index local 't' (a nil value)",
            ),
            (
                "local u local function f() return 'x' .. u end return f()",
                "ERR user_script:1: attempt to concatenate upvalue 'u' (a nil value)",
            ),
            (
                "local t = {} for i = 1, t.n do end",
                "ERR user_script:1: 'for' limit must be a number",
            ),
        ] {
            assert_eq!(error_of(&mut s, script), message, "{script}");
        }
    }

    #[test]
    fn a_culprit_that_may_come_from_two_places_stays_unnamed() {
        let mut s = Store::new(1);
        // The indexed value is `t.a` or `t.b`, whichever the `or` took: Lua 5.1 names
        // neither, and a name here could be the wrong one.
        assert_eq!(
            error_of(&mut s, "local t = {} return (t.a or t.b).c"),
            "ERR user_script:1: attempt to index a nil value"
        );
        assert_eq!(
            error_of(&mut s, "local t = {} return (KEYS[1] and t.x or t.y).z"),
            "ERR user_script:1: attempt to index a nil value"
        );
        // A parenthesised operand of `..` is not followed.
        assert_eq!(
            error_of(&mut s, "local t = {} return (t.x) .. 'a'"),
            "ERR user_script:1: attempt to concatenate a nil value"
        );
    }

    #[test]
    fn a_runtime_error_reports_the_line_of_the_failing_instruction() {
        // No library call runs before the error, so only the VM knows the line.
        let mut s = Store::new(1);
        assert_eq!(
            error_of(&mut s, "local x\n\nreturn x.y"),
            "ERR user_script:3: attempt to index local 'x' (a nil value)"
        );
        match run(
            &mut s,
            &["EVAL", "local n = 0\nfor i = 1, 3 do\nn = n + nil\nend", "0"],
        ) {
            Reply::Error(e) => assert!(e.ends_with("on @user_script:3."), "{e}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn greater_than_compares_as_lua_5_1_even_with_nan() {
        // `a > b` is `b < a`: false for a NaN operand (it was `not (a <= b)`, true).
        let mut s = Store::new(1);
        assert_eq!(
            run(
                &mut s,
                &[
                    "EVAL",
                    "local n = 0 / 0 return {tostring(n > 1), tostring(n >= 1), tostring(1 > n)}",
                    "0"
                ]
            ),
            Reply::Array(vec![Reply::Bulk(b"false".to_vec()); 3])
        );
    }

    #[test]
    fn flush_forgets_scripts_but_keeps_the_generator_whether_or_not_a_vm_exists() {
        let mut built = Store::new(3);
        run(&mut built, &["EVAL", RANDOM, "0"]);
        let mut lazy = built.clone();
        for s in [&mut built, &mut lazy] {
            assert_eq!(run(s, &["SCRIPT", "FLUSH"]), Reply::ok());
            assert!(
                matches!(run(s, &["EVALSHA", &super::Scripting::sha1_hex(RANDOM.as_bytes()), "0"]), Reply::Error(e) if e.starts_with("NOSCRIPT"))
            );
        }
        assert_eq!(
            run(&mut built, &["EVAL", RANDOM, "0"]),
            run(&mut lazy, &["EVAL", RANDOM, "0"])
        );
    }
}

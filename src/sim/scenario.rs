//! Scenario files: TOML describing processes, parameters, each client's algorithm and
//! work, and the fault schedule. Times are milliseconds of simulated time (fractions
//! allowed, at most one day); every number is range-checked, and errors name the file,
//! line and field (`f.toml:8: clients[0].nodes: `nope` is not a node or group`).
//!
//! The format, the types a file reads into ([`Scenario`] and its parts), is
//! `definition.rs`. Reading and checking a file, with its errors placed, is `parse.rs`
//! ([`parse`], [`ScenarioError`]); the built-in scenarios are `builtins.rs` ([`BUILTINS`],
//! [`builtin`]). This file only declares them and re-exports their items.
//!
//! ```toml
//! name = "unsafe-del"                # required
//! title = "unconditional DEL"     # optional: what the learner reads (else the name)
//! # [titles] nb = "…"             # optional: the title in other languages
//! description = "one line for `lockstep scenarios`"
//! # [descriptions] nb = "…"       # optional: the description in other languages
//! section = 3                        # syllabus section (for the lesson UI)
//! end_ms = 25000                     # the run stops here (default 60 000)
//! sweep_ttl_ms = [300, 800, 3200]    # optional: TTLs for the UI's trade-off table
//!
//! [network]
//! latency_ms = 1                     # fixed, or [lo, hi] drawn per message (default 1)
//! loss = 0.0                         # probability a message is lost
//!
//! [[links]]                          # per-link overrides (both ways unless oneway)
//! from = "C1"
//! to = "D"                           # or "*": every other process
//! latency_ms = 2
//!
//! [[nodes]]                          # a Redis node, running the real store
//! name = "redis"
//! persistence = "none"               # none | everysec | always (AOF on restart)
//! service_ms = 1                     # command arrival → reply leaves (default 1)
//! clock_offset_ms = 0
//! drift_pct = 0                      # +2 = the clock runs 2 % fast
//! init = [["SET", "fence", "32"]]    # commands run at time 0
//!
//! [[groups]]                         # master + replicas; clients may name the group
//! name = "redis"
//! master = "m"
//! replicas = ["r"]
//! lag_ms = 50
//! failover = { detection_ms = 5000, promotion_ms = 1000 }
//!
//! [resource]                         # the protected storage service
//! fencing = "off"                    # off | strict (reject token ≤ highest) | allow-equal
//! idempotency = false                # refuse a second write with the same key
//! init = { paid = "false" }
//! effects = ["charge"]               # each accepted write is an effect: twice = double
//!
//! [[clients]]
//! name = "A"
//! algorithm = "set-nx"               # none | set-nx | redlock | redlock-unchecked | library
//! nodes = ["redis"]                  # one for set-nx, N for redlock/library
//! lock = "lock"
//! start_ms = 0
//! ttl_ms = 10000                     # library: the `duration`
//! timeout_ms = 50                    # per-node request timeout
//! drift_factor = 0.01
//! retry_delay_ms = [100, 300]        # or a fixed number; library: retryDelay
//! max_attempts = 1000
//! release = "lua"                    # del | lua | get-then-del | none
//! check_validity = false             # end the belief at start + ttl − D (redlock: true)
//! watchdog = false                   # renew every ttl/3 with the extend script
//! wait = { replicas = 1, timeout_ms = 100 }
//! fencing = false                    # acquire with INCR, send the token with writes
//! idempotency_key = "charge:invoice-42"
//! retry_count = 10                   # library settings (node-redlock's names)
//! retry_jitter_ms = 100
//! extension_threshold_ms = 500
//! repeat = 1                         # cycles of acquire → work → release
//! work = ["read paid", "expect paid false", "sleep 40", "write charge 42"]
//! # other steps: "sleep 100..300" (uniform), "sleep 200~800" (log-normal, median~p99),
//! # "crash" (the client's process dies here, holding the lock),
//! # "claim 300" (claim the client's idempotency_key at the resource as in progress for
//! # 300 ms: refused while another client's claim is live or once a write carrying the
//! # key has marked it done)
//!
//! [[faults]]
//! at_ms = 100
//! op = "pause"                       # pause | resume | crash | restart | clock-jump |
//!                                    # drift | partition | repair | latency | command
//! target = "A"
//! until_ms = 12100                   # pause → resume, crash → restart, partition → repair
//! # peer = "D", oneway = true, delta_ms = 10000, drift_pct = 2, latency_ms = 100,
//! # command = ["DEL", "lock"]        (as the op needs)
//!
//! [scripts]                          # replace any client script (see `scripts.rs`)
//! release = "..."
//!
//! [expect]                           # checked by tests/sim_scenarios.rs
//! violations = [{ kind = "overlap", clients = ["B", "C"], from_ms = 12300, to_ms = 15500 }]
//! ```

mod builtins;
pub(crate) mod definition;
mod parse;

pub(crate) use builtins::compiled;
pub use builtins::{builtin, builtin_checked, Builtin, BUILTINS, BUILTIN_NAMES};
pub use definition::{
    Algorithm, ClientSpec, DelaySpec, Expect, ExpectRejected, ExpectViolation, FailoverSpec, FaultOp,
    FaultSpec, Fencing, GroupSpec, LatencySpec, LinkSpec, NetworkSpec, NodeSpec, Persistence, ReleaseKind,
    ResourceSpec, Scenario, WaitSpec, MAX_SCRIPT_BYTES, MAX_SOURCE_BYTES, MAX_SWEEP_TTLS, MAX_TIME_MS,
};
pub use parse::{parse, ScenarioError};

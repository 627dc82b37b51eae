//! Safety properties over many random scenarios (seeded, reproducible):
//! 1. Fault-free Redlock (random N, clients, start times, latencies, work lengths,
//!    retry delays; no pauses, drift, jumps or crashes) never has two holders at once.
//! 2. With fencing, whatever the faults, the resource never accepts a token that is
//!    not higher than every token it accepted before.
//!
//! Default: 300 seeds each (debug build). The full proof (100 000 seeds):
//! `LOCKSTEP_SAFETY_SEEDS=100000 cargo test --release --test sim_safety`

use lockstep::sim::rng::SimRng;
use lockstep::sim::scenario::parse;
use lockstep::sim::{run, TraceKind, TraceLevel};
use std::fmt::Write as _;

fn seeds() -> u64 {
    std::env::var("LOCKSTEP_SAFETY_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

fn redlock_scenario(rng: &mut SimRng) -> String {
    let n = [3, 5, 7][rng.range_u64(0, 3) as usize];
    let clients = rng.range_u64(2, 5);
    let ttl = rng.range_u64(200, 2_000);
    let lat_lo = rng.range_u64(1, 5) as f64 / 2.0;
    let lat_hi = lat_lo + rng.range_u64(0, 10) as f64;
    let mut s = format!("name = \"random-redlock\"\nend_ms = {}\n", ttl * 6);
    let _ = write!(s, "[network]\nlatency_ms = [{lat_lo}, {lat_hi}]\n");
    let names: Vec<String> = (0..n).map(|i| format!("n{i}")).collect();
    for name in &names {
        let _ = write!(
            s,
            "[[nodes]]\nname = \"{name}\"\nservice_ms = {}\n",
            rng.range_u64(0, 3)
        );
    }
    let list = names
        .iter()
        .map(|x| format!("\"{x}\""))
        .collect::<Vec<_>>()
        .join(", ");
    for c in 0..clients {
        let work = rng.range_u64(0, ttl * 2);
        let _ = write!(
            s,
            "[[clients]]\nname = \"c{c}\"\nalgorithm = \"redlock\"\nnodes = [{list}]\nttl_ms = {ttl}\ntimeout_ms = {}\nstart_ms = {}\nretry_delay_ms = [{}, {}]\nwork = [\"sleep {work}\"]\n",
            rng.range_u64(5, 50),
            rng.range_u64(0, ttl),
            rng.range_u64(1, 50),
            rng.range_u64(50, 300),
        );
    }
    s
}

#[test]
fn fault_free_redlock_never_has_two_holders() {
    let mut held = 0;
    for seed in 0..seeds() {
        let mut rng = SimRng::new(seed);
        let src = redlock_scenario(&mut rng);
        let scenario = parse("random", &src).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
        let r = run(&scenario, seed, TraceLevel::Semantic).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(
            r.outcome.is_safe(),
            "seed {seed}: {:?}\nscenario:\n{src}",
            r.outcome.violations
        );
        held += r.outcome.holds.len();
    }
    // The property is not vacuous: locks were taken.
    assert!(held as u64 >= seeds(), "only {held} holds in {} runs", seeds());
}

fn fencing_scenario(rng: &mut SimRng) -> String {
    let clients = rng.range_u64(2, 5);
    let ttl = rng.range_u64(100, 1_000);
    let mut s = format!(
        "name = \"random-fencing\"\nend_ms = {}\n[network]\nlatency_ms = [0.5, {}]\n[[nodes]]\nname = \"redis\"\npersistence = \"{}\"\n[resource]\nfencing = \"strict\"\n",
        ttl * 8,
        1 + rng.range_u64(0, 20),
        ["none", "everysec", "always"][rng.range_u64(0, 3) as usize]
    );
    for c in 0..clients {
        let _ = write!(
            s,
            "[[clients]]\nname = \"c{c}\"\nalgorithm = \"set-nx\"\nnodes = [\"redis\"]\nfencing = true\nttl_ms = {ttl}\nstart_ms = {}\nretry_delay_ms = [10, 100]\nwork = [\"sleep {}\", \"write data c{c}\", \"sleep {}\", \"write data c{c}\"]\n",
            rng.range_u64(0, ttl * 2),
            rng.range_u64(0, ttl * 2),
            rng.range_u64(0, ttl),
        );
        // Pauses longer than the TTL: the case fencing exists for.
        if rng.chance(0.7) {
            let at = rng.range_u64(0, ttl * 3);
            let _ = write!(
                s,
                "[[faults]]\nat_ms = {at}\nop = \"pause\"\ntarget = \"c{c}\"\nuntil_ms = {}\n",
                at + rng.range_u64(0, ttl * 3)
            );
        }
    }
    if rng.chance(0.3) {
        let at = rng.range_u64(0, ttl * 4);
        let _ = write!(
            s,
            "[[faults]]\nat_ms = {at}\nop = \"crash\"\ntarget = \"redis\"\nuntil_ms = {}\n",
            at + rng.range_u64(0, ttl)
        );
    }
    s
}

#[test]
fn fencing_resource_never_accepts_a_non_increasing_token() {
    let mut rejected = 0;
    let mut accepted = 0;
    for seed in 0..seeds() {
        let mut rng = SimRng::new(seed ^ 0xF3AC);
        let src = fencing_scenario(&mut rng);
        let scenario = parse("random", &src).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
        let r = run(&scenario, seed, TraceLevel::Semantic).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let mut highest: Option<i64> = None;
        for e in &r.trace {
            match &e.kind {
                TraceKind::WriteAccepted { token, .. } => {
                    let t = token.unwrap_or_else(|| panic!("seed {seed}: write without a token accepted"));
                    assert!(
                        highest.is_none_or(|h| t > h),
                        "seed {seed}: accepted token {t} after {highest:?}\n{src}"
                    );
                    highest = Some(t);
                    accepted += 1;
                }
                TraceKind::WriteRejected { .. } => rejected += 1,
                _ => {}
            }
        }
    }
    // Not vacuous: the fence both let writes through and stopped some.
    assert!(
        accepted > 0 && rejected > 0,
        "accepted {accepted}, rejected {rejected}"
    );
}

//! §4's trade-off: the TTL moves cost between violations and time stuck after a crash,
//! the sweep's stale writes are the run's stale writes, and the log-normal work step
//! draws what its median and p99 say.

use lockstep::sim::checker::Property;
use lockstep::sim::scenario::{builtin, parse, DelaySpec, Scenario};
use lockstep::sim::sweep::ttl_tradeoff;
use lockstep::sim::{run, TraceLevel};

fn ttl_workers() -> Scenario {
    let Some(Ok(s)) = builtin("ttl-workers") else {
        panic!("ttl-workers parses")
    };
    s
}

/// The largest of the scenario's retry delays (ms): after a crash the next worker gets
/// in at most this long after the key expires.
fn max_retry_delay_ms(s: &Scenario) -> f64 {
    s.clients
        .iter()
        .filter_map(|c| match c.retry_delay_ms.as_ref()? {
            DelaySpec::Fixed(d) => Some(*d),
            DelaySpec::Range([_, hi]) => Some(*hi),
        })
        .fold(0.0, f64::max)
}

#[test]
fn a_longer_ttl_trades_violations_for_time_stuck_after_a_crash() {
    let s = ttl_workers();
    assert_eq!(s.clients.len(), 20, "the syllabus asks for 20 workers");
    assert_eq!(s.sweep_ttl_ms.first(), Some(&300.0));
    assert_eq!(s.sweep_ttl_ms.last(), Some(&30_000.0));
    for seed in [1, 7] {
        let rows = ttl_tradeoff(&s, seed, &[300.0, 3_200.0, 30_000.0]).expect("runs");
        let (short, mid, long) = (&rows[0], &rows[1], &rows[2]);
        assert!(
            short.violations > 10,
            "seed {seed}: TTL 300 under a 200 ms median: {short:?}"
        );
        assert!(
            short.violations > mid.violations,
            "seed {seed}: {short:?} vs {mid:?}"
        );
        assert_eq!(
            long.violations, 0,
            "seed {seed}: TTL 30 000 outlasts every job: {long:?}"
        );
        // Every job ends with a write: a job that outlives its key writes stale.
        assert!(
            short.stale_writes > 10,
            "seed {seed}: TTL 300 under a 200 ms median: {short:?}"
        );
        assert!(
            short.stale_writes > mid.stale_writes,
            "seed {seed}: {short:?} vs {mid:?}"
        );
        assert_eq!(long.stale_writes, 0, "seed {seed}: {long:?}");
        let stuck = |p: &lockstep::sim::sweep::TtlPoint| p.stuck_ms.expect("W20 crashed holding the lock");
        assert!(
            stuck(short) < 300.0 + max_retry_delay_ms(&s),
            "seed {seed}: {short:?}"
        );
        assert!(
            stuck(long) > 29_000.0,
            "seed {seed}: the key outlives the crash by ~TTL: {long:?}"
        );
        assert!(
            !long.stuck_to_end,
            "the run lasts past the TTL, so someone gets in again"
        );
        assert!(
            short.jobs > long.jobs,
            "a stuck lock costs throughput: {short:?} vs {long:?}"
        );
    }
}

/// The sweep's stale writes at a TTL are the `stale_write` violations of a plain run of
/// the scenario at that TTL, and each of them is a write that reached the resource a
/// TTL or more after its writer got the lock; a TTL longer than any job gives none.
#[test]
fn stale_writes_are_writes_that_outlived_the_writers_key() {
    let s = ttl_workers();
    let ttls = [300.0, 500.0, 800.0, 30_000.0];
    let rows = ttl_tradeoff(&s, 1, &ttls).expect("runs");
    for (row, &ttl) in rows.iter().zip(&ttls) {
        let mut at = s.clone();
        for c in &mut at.clients {
            c.ttl_ms = ttl;
        }
        let r = run(&at, 1, TraceLevel::Semantic).expect("runs");
        let stale: Vec<_> = r
            .outcome
            .violations
            .iter()
            .filter(|v| v.property() == Some(Property::StaleWrite))
            .collect();
        assert_eq!(row.stale_writes, stale.len(), "TTL {ttl}: {row:?}");
        // Each accepted write against the time since its writer last got the lock: a
        // stale one came at least a TTL later (less the 1 ms trip and 1 ms service of
        // the SET before the reply), a fresh one less than a TTL later.
        let mut lapsed = 0;
        for w in &r.outcome.accepted_writes {
            let got = r
                .outcome
                .holds
                .iter()
                .filter(|h| h.client == w.client && h.from_ms <= w.at_ms)
                .map(|h| h.from_ms)
                .fold(f64::NEG_INFINITY, f64::max);
            let elapsed = w.at_ms - got;
            let is_stale = stale
                .iter()
                .any(|v| v.clients == [w.client.clone()] && v.from_ms == w.at_ms);
            if is_stale {
                lapsed += 1;
                assert!(elapsed >= ttl - 3.0, "TTL {ttl}: {w:?} {elapsed} ms after");
            } else {
                assert!(elapsed < ttl, "TTL {ttl}: {w:?} {elapsed} ms after, not stale");
            }
        }
        assert_eq!(
            lapsed,
            stale.len(),
            "TTL {ttl}: every stale write is an accepted write"
        );
    }
    assert!(rows[0].stale_writes > 10, "{:?}", rows[0]);
    assert_eq!(rows[3].stale_writes, 0, "{:?}", rows[3]);
    // The figure is not the overlaps under another name.
    assert!(rows.iter().any(|p| p.stale_writes != p.overlaps), "{rows:?}");
}

#[test]
fn log_normal_work_has_the_median_and_p99_it_names() {
    let s = parse(
        "w.toml",
        r#"
name = "w"
end_ms = 3600000
[[nodes]]
name = "redis"
[[clients]]
name = "A"
algorithm = "set-nx"
nodes = ["redis"]
ttl_ms = 100000
repeat = 2000
work = ["sleep 200~800"]
"#,
    )
    .expect("parses");
    let r = run(&s, 3, TraceLevel::Semantic).expect("runs");
    let mut d: Vec<f64> = r.outcome.holds.iter().map(|h| h.to_ms - h.from_ms).collect();
    assert!(d.len() >= 1_900, "{} jobs", d.len());
    d.sort_by(f64::total_cmp);
    let at = |q: f64| d[((d.len() - 1) as f64 * q) as usize];
    // Each hold is the work plus a release round trip of a few ms.
    assert!((180.0..230.0).contains(&at(0.5)), "median {}", at(0.5));
    assert!((650.0..1_000.0).contains(&at(0.99)), "p99 {}", at(0.99));
}

#[test]
fn bad_work_times_name_the_field() {
    for (step, says) in [
        ("sleep 800~200", "MEDIAN ≤ P99"),
        ("sleep 0~5", "0 < MEDIAN"),
        ("sleep x~5", "not a step"),
    ] {
        let src = format!(
            "name = \"w\"\n[[nodes]]\nname = \"redis\"\n[[clients]]\nname = \"A\"\nalgorithm = \"set-nx\"\nnodes = [\"redis\"]\nwork = [\"{step}\"]\n"
        );
        let e = parse("w.toml", &src).expect_err(step).to_string();
        assert!(
            e.contains("clients[0].work[0]") && e.contains(says),
            "{step}: {e}"
        );
    }
}

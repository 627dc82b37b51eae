//! §4's trade-off: the TTL moves cost between violations and time stuck after a crash,
//! and the log-normal work step draws what its median and p99 say.

use lockstep::sim::scenario::{builtin, parse};
use lockstep::sim::sweep::ttl_tradeoff;
use lockstep::sim::{run, TraceLevel};

#[test]
fn a_longer_ttl_trades_violations_for_time_stuck_after_a_crash() {
    let Some(Ok(s)) = builtin("ttl-workers") else {
        panic!("ttl-workers parses")
    };
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
        let stuck = |p: &lockstep::sim::sweep::TtlPoint| p.stuck_ms.expect("W20 crashed holding the lock");
        assert!(stuck(short) < 300.0 + 400.0, "seed {seed}: {short:?}");
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

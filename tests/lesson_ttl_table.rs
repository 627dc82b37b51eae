//! §4's table of TTLs (overlaps, stale writes, time stuck after the crash, jobs done) in
//! content/en/04-ttl.md and content/nb/04-ttl.md is the simulator's own sweep: the same
//! `ttl_tradeoff` the page's table runs, for `ttl-workers` at seed 1 (what a first visit
//! shows). A differing cell fails with its file, line, row and column.
//! `LOCKSTEP_BLESS=1 cargo test --test lesson_ttl_table` rewrites the tables instead.

use lockstep::lesson::content::Lang;
use lockstep::lesson::i18n::{k, Texts};
use lockstep::sim::scenario::builtin;
use lockstep::sim::sweep::{ttl_tradeoff, TtlPoint};

/// The seed of a first visit, and of the table in the text.
const SEED: u64 = 1;

struct Table {
    file: &'static str,
    lang: Lang,
    /// The header row that marks the table in the file.
    header: &'static str,
    columns: [&'static str; COLUMNS],
}

const COLUMNS: usize = 5;

const TABLES: [Table; 2] = [
    Table {
        file: "content/en/04-ttl.md",
        lang: Lang::En,
        header: "| TTL (ms) | overlaps | stale writes | lock stuck after the crash | jobs done |",
        columns: [
            "TTL (ms)",
            "overlaps",
            "stale writes",
            "lock stuck after the crash",
            "jobs done",
        ],
    },
    Table {
        file: "content/nb/04-ttl.md",
        lang: Lang::Nb,
        header: "| TTL (ms) | overlapp | foreldede skrivinger | låsen henger etter krasjet | jobber gjort |",
        columns: [
            "TTL (ms)",
            "overlapp",
            "foreldede skrivinger",
            "låsen henger etter krasjet",
            "jobber gjort",
        ],
    },
];

/// 30000 → "30 000", as the lesson writes numbers in both languages.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

fn cells(p: &TtlPoint, lang: Lang) -> [String; COLUMNS] {
    let tx = Texts::new(lang);
    let stuck = match p.stuck_ms {
        None => tx.t(k::TT_NO_CRASH),
        Some(ms) if p.stuck_to_end => tx.fmt(k::TT_UNTIL_END, &[("ms", grouped(ms.round() as u64))]),
        Some(ms) => format!("{} ms", grouped(ms.round() as u64)),
    };
    [
        grouped(p.ttl_ms.round() as u64),
        p.overlaps.to_string(),
        p.stale_writes.to_string(),
        stuck,
        p.jobs.to_string(),
    ]
}

fn sweep() -> Vec<TtlPoint> {
    let Some(Ok(s)) = builtin("ttl-workers") else {
        panic!("ttl-workers parses")
    };
    ttl_tradeoff(&s, SEED, &s.sweep_ttl_ms).expect("the sweep runs")
}

/// The table's rows as Markdown, the header and alignment rows first.
fn markdown(t: &Table, points: &[TtlPoint]) -> Vec<String> {
    let mut out = vec![t.header.to_string(), format!("|{}", "---:|".repeat(COLUMNS))];
    for p in points {
        out.push(format!("| {} |", cells(p, t.lang).join(" | ")));
    }
    out
}

/// Where the table is: the header's line index and the index after its last row.
fn locate(t: &Table, text: &str) -> Result<(usize, usize), String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim() == t.header)
        .ok_or_else(|| format!("{}: no table with the header `{}`", t.file, t.header))?;
    let end = (start..lines.len())
        .find(|&i| !lines[i].trim_start().starts_with('|'))
        .unwrap_or(lines.len());
    Ok((start, end))
}

/// Every cell of the file's table that differs from the simulator's: one message each.
fn differences(t: &Table, text: &str, points: &[TtlPoint]) -> Vec<String> {
    let (start, end) = match locate(t, text) {
        Ok(at) => at,
        Err(e) => return vec![e],
    };
    let lines: Vec<&str> = text.lines().collect();
    let rows = &lines[(start + 2).min(end)..end];
    let mut out = Vec::new();
    if rows.len() != points.len() {
        out.push(format!(
            "{}:{}: the table has {} rows, the sweep {} TTLs",
            t.file,
            start + 1,
            rows.len(),
            points.len()
        ));
    }
    for (i, (row, p)) in rows.iter().zip(points).enumerate() {
        let line = start + 3 + i;
        let got: Vec<&str> = row.trim().trim_matches('|').split('|').map(str::trim).collect();
        let want = cells(p, t.lang);
        for (c, column) in t.columns.iter().enumerate() {
            let g = got.get(c).copied().unwrap_or("(missing)");
            if g != want[c] {
                out.push(format!(
                    "{}:{line}: row TTL {}, column «{column}»: the text says «{g}», the simulator «{}»",
                    t.file, want[0], want[c]
                ));
            }
        }
    }
    out
}

fn bless(t: &Table, text: &str, points: &[TtlPoint]) -> Result<String, String> {
    let (start, end) = locate(t, text)?;
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.splice(start..end, markdown(t, points));
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

#[test]
fn the_ttl_table_in_section_4_is_what_the_simulator_computes() {
    let points = sweep();
    let root = env!("CARGO_MANIFEST_DIR");
    let blessing = std::env::var("LOCKSTEP_BLESS").is_ok_and(|v| v == "1");
    let mut report = Vec::new();
    for t in &TABLES {
        let path = format!("{root}/{}", t.file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", t.file));
        if blessing {
            let new = bless(t, &text, &points).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(&path, new).unwrap_or_else(|e| panic!("{}: {e}", t.file));
        } else {
            report.extend(differences(t, &text, &points));
        }
    }
    assert!(
        report.is_empty(),
        "§4's table is out of date ({} cells); LOCKSTEP_BLESS=1 cargo test --test lesson_ttl_table rewrites it:\n{}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn the_table_shows_the_trade_off_it_is_there_to_show() {
    let points = sweep();
    let first = points.first().expect("rows");
    let last = points.last().expect("rows");
    // Short TTLs break exclusion, often; the longest never does.
    assert!(first.overlaps > 10, "{first:?}");
    assert_eq!(last.overlaps, 0, "{last:?}");
    // So do the stale writes: a slow job's result lands after its key has gone.
    assert!(first.stale_writes > 10, "{first:?}");
    assert_eq!(last.stale_writes, 0, "{last:?}");
    // Both fall as the TTL grows, and are different ones of the checker's violations.
    for w in points.windows(2) {
        assert!(w[0].overlaps >= w[1].overlaps, "{w:?}");
        assert!(w[0].stale_writes >= w[1].stale_writes, "{w:?}");
    }
    for p in &points {
        assert!(p.overlaps + p.stale_writes <= p.violations, "{p:?}");
    }
    // A crash costs little at the shortest TTL and blocks for longer at every step up.
    for w in points.windows(2) {
        assert!(w[0].stuck_ms < w[1].stuck_ms, "{w:?}");
    }
    // The lock stays stuck about a TTL after the crash at the longest TTL.
    assert!(last.stuck_ms.is_some_and(|ms| ms > 29_000.0), "{last:?}");
}

#[test]
fn a_wrong_cell_is_named_by_file_line_row_and_column() {
    let points = sweep();
    let t = &TABLES[0];
    let mut rows = markdown(t, &points);
    // Change the overlaps of the third TTL.
    let mut cells: Vec<String> = rows[4].split('|').map(str::to_string).collect();
    cells[2] = " 999 ".to_string();
    rows[4] = cells.join("|");
    let text = format!("intro\n\n{}\n\nafter\n", rows.join("\n"));
    let found = differences(t, &text, &points);
    let ttl = grouped(points[2].ttl_ms as u64);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(&format!(
            "{}:7: row TTL {ttl}, column «overlaps»: the text says «999»",
            t.file
        )),
        "{}",
        found[0]
    );
    // Blessing puts the simulator's figures back, and the text around stays.
    let fixed = bless(t, &text, &points).expect("table found");
    assert!(differences(t, &fixed, &points).is_empty());
    assert!(fixed.starts_with("intro\n\n") && fixed.ends_with("\n\nafter\n"));
    // No table at all is an error, not a pass.
    assert_eq!(differences(t, "no table here\n", &points).len(), 1);
    assert_eq!(grouped(30_000), "30 000");
    assert_eq!(grouped(800), "800");
}

//! The labs' wires are declared once, in Rust: the simulator ↔ harness channel
//! (`sim::lab::{ToHarness, FromHarness, Watch}`), the page ↔ sandbox one
//! (`sim::lab::frame::{ToSandbox, FromSandbox}`) and the live host's
//! (`sim::lab::live::{TO_LIVE_HOST, FROM_LIVE_HOST}`). The JavaScript that speaks them is
//! checked against those declarations here: each dispatch table (an object literal
//! marked `/* wire: <Type> */`, keyed by message name) handles exactly the names its
//! channel declares, every message name the JavaScript writes or compares is one its
//! channel declares, and docs/labs.md documents each.

use lockstep::sim::lab::frame::{FromSandbox, ToSandbox};
use lockstep::sim::lab::live::{FROM_LIVE_HOST, TO_LIVE_HOST};
use lockstep::sim::lab::{FromHarness, ToHarness, Watch};
use std::collections::BTreeSet;
use std::path::Path;

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Skips a string, template or comment starting at `i` (a quote or `/`); the index after
/// it, or `None` when `i` starts none of them.
fn skip_literal(b: &[u8], i: usize) -> Option<usize> {
    let c = *b.get(i)?;
    match c {
        b'\'' | b'"' | b'`' => {
            let mut j = i + 1;
            while j < b.len() && b[j] != c {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            Some(j + 1)
        }
        b'/' if b.get(i + 1) == Some(&b'/') => {
            Some(b[i..].iter().position(|&x| x == b'\n').map_or(b.len(), |n| i + n))
        }
        b'/' if b.get(i + 1) == Some(&b'*') => Some(text_find(b, i + 2, b"*/").map_or(b.len(), |n| n + 2)),
        _ => None,
    }
}

fn text_find(b: &[u8], from: usize, what: &[u8]) -> Option<usize> {
    (from..b.len().saturating_sub(what.len() - 1)).find(|&k| b[k..].starts_with(what))
}

/// The keys of each object literal marked `/* wire: <Type> */` in `text`: (type, keys).
fn tables(text: &str) -> Vec<(String, BTreeSet<String>)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text_find(b, from, b"/* wire: ") {
        let name_end = text_find(b, at, b" */").expect("the marker ends");
        let ty = text[at + 9..name_end].to_string();
        let open = name_end
            + 3
            + text[name_end + 3..]
                .find('{')
                .expect("a table follows its marker");
        let mut keys = BTreeSet::new();
        let (mut depth, mut i, mut expect_key) = (0usize, open, false);
        while i < b.len() {
            if let Some(next) = skip_literal(b, i) {
                i = next;
                continue;
            }
            match b[i] {
                b'{' | b'(' | b'[' => {
                    depth += 1;
                    expect_key = depth == 1 && b[i] == b'{';
                }
                b'}' | b')' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' if depth == 1 => expect_key = true,
                c if depth == 1 && expect_key && (c.is_ascii_alphabetic() || c == b'_') => {
                    let end = (i..b.len())
                        .find(|&k| !(b[k].is_ascii_alphanumeric() || b[k] == b'_'))
                        .unwrap_or(b.len());
                    keys.insert(text[i..end].to_string());
                    expect_key = false;
                    i = end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        assert!(depth == 0, "{ty}'s table ends");
        out.push((ty, keys));
        from = open;
    }
    out
}

/// Every message name `text` writes (`type: 'x'`) and compares (`type === 'x'`,
/// `type !== 'x'`), outside comments.
fn names_used(text: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//") && !l.trim_start().starts_with('*'))
        .collect::<Vec<_>>()
        .join("\n");
    let grab = |pattern: &str| -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        for quote in ['\'', '"'] {
            let needle = format!("{pattern}{quote}");
            let mut rest = code.as_str();
            while let Some(at) = rest.find(&needle) {
                let after = &rest[at + needle.len()..];
                let end = after.find(quote).expect("the name's quote closes");
                let name = &after[..end];
                // `typeof msg.type === 'string'` asks what a value is, not which message;
                // a Blob's `{ type: 'text/javascript' }` is no message either.
                let path =
                    rest[..at].trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.');
                let message = name.bytes().all(|c| c.is_ascii_lowercase() || c == b'_');
                if message && !path.ends_with("typeof ") {
                    found.insert(name.to_string());
                }
                rest = &after[end..];
            }
        }
        found
    };
    let written = grab("type: ");
    let mut compared = grab("type === ");
    compared.extend(grab("type !== "));
    (written, compared)
}

fn subset(what: &str, found: &BTreeSet<String>, declared: &BTreeSet<String>) {
    let stray: Vec<&String> = found.difference(declared).collect();
    assert!(
        stray.is_empty(),
        "{what}: {stray:?} is not declared ({declared:?})"
    );
}

#[test]
fn the_harness_handles_exactly_what_the_simulator_sends_and_answers_as_declared() {
    let js = read("labs/harness.js");
    let tables = tables(&js);
    assert_eq!(tables.len(), 1, "harness.js has one dispatch table: {tables:?}");
    assert_eq!(tables[0], ("ToHarness".to_string(), set(&ToHarness::NAMES)));
    let (written, compared) = names_used(&js);
    let mut answers = set(&FromHarness::NAMES);
    answers.extend(set(&Watch::NAMES));
    assert_eq!(
        written, answers,
        "harness.js writes every answer and watch it declares, and only those"
    );
    assert!(
        compared.is_empty(),
        "harness.js dispatches by its table only: {compared:?}"
    );
}

#[test]
fn the_sandbox_handles_exactly_what_the_page_sends_and_says_only_what_the_page_reads() {
    let html = read("labs/sandbox.html");
    let tables = tables(&html);
    assert_eq!(tables.len(), 2, "the frame's table and its worker's: {tables:?}");
    let mut handled = BTreeSet::new();
    // `port` is also the frame's own hand-over of the direct line to its worker.
    let mut accepted = set(&ToSandbox::NAMES);
    accepted.extend(set(&ToHarness::NAMES));
    accepted.insert(FromSandbox::Port.name().to_string());
    for (ty, keys) in &tables {
        assert_eq!(ty, "ToSandbox");
        subset("a sandbox.html table", keys, &accepted);
        handled.extend(keys.iter().cloned());
    }
    assert_eq!(
        handled, accepted,
        "between them, the frame and its worker handle every message"
    );
    let (written, compared) = names_used(&html);
    subset("sandbox.html writes", &written, &set(&FromSandbox::NAMES));
    assert!(
        written.contains("error") && written.contains("port"),
        "{written:?}"
    );
    assert!(
        compared.is_empty(),
        "sandbox.html dispatches by its tables only: {compared:?}"
    );
}

#[test]
fn the_node_host_and_the_test_pages_speak_only_declared_messages() {
    let mut sent = set(&ToHarness::NAMES);
    sent.extend(set(&TO_LIVE_HOST));
    sent.extend(set(&ToSandbox::NAMES));
    let mut answered = set(&FromHarness::NAMES);
    answered.extend(set(&FROM_LIVE_HOST));
    let (written, compared) = names_used(&read("labs/node-host.mjs"));
    subset("node-host.mjs writes", &written, &answered);
    subset("node-host.mjs compares", &compared, &sent);
    assert!(compared.contains("res_reply") && compared.contains("live") && written.contains("live_done"));
    // The test pages talk to the harness (selftest.mjs, through the Node host) or to the
    // sandbox (browsertest.mjs), which also hands over its line with `port`.
    answered.extend(set(&FromSandbox::NAMES));
    for script in ["labs/browsertest.mjs", "labs/selftest.mjs"] {
        let (written, compared) = names_used(&read(script));
        subset(script, &written, &sent);
        // They compare what they get, and what they are about to send.
        let either: BTreeSet<String> = answered.union(&sent).cloned().collect();
        subset(script, &compared, &either);
        assert!(!written.is_empty(), "{script} sends messages");
    }
}

#[test]
fn docs_labs_documents_every_message() {
    let doc = read("docs/labs.md");
    let all = [
        &ToHarness::NAMES[..],
        &FromHarness::NAMES[..],
        &Watch::NAMES[..],
        &ToSandbox::NAMES[..],
        &FromSandbox::NAMES[..],
        &TO_LIVE_HOST[..],
        &FROM_LIVE_HOST[..],
    ];
    for name in all.iter().flat_map(|n| n.iter()) {
        assert!(
            doc.contains(&format!("\"type\":\"{name}\"")),
            "docs/labs.md does not document `{name}`"
        );
    }
}

/// The readers above, on a made-up file: a marked table's keys at its top level only (not
/// a nested object's, a string's or a comment's), and the names written and compared.
#[test]
fn the_readers_find_what_a_file_declares() {
    let js = r#"
        const skip = { nope: 1 };
        const t = /* wire: ToHarness */ {
          init: (m) => f({ inner: 1 }, '}'),
          // note: a comment
          run(msg) { if (x) { return { type: 'ready' }; } },
          'quoted': 1,
          input: g,
        };
        if (msg.type === 'live' && typeof msg.type === 'string') send({ type: "res" });
        new Blob([], { type: 'text/javascript' });
        // type: 'commented'
    "#;
    let found = tables(js);
    assert_eq!(
        found,
        vec![("ToHarness".to_string(), set(&["init", "run", "input"]))]
    );
    let (written, compared) = names_used(js);
    assert_eq!(written, set(&["ready", "res"]));
    assert_eq!(compared, set(&["live"]));
}

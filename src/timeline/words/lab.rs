//! A lab's results in words, in the reader's language: the learner's code failing ([`code_error`]),
//! the attacks, the checks and the violations. The lab panel (`ui::lab`) shows these;
//! the command line keeps its English texts.

use super::reason::coded;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Key, Texts};
use crate::sim::checker::Violation;
use crate::sim::lab::{CodeError, LabAttack, LabAttackOp, StallPoint};

/// What went wrong with the learner's code, in `lang`: our words when the harness, the
/// driver or the simulator said it as a code, the JavaScript engine's text otherwise.
pub fn code_error(e: &CodeError, lang: Lang) -> String {
    e.coded
        .as_deref()
        .and_then(|c| coded(c, lang))
        .unwrap_or_else(|| e.message.clone())
}

/// "2nd" in English, "2." in Norwegian.
pub fn ordinal(n: u32, lang: Lang) -> String {
    match lang {
        Lang::Nb => format!("{n}."),
        _ => {
            let s = match (n % 10, n % 100) {
                (1, 11) | (2, 12) | (3, 13) => "th",
                (1, _) => "st",
                (2, _) => "nd",
                (3, _) => "rd",
                _ => "th",
            };
            format!("{n}{s}")
        }
    }
}

/// What a check says: its rule when it held ("no release deleted another worker's
/// lock"), what happened when it broke ("a release deleted another worker's lock").
pub fn check(name: &str, held: bool, lang: Lang) -> String {
    Texts::new(lang).t_named(&format!("lab_{}_{name}", if held { "check" } else { "broke" }))
}

fn ms_text(us: u64) -> String {
    format!("{}", us / 1000)
}

/// An attack of a trial: "Attack: A stalls for 700 ms just before its 2nd command."
pub fn attack(a: &LabAttack, names: &[String], lang: Lang) -> String {
    let t = Texts::new(lang);
    let who = names.get(a.worker as usize).cloned().unwrap_or_default();
    let nth = ordinal(a.command, lang);
    let at_key = match a.at {
        StallPoint::Command => k::LAB_AT_COMMAND,
        StallPoint::Timer => k::LAB_AT_TIMER,
        StallPoint::Reply => k::LAB_AT_REPLY,
    };
    let at = t.fmt(at_key, &[("nth", nth)]);
    match &a.op {
        LabAttackOp::Pause { for_us } => t.fmt(
            k::LAB_ATTACK_PAUSE,
            &[("who", who), ("at", at), ("ms", ms_text(*for_us))],
        ),
        LabAttackOp::Crash { restart_after_us } => t.fmt(
            k::LAB_ATTACK_CRASH,
            &[
                ("who", who),
                ("at", at),
                ("ms", ms_text(restart_after_us.unwrap_or(0))),
            ],
        ),
        LabAttackOp::NodeDown { node, at_us } => t.fmt(
            k::LAB_ATTACK_NODE_DOWN,
            &[("node", (node + 1).to_string()), ("ms", ms_text(*at_us))],
        ),
    }
}

/// A violation of a lab's check in a sentence (`lab_v_<kind>`, or `lab_v_<kind>_one`
/// when one worker alone broke it: a hold no majority backed, a stale write that
/// overwrote nobody's); the checker's English detail for a kind without words.
pub fn violation(v: &Violation, lang: Lang) -> String {
    let t = Texts::new(lang);
    let a = v.clients.first().cloned().unwrap_or_default();
    let b = v.clients.get(1).cloned().unwrap_or_default();
    let one = Key::named(&format!("lab_v_{}_one", v.kind)).filter(|_| v.clients.len() == 1);
    let Some(key) = one.or_else(|| Key::named(&format!("lab_v_{}", v.kind))) else {
        return v.detail.clone();
    };
    t.fmt(
        key,
        &[
            ("a", a),
            ("b", b),
            ("from", format!("{:.0}", v.from_ms)),
            ("to", format!("{:.0}", v.to_ms)),
        ],
    )
}

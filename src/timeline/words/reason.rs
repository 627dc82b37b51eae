//! Why, in the reader's language: a reason the simulator gave ([`Reason`]), and what the
//! harness, a lab's driver or the simulator said as a code ([`Coded`]): the words of its
//! code, with its data in their placeholders. The two call each other (a coded message
//! may carry a reason, and a reason may be a coded message), so they live together.

use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Key, Texts};
use crate::sim::fact::{Coded, Reason};

/// The words of `coded` in `lang` (`lab_msg_<code>` with its data), or `None` when we
/// have no words for its code or its data lacks one of their placeholders (a pack's
/// driver may send codes of its own): then its English text is shown.
pub fn coded(c: &Coded, lang: Lang) -> Option<String> {
    let tx = Texts::new(lang);
    let key = Key::named(&format!("lab_msg_{}", c.code))?;
    let template = tx.t(key);
    let mut rest = template.as_str();
    while let Some(open) = rest.find('{') {
        let after = rest.get(open + 1..).unwrap_or("");
        let Some(close) = after.find('}') else { break };
        let name = after.get(..close).unwrap_or("");
        let is_name = !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
        if is_name && !c.data.contains_key(name) {
            return None;
        }
        rest = after.get(close + 1..).unwrap_or("");
    }
    let args: Vec<(&str, String)> = c
        .data
        .iter()
        .map(|(k, v)| {
            // A resource's refusal passed on by a driver: a reason in its JSON words.
            let v = if k == "reason" {
                reason(&Reason::from_json_text(v), lang)
            } else {
                v.clone()
            };
            (k.as_str(), v)
        })
        .collect();
    Some(tx.fmt(key, &args))
}

/// A reason the simulator gave (a [`Reason`]), in `lang`. Words someone else wrote (a
/// lab driver's) stay as they are, unless it gave them as a code we have words for.
pub fn reason(r: &Reason, lang: Lang) -> String {
    let tx = Texts::new(lang);
    let f = |key: Key, args: &[(&str, String)]| tx.fmt(key, args);
    match r {
        Reason::Partitioned => tx.t(k::WHY_PARTITIONED),
        Reason::Lost => tx.t(k::WHY_LOST),
        Reason::ReceiverDown => tx.t(k::WHY_RECEIVER_DOWN),
        Reason::Crashed => tx.t(k::WHY_CRASHED),
        Reason::ValidityEnded => tx.t(k::WHY_VALIDITY_ENDED),
        Reason::RenewalReturned0 => tx.t(k::WHY_RENEWAL_0),
        Reason::ExtensionFailed => tx.t(k::WHY_ABORT),
        Reason::LockTaken => tx.t(k::WHY_TAKEN),
        Reason::ValidityAlreadyOver => tx.t(k::WHY_VALIDITY_OVER),
        Reason::NoQuorumInRetryWindow => tx.t(k::WHY_NO_QUORUM),
        Reason::WaitAcked { acked, want } => f(
            k::WHY_WAIT,
            &[("k", acked.to_string()), ("want", want.to_string())],
        ),
        // Redis's reply, as redis-cli prints it.
        Reason::WaitReply { reply } => format!("WAIT: {reply}"),
        Reason::NoValidity {
            validity_ms,
            elapsed_ms,
        } => f(
            k::WHY_VALIDITY,
            &[
                ("v", validity_ms.to_string()),
                ("elapsed", elapsed_ms.to_string()),
            ],
        ),
        Reason::Nodes { ok, all } => f(k::WHY_NODES, &[("ok", ok.to_string()), ("all", all.to_string())]),
        Reason::StaleToken {
            token,
            highest,
            equal_allowed,
        } => f(
            k::WHY_TOKEN,
            &[
                ("t", token.to_string()),
                ("op", if *equal_allowed { "<" } else { "≤" }.to_string()),
                ("h", highest.to_string()),
            ],
        ),
        Reason::NoFencingToken => tx.t(k::WHY_NO_TOKEN),
        Reason::IdempotencyUsed { key } => f(k::WHY_IDEMPOTENCY, &[("k", key.clone())]),
        Reason::IdempotencyInProgress { key, until_ms } => f(
            k::WHY_IDEM_IN_PROGRESS,
            &[("k", key.clone()), ("until", until_ms.to_string())],
        ),
        Reason::NotAResource => tx.t(k::WHY_NOT_RESOURCE),
        Reason::Expected { key, seen, want } => f(
            k::WHY_EXPECTED,
            &[
                ("key", key.clone()),
                ("seen", seen.clone().unwrap_or_else(|| tx.t(k::EV_NOTHING))),
                ("want", want.clone()),
            ],
        ),
        Reason::Said(s) => s.clone(),
        Reason::Coded { text, coded } => self::coded(coded, lang).unwrap_or_else(|| text.clone()),
    }
}

//! The panels a lesson's Markdown draws in place of a fenced block that names one:
//! ```scenario, ```guide and ```console. A ```lab block is drawn where labs are known
//! (a section, `section.rs`): a lab renders its own goal with these panels.

use super::GuideView;
use crate::lesson::content::Lang;
use yew::prelude::*;

/// The panel the fenced block `block` (its language) with `code` names, or `None` if it
/// names none (`markdown::Panels`).
pub fn block_panel(block: &str, code: &str, lang: Lang) -> Option<Html> {
    Some(match block {
        // ```scenario blocks name built-in scenarios to play here; ```console opens §2's
        // Redis console.
        "scenario" => {
            let names: Vec<String> = code.split_whitespace().map(str::to_string).collect();
            // Keyed by its scenarios: moving to another section must start that section's
            // panel afresh, not hand new names to the old panel (whose state would keep
            // the old section's scenario).
            let key = names.join(" ");
            html! { <crate::ui::scenario::ScenarioPanel {key} {names} {lang} /> }
        }
        "guide" => html! { <GuideView code={code.to_string()} {lang} /> },
        "console" => html! { <crate::ui::scenario::ConsoleExercise {lang} /> },
        _ => return None,
    })
}

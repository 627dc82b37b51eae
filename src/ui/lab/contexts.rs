//! What the page gives a lab panel as yew contexts: the learner's saved labs and how to
//! save ([`LabStore`]), and the loaded pack's own labs ([`PackLabs`]).

use crate::lesson::progress::{LabOutcome, LabProgress};
use crate::sim::lab::Lab;
use crate::vecmap::VecMap;
use std::rc::Rc;
use yew::Callback;

/// The labs' saved code and results (from the learner's progress), and how to save.
#[derive(Clone, PartialEq)]
pub struct LabStore {
    pub saved: Rc<VecMap<String, LabProgress>>,
    /// (lab id, code): the editor's code changed.
    pub on_code: Callback<(String, String)>,
    /// (lab id, how it went, the first check that broke): a run or session graded the
    /// code.
    pub on_run: Callback<(String, LabOutcome, Option<String>)>,
}

/// The loaded pack's own labs (`labs/<id>/` in the pack), with their driver and
/// solution: a `lab` block finds its lab here first, then among the built-in ones.
#[derive(Clone, Default)]
pub struct PackLabs(pub Rc<Vec<Lab>>);

impl PartialEq for PackLabs {
    /// One pack is loaded once: the same list, not an equal one, is the same context.
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// A lab by id: the pack's own (complete), or a built-in one (its driver and solution
/// fetched from `labs/` when needed).
pub(super) fn find_lab(id: &str, pack: Option<&PackLabs>) -> Option<Result<Lab, String>> {
    match pack.and_then(|p| p.0.iter().find(|l| l.id == id)) {
        Some(l) => Some(Ok(l.clone())),
        None => crate::labs::shown(id),
    }
}

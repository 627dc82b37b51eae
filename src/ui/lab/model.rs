//! The lab panel's state in yew: `timeline::lab_panel`'s reducer as a `Reducible`.

use crate::timeline::lab_panel::{LabAction, LabState};
use std::rc::Rc;
use yew::prelude::*;

/// The panel's state in a reducer (`timeline::lab_panel`, tested natively).
#[derive(Clone, PartialEq)]
pub(super) struct LabModel(pub(super) LabState);

impl Reducible for LabModel {
    type Action = LabAction;

    fn reduce(self: Rc<Self>, action: LabAction) -> Rc<Self> {
        Rc::new(LabModel(self.0.clone().reduce(action)))
    }
}

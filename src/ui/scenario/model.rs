//! The scenario panel's state in yew ([`PanelModel`]), and the [`Handle`] each part of the
//! panel gets to read it and dispatch actions.

use crate::timeline::panel::{PanelAction, PanelState};
use std::rc::Rc;
use yew::prelude::*;

/// `timeline::panel`'s state in yew: a new version on every action, which is what the
/// components compare (the state holds a run, too big to compare field by field).
pub struct PanelModel {
    pub state: PanelState,
    pub(super) version: u64,
    /// Its first run was made ahead of time (at build time, for the hand-over).
    pub(super) ahead: bool,
    /// The prerendered page's drawing of the panel, shown until its first run comes.
    pub(super) snapshot: Option<AttrValue>,
}

impl PartialEq for PanelModel {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
    }
}

impl Reducible for PanelModel {
    type Action = PanelAction;

    fn reduce(self: Rc<Self>, action: PanelAction) -> Rc<Self> {
        let state = self.state.clone().reduce(action);
        Rc::new(PanelModel {
            // The snapshot only stands in for the first run.
            snapshot: self
                .snapshot
                .clone()
                .filter(|_| state.model().is_none() && state.running()),
            ahead: self.ahead,
            state,
            version: self.version + 1,
        })
    }
}

/// What a part of the panel gets: the state, and a way to dispatch actions.
pub type Handle = UseReducerHandle<PanelModel>;

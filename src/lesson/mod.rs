//! The lesson as data: sections parsed from Markdown files, the route in the URL,
//! the learner's progress, and the reader's state machine.
//!
//! Plain Rust: nothing here knows the browser, so all of it is tested natively.
//! `ui` renders it.

pub mod boot_rules;
pub mod content;
pub mod docs;
pub mod embed;
pub mod generate;
pub mod guide;
pub mod highlight;
pub mod i18n;
pub mod lang;
pub mod markdown;
pub mod pack;
pub mod pack_cli;
pub mod progress;
pub mod quiz;
pub mod route;
pub mod section;
pub mod state;

pub use content::{Lang, Lesson, Section};

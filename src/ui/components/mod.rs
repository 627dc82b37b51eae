//! One component per file; props derive `Properties, PartialEq`.

mod code_block;
mod content_errors;
mod deferred;
mod guide;
mod lang_switch;
mod markdown;
mod notices;
mod pack_failed;
mod pager;
mod progress_page;
mod question;
mod quiz;
mod section;
mod share;
mod toc;

pub use code_block::CodeBlock;
pub use content_errors::ContentErrors;
pub use deferred::Deferred;
pub use guide::GuideView;
pub use lang_switch::LangSwitch;
pub use markdown::{doc, learn_trees, render, render_inline};
pub use notices::Notices;
pub use pack_failed::PackFailed;
pub use pager::Pager;
pub use progress_page::ProgressPage;
pub use quiz::Quiz;
pub use section::SectionView;
pub use share::ShareDialog;
pub use toc::Toc;

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
mod panels;
mod progress_page;
mod question;
mod quiz;
mod section;
mod share;
mod toc;

pub use code_block::CodeBlock;
pub use content_errors::{content_errors as content_errors_view, ContentErrorsProps};
pub use deferred::Deferred;
pub use guide::GuideView;
pub use lang_switch::{lang_switch as lang_switch_view, LangSwitchProps};
pub use markdown::{doc, learn_trees, render, render_inline};
pub use notices::{notices as notices_view, NoticesProps};
pub use pack_failed::{pack_failed as pack_failed_view, PackFailedProps};
pub use pager::{pager as pager_view, PagerProps};
pub use panels::block_panel;
pub use progress_page::ProgressPage;
pub use quiz::Quiz;
pub use section::SectionView;
pub use share::ShareDialog;
pub use toc::{toc as toc_view, TocProps};

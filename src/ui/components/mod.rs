//! One component per file; props derive `Properties, PartialEq`.

mod code_block;
mod content_errors;
mod lang_switch;
mod markdown;
mod notices;
mod pager;
mod section;
mod toc;

pub use code_block::CodeBlock;
pub use content_errors::ContentErrors;
pub use lang_switch::LangSwitch;
pub use notices::Notices;
pub use pager::Pager;
pub use section::SectionView;
pub use toc::Toc;

//! Lockstep: learn distributed locks and the Redlock algorithm, interactively.
//!
//! `store` and `sim` are plain Rust (no browser imports) and compile and test natively.
//! `ui` is the only module that knows the browser; it exists only on wasm32.

#[cfg(not(target_arch = "wasm32"))]
pub mod builtins;
pub mod calls;
pub mod decimal;
pub mod fnv;
pub mod json;
pub mod labs;
pub mod lesson;
#[cfg(not(target_arch = "wasm32"))]
pub mod lms;
pub mod sim;
pub mod sorting;
pub mod store;
pub mod text;
pub mod timeline;
pub mod toml_error;
pub mod vecmap;
pub mod wire;
pub mod xml;

#[cfg(target_arch = "wasm32")]
pub mod ui;

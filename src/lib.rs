//! Lockstep: learn distributed locks and the Redlock algorithm, interactively.
//!
//! `store` and `sim` are plain Rust (no browser imports) and compile and test natively.
//! `ui` is the only module that knows the browser; it exists only on wasm32.

/// Every wasm module's allocator: talc instead of std's dlmalloc, 2.7 to 2.8 KB gzip less
/// in the page's module and in the engine's (BENCHMARKS.md).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

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

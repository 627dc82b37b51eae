//! The authoring module: the engine's module with packs and Markdown (the `authoring`
//! feature: the TOML and Markdown readers, the pack loader), built by Trunk as a module
//! of its own (`index.html`).
//! The engine's worker starts a worker of its own around it (`static/engine-worker.js`,
//! the same script) only for a request `lockstep::calls::Request::for_authoring` names,
//! when an instructor's pack is opened, so a learner of the built-in lesson never
//! downloads it (ARCHITECTURE.md, "The engine, off the page").
//!
//! It imports no browser API: only `wasm-bindgen` to export `EngineJob`
//! (`common/engine_job.rs`).

#[cfg(target_arch = "wasm32")]
#[path = "common/engine_job.rs"]
mod engine_job;

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        eprintln!("`authoring` is the browser's authoring module (a worker): the command line is `lockstep`");
        std::process::exit(2);
    }
}

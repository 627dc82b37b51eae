//! The browser entry point that Trunk builds (`index.html` names this binary).

fn main() {
    #[cfg(target_arch = "wasm32")]
    lockstep::ui::start();
    #[cfg(not(target_arch = "wasm32"))]
    {
        eprintln!("`app` is the browser build of Lockstep: run `make serve` and open http://127.0.0.1:8080");
        std::process::exit(2);
    }
}

//! A bare yew hello world: the yardstick for the first-render benchmark
//! (`e2e/firstload.mjs`, run by `scripts/bench-all.sh` from `benches/hello/index.html`).
//! Built with the same release profile as the app, and served the same way.

#[cfg(target_arch = "wasm32")]
#[yew::function_component(Hello)]
fn hello() -> yew::Html {
    yew::html! { <p id="hello">{"Hello"}</p> }
}

fn main() {
    #[cfg(target_arch = "wasm32")]
    yew::Renderer::<Hello>::new().render();
    #[cfg(not(target_arch = "wasm32"))]
    {
        eprintln!("`hello` is a browser benchmark: see scripts/bench-all.sh");
        std::process::exit(2);
    }
}

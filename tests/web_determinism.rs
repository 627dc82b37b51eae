//! The browser against the native build: every built-in scenario's trace under seeds
//! 1..=5 hashes to what `tests/determinism.rs` recorded natively, and Lua's `pairs` visits
//! keys in the same order. Runs in headless Chromium and Firefox (`make test`).
#![cfg(target_arch = "wasm32")]

mod determinism_common;

use determinism_common::{pairs_order_in_process, trace_hashes, PAIRS_ORDER, RECORDED};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn every_builtin_trace_hashes_as_it_does_natively() {
    let here = trace_hashes();
    for (native, wasm) in RECORDED.lines().zip(here.lines()) {
        assert_eq!(wasm, native, "wasm trace differs from the native one");
    }
    assert_eq!(RECORDED.lines().count(), here.lines().count());
}

#[wasm_bindgen_test]
fn pairs_visits_keys_in_the_native_order() {
    assert_eq!(pairs_order_in_process(), PAIRS_ORDER);
}

//! Running the `lockstep` binary from a native test, shared by the test files that
//! check its subcommands end to end (`sim_cli.rs`, `pack.rs`, `pack_labs.rs`).

use std::process::Command;

/// Runs `lockstep args…`: (exited 0, stdout, stderr).
pub fn lockstep(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run lockstep: {e}"));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

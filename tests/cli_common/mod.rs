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

/// Copies the folder `from` (files and subfolders) to `to`.
#[allow(dead_code)] // not every test file that shares this module copies folders
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap_or_else(|e| panic!("{e}"));
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        }
    }
}

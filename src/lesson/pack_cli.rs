//! `lockstep check-pack <path>`: the logic behind the subcommand, so the binary stays a
//! thin argument parser. Validates a pack folder, its `pack.toml`, or a single-file pack
//! with exactly the checks the app runs.

use super::pack::load_dir;

/// `Ok(summary line)` for a valid pack; otherwise every mistake, one
/// `file:line: field: message` per entry, in the order found.
pub fn check_pack(path: &str) -> Result<String, Vec<String>> {
    match load_dir(path) {
        Ok(pack) => Ok(format!("{}\n", pack.summary())),
        Err(errors) => Err(errors.iter().map(ToString::to_string).collect()),
    }
}

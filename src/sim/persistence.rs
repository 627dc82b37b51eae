//! How a Redis node's data survives a restart (a scenario's `persistence = "…"`, and what a
//! restarted node comes back with, [`super::fact::Comeback::Disk`]).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Persistence {
    /// Restart empty.
    #[default]
    None,
    /// AOF with `appendfsync everysec`: restart with what was fsynced up to a second ago.
    Everysec,
    /// AOF with `appendfsync always`: restart with every acknowledged write.
    Always,
}

impl Persistence {
    pub const ALL: [Persistence; 3] = [Persistence::None, Persistence::Everysec, Persistence::Always];

    /// Its name in a scenario file (`persistence = "everysec"`) and in a link.
    pub fn code(self) -> &'static str {
        match self {
            Persistence::None => "none",
            Persistence::Everysec => "everysec",
            Persistence::Always => "always",
        }
    }

    pub fn from_code(code: &str) -> Option<Persistence> {
        Persistence::ALL.into_iter().find(|p| p.code() == code)
    }

    pub fn label(self) -> &'static str {
        match self {
            Persistence::None => "none",
            Persistence::Everysec => "aof-everysec",
            Persistence::Always => "aof-always",
        }
    }
}

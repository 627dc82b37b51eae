//! The simulator (lands with the simulator issue).

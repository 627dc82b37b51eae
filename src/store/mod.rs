//! The Redis-like store (lands with the store issue).

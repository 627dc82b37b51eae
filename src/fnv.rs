//! FNV-1a, 64 bits: the one stable hash of bytes (across runs, platforms and compiler
//! versions). The simulator derives sub-seeds with it (`sim::rng`), the lesson's text is
//! named and checked by it (`text`, and `build.rs`, which includes this file), and the
//! page keys the runs made ahead of time by it. It depends on nothing.

/// FNV-1a over `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_published_test_vectors_hold() {
        assert_eq!(super::fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(super::fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(super::fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }
}

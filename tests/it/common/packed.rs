//! Chunk values as laurel stores them (layout in src/ledger/chunk.rs), for
//! the tests that rewrite chunks behind its back.

/// The stored (packed) value of the LRC1 bytes `raw`.
pub fn pack(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let n = laurel::ledger::chunk::pack_into(raw, &mut out);
    out.truncate(n);
    out
}

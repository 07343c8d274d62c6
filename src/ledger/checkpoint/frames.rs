//! The zstd frames of checkpoint sections: whole, or with a parent's section
//! as prefix; and a section's bytes from its frames.

use crate::error::{Error, Result};

/// zstd's level, whole or delta: checkpoints are read back as fast whatever
/// the level, so the `checkpoints` thread's CPU matters more than their bytes.
const LEVEL: i32 = 1;

/// The smallest zstd window log that holds `n` bytes (prefix and frame).
fn window_log(n: usize) -> u32 {
    (usize::BITS - n.max(1 << 10).saturating_sub(1).leading_zeros()).min(30)
}

fn zstd_error(code: usize) -> Error {
    let name = zstd::zstd_safe::get_error_name(code);
    Error::Storage(format!("checkpoint: zstd: {name}"))
}

/// One zstd frame of `raw`, with `prefix` (a parent's same section) as the
/// prefix it may copy from.
pub(super) fn compress(raw: &[u8], prefix: Option<&[u8]>) -> Result<Vec<u8>> {
    use zstd::zstd_safe::{CCtx, CParameter};
    let mut cx = CCtx::create();
    cx.set_parameter(CParameter::CompressionLevel(LEVEL))
        .map_err(zstd_error)?;
    cx.set_parameter(CParameter::ChecksumFlag(true))
        .map_err(zstd_error)?;
    if let Some(p) = prefix {
        let log = window_log(p.len() + raw.len());
        cx.set_parameter(CParameter::WindowLog(log))
            .map_err(zstd_error)?;
        // Long-distance matching finds the parent's bytes however far back.
        cx.set_parameter(CParameter::EnableLongDistanceMatching(true))
            .map_err(zstd_error)?;
        cx.ref_prefix(p).map_err(zstd_error)?;
    }
    let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(raw.len()));
    cx.compress2(&mut out, raw).map_err(zstd_error)?;
    Ok(out)
}

/// The bytes of one frame of exactly `len` bytes, compressed with `prefix`,
/// into `out` (cleared first, its memory reused: see [`unpack`]); `false` if
/// the frame is not that (damaged, another prefix, another length).
fn decompress_into(out: &mut Vec<u8>, stored: &[u8], prefix: Option<&[u8]>, len: u64) -> bool {
    use zstd::zstd_safe::{DCtx, DParameter};
    // A section is at most a few times the ledger; refuse absurd lengths.
    let Some(len) = usize::try_from(len).ok().filter(|&n| n <= 1 << 34) else {
        return false;
    };
    // The frame says how long it is (every frame is written whole): a length
    // it does not say is damage, not a buffer to reserve.
    if !matches!(zstd::zstd_safe::get_frame_content_size(stored), Ok(Some(n)) if n == len as u64) {
        return false;
    }
    out.clear();
    out.reserve(len);
    let mut dx = DCtx::create();
    if dx.set_parameter(DParameter::WindowLogMax(31)).is_err() {
        return false;
    }
    if let Some(p) = prefix {
        if dx.ref_prefix(p).is_err() {
            return false;
        }
    }
    matches!(dx.decompress(out, stored), Ok(n) if n == len && out.len() == len)
}

/// One section's stored frames along a chain, whole checkpoint first, each
/// with its uncompressed length.
pub(crate) type Frames = Vec<(Vec<u8>, u64)>;

/// A section's bytes from its frames: each decompressed with the one before as
/// prefix, into two buffers used in turn (the first touches of fresh pages are
/// a good part of a query's CPU); `None` if a frame is not exactly that.
pub(crate) fn unpack(frames: Frames) -> Option<Vec<u8>> {
    let (mut raw, mut spare): (Option<Vec<u8>>, Vec<u8>) = (None, Vec::new());
    for (stored, len) in &frames {
        if !decompress_into(&mut spare, stored, raw.as_deref(), *len) {
            return None;
        }
        let next = std::mem::replace(&mut spare, raw.take().unwrap_or_default());
        raw = Some(next);
    }
    raw
}

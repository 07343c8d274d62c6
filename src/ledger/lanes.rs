//! BLAKE3 of many short inputs at once: the same hashes as [`blake3::hash`],
//! computed across inputs with the SIMD lanes BLAKE3 uses across chunks.
//!
//! Why: `verify` hashes two short inputs per record (the record's canonical
//! form and its event, for the content key). One short input is compressed a
//! 64-byte block at a time on one lane, much of `verify`'s CPU; across
//! records the blocks are independent, and `hash_many` (the routine `Hasher`
//! uses for whole chunks) compresses 4 to 16 of them per instruction. An
//! append cannot hash its records so (each holds the hash of the one before),
//! but a record's bytes up to that hash are known before it: its parser thread
//! compresses their whole blocks across lanes ([`Lanes::heads`]), and the
//! chaining thread finishes each record from that [`Midstate`].
//!
//! How: an input of up to [`MAX_LANE_CHUNKS`] chunks (1 KiB each) is split as
//! BLAKE3 defines it. Every whole chunk but the last, and the whole blocks of the
//! last chunk but its final block, go through `hash_many`, grouped by chunk
//! counter and block count (one call needs inputs of one length, one counter and
//! the IV as key). The final block of the last chunk is compressed alone with
//! `CHUNK_END` (and `ROOT` for a one-chunk input); chunk CVs of a longer input
//! are merged in BLAKE3's tree, left subtree = the largest power of two of chunks
//! that leaves at least one for the right. Longer inputs go to [`blake3::hash`].
//!
//! `hash_many` lives in `blake3::platform`, which blake3 marks unstable ("for
//! benchmarks only"); Cargo.toml pins blake3's exact version for it, and the unit
//! tests below compare every length up to 5 chunks with [`blake3::hash`].

use blake3::platform::Platform;
use blake3::IncrementCounter;

const BLOCK: usize = 64;
const CHUNK: usize = 1024;
/// Inputs of more chunks than this are hashed by [`blake3::hash`] (already
/// parallel across their chunks); records are far shorter.
pub const MAX_LANE_CHUNKS: usize = 8;

const IV: [u32; 8] = [
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
];
const CHUNK_START: u8 = 1;
const CHUNK_END: u8 = 2;
const PARENT: u8 = 4;
const ROOT: u8 = 8;

/// BLAKE3 partway through an input's first chunk: the chaining value after
/// its first `blocks` whole blocks, none of them the input's last ([`Lanes::heads`]
/// computes many across lanes, [`Midstate::hash`] finishes one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Midstate {
    cv: [u32; 8],
    blocks: u8,
}

impl Default for Midstate {
    /// Nothing compressed yet: [`Midstate::hash`] hashes its input whole.
    fn default() -> Self {
        Midstate { cv: IV, blocks: 0 }
    }
}

/// The most blocks a [`Midstate`] holds: all of a first chunk but its last
/// block. A midstate serves inputs of one chunk, whose last block is the
/// input's final one, compressed last with its own flags ([`Midstate::hash`]).
pub const HEAD_BLOCKS: usize = CHUNK / BLOCK - 1;

impl Midstate {
    /// `blake3::hash(input)`, where `input` begins with the bytes this
    /// midstate was made of: only the blocks after its own are compressed. An
    /// input longer than one chunk is hashed whole by [`blake3::hash`].
    pub fn hash(&self, platform: &Platform, input: &[u8]) -> [u8; 32] {
        let done = usize::from(self.blocks);
        if input.len() > CHUNK || input.len() <= done * BLOCK {
            return *blake3::hash(input).as_bytes();
        }
        let mut cv = self.cv;
        let whole = input.len().saturating_sub(1) / BLOCK;
        for b in done..whole {
            let block: &[u8; BLOCK] = input[b * BLOCK..(b + 1) * BLOCK]
                .try_into()
                .expect("a whole block");
            let start = if b == 0 { CHUNK_START } else { 0 };
            platform.compress_in_place(&mut cv, block, BLOCK as u8, 0, start);
        }
        let mut cvs = [cv];
        finish(platform, input, &mut cvs)
    }
}

/// Reusable state for hashing batch after batch without allocating again.
pub struct Lanes {
    platform: Platform,
    /// `groups[counter][blocks]`: the inputs whose piece for one `hash_many`
    /// call is chunk `counter`, `blocks` blocks long (16 = a whole non-final
    /// chunk); [`Lanes::heads`] uses `groups[0]` alone.
    groups: Vec<Vec<Vec<usize>>>,
    /// Where each input's chunk CVs start in `cvs`.
    first: Vec<usize>,
    /// Chunk chaining values: the CVs of whole chunks, and of the whole blocks of
    /// each last chunk (the IV if it has none).
    cvs: Vec<[u32; 8]>,
    out: Vec<u8>,
}

impl Default for Lanes {
    fn default() -> Self {
        Lanes::on(Platform::detect())
    }
}

/// `blake3::hash` of every input, in order.
#[cfg(test)]
pub fn hash_all(inputs: &[&[u8]]) -> Vec<[u8; 32]> {
    let mut hashes = Vec::new();
    Lanes::default().hash(inputs, &mut hashes);
    hashes
}

impl Lanes {
    /// On a given instruction set (tests cover every one present).
    fn on(platform: Platform) -> Self {
        Lanes {
            platform,
            groups: Vec::new(),
            first: Vec::new(),
            cvs: Vec::new(),
            out: Vec::new(),
        }
    }

    /// `hashes` = `blake3::hash` of every input, in order.
    pub fn hash(&mut self, inputs: &[&[u8]], hashes: &mut Vec<[u8; 32]>) {
        self.plan(inputs);
        for counter in 0..self.groups.len() {
            for blocks in 1..=CHUNK / BLOCK {
                if !self.groups[counter][blocks].is_empty() {
                    self.run_group(inputs, counter, blocks);
                }
            }
        }
        hashes.clear();
        hashes.extend(inputs.iter().enumerate().map(|(i, input)| {
            let n = chunks_of(input.len());
            if n > MAX_LANE_CHUNKS {
                return *blake3::hash(input).as_bytes();
            }
            let cvs = &mut self.cvs[self.first[i]..self.first[i] + n];
            finish(&self.platform, input, cvs)
        }));
    }

    /// `heads` = for every input, in order, the [`Midstate`] after its whole
    /// blocks, at most [`HEAD_BLOCKS`]: each input is the beginning of a
    /// longer one (none of these blocks is its last).
    pub fn heads(&mut self, inputs: &[&[u8]], heads: &mut Vec<Midstate>) {
        let blocks_of = |input: &[u8]| (input.len() / BLOCK).min(HEAD_BLOCKS);
        self.groups.iter_mut().flatten().for_each(Vec::clear);
        if self.groups.is_empty() {
            self.groups.push(vec![Vec::new(); CHUNK / BLOCK + 1]);
        }
        for (i, input) in inputs.iter().enumerate() {
            self.groups[0][blocks_of(input)].push(i);
        }
        heads.clear();
        heads.resize(inputs.len(), Midstate::default());
        for blocks in 1..=HEAD_BLOCKS {
            let group = &self.groups[0][blocks];
            if group.is_empty() {
                continue;
            }
            let slices: Vec<&[u8]> = group
                .iter()
                .map(|&i| &inputs[i][..blocks * BLOCK])
                .collect();
            self.out.clear();
            self.out.resize(32 * slices.len(), 0);
            many_blocks(&self.platform, blocks, &slices, (0, 0), &mut self.out);
            for (&i, cv) in group.iter().zip(self.out.chunks_exact(32)) {
                heads[i] = Midstate {
                    cv: words(cv),
                    blocks: blocks as u8,
                };
            }
        }
    }

    /// The instruction set this hashes with (a [`Midstate`] finishes on it).
    #[cfg(test)]
    pub fn platform(&self) -> Platform {
        self.platform
    }

    /// Put every input's pieces in their groups; CVs start as the IV.
    fn plan(&mut self, inputs: &[&[u8]]) {
        self.groups.iter_mut().flatten().for_each(Vec::clear);
        self.first.clear();
        let mut total = 0;
        for (i, input) in inputs.iter().enumerate() {
            self.first.push(total);
            let n = chunks_of(input.len());
            if n > MAX_LANE_CHUNKS {
                continue;
            }
            total += n;
            while self.groups.len() < n {
                self.groups.push(vec![Vec::new(); CHUNK / BLOCK + 1]);
            }
            for c in 0..n - 1 {
                self.groups[c][CHUNK / BLOCK].push(i);
            }
            let whole = (input.len() - (n - 1) * CHUNK).saturating_sub(1) / BLOCK;
            if whole > 0 {
                self.groups[n - 1][whole].push(i);
            }
        }
        self.cvs.clear();
        self.cvs.resize(total, IV);
    }

    /// Compress one group's pieces (chunk `counter`, `blocks` blocks of each
    /// input) and store their CVs.
    fn run_group(&mut self, inputs: &[&[u8]], counter: usize, blocks: usize) {
        let group = &self.groups[counter][blocks];
        let start = counter * CHUNK;
        let slices: Vec<&[u8]> = group
            .iter()
            .map(|&i| &inputs[i][start..start + blocks * BLOCK])
            .collect();
        group_cvs(&self.platform, &slices, (counter, blocks), &mut self.out);
        for (&i, cv) in group.iter().zip(self.out.chunks_exact(32)) {
            self.cvs[self.first[i] + counter] = words(cv);
        }
    }
}

/// The CVs of `slices`, each `blocks` whole blocks of chunk `counter`, one
/// per slice into `out` (cleared first), through `hash_many`. A piece of 16
/// blocks is a whole chunk that is not its input's last, so it is ended
/// there; a shorter one begins a last chunk, whose final block comes later.
fn group_cvs(p: &Platform, slices: &[&[u8]], (counter, blocks): (usize, usize), out: &mut Vec<u8>) {
    out.clear();
    out.resize(32 * slices.len(), 0);
    let end = if blocks == CHUNK / BLOCK {
        CHUNK_END
    } else {
        0
    };
    many_blocks(p, blocks, slices, (counter as u64, end), out);
}

/// `hash_many` over `slices`, each `blocks` whole blocks of chunk `counter`
/// (`flags_end` on the last block of each), one CV per slice into `out`.
fn many_blocks(p: &Platform, blocks: usize, slices: &[&[u8]], args: (u64, u8), out: &mut [u8]) {
    match blocks {
        1 => many::<64>(p, slices, args, out),
        2 => many::<128>(p, slices, args, out),
        3 => many::<192>(p, slices, args, out),
        4 => many::<256>(p, slices, args, out),
        5 => many::<320>(p, slices, args, out),
        6 => many::<384>(p, slices, args, out),
        7 => many::<448>(p, slices, args, out),
        8 => many::<512>(p, slices, args, out),
        9 => many::<576>(p, slices, args, out),
        10 => many::<640>(p, slices, args, out),
        11 => many::<704>(p, slices, args, out),
        12 => many::<768>(p, slices, args, out),
        13 => many::<832>(p, slices, args, out),
        14 => many::<896>(p, slices, args, out),
        15 => many::<960>(p, slices, args, out),
        _ => many::<1024>(p, slices, args, out),
    }
}

/// Chunks of an input of `len` bytes (an empty input is one empty chunk).
fn chunks_of(len: usize) -> usize {
    len.div_ceil(CHUNK).max(1)
}

/// One `hash_many` call over inputs of exactly `N` bytes (the plan made them so).
fn many<const N: usize>(
    platform: &Platform,
    slices: &[&[u8]],
    (counter, flags_end): (u64, u8),
    out: &mut [u8],
) {
    let arrays: Vec<&[u8; N]> = slices
        .iter()
        .map(|s| <&[u8; N]>::try_from(*s).expect("grouped by length"))
        .collect();
    platform.hash_many(
        &arrays,
        &IV,
        counter,
        IncrementCounter::No,
        0,
        CHUNK_START,
        flags_end,
        out,
    );
}

/// The final block of the last chunk, then the tree of chunk CVs (`cvs`: one
/// per chunk of `input`, the last one of its whole blocks only).
fn finish(platform: &Platform, input: &[u8], cvs: &mut [[u32; 8]]) -> [u8; 32] {
    let last = cvs.len() - 1;
    let tail = &input[last * CHUNK..];
    let whole = tail.len().saturating_sub(1) / BLOCK;
    let rest = &tail[whole * BLOCK..];
    let mut block = [0u8; BLOCK];
    block[..rest.len()].copy_from_slice(rest);
    let mut flags = CHUNK_END;
    if whole == 0 {
        flags |= CHUNK_START;
    }
    if last == 0 {
        flags |= ROOT;
    }
    platform.compress_in_place(&mut cvs[last], &block, rest.len() as u8, last as u64, flags);
    if last == 0 {
        return bytes(&cvs[0]);
    }
    bytes(&merge(platform, cvs, ROOT))
}

/// The subtree over `cvs` (two or more), its top parent flagged `top`.
fn merge(platform: &Platform, cvs: &[[u32; 8]], top: u8) -> [u32; 8] {
    if cvs.len() == 1 {
        return cvs[0];
    }
    let left = 1 << (usize::BITS - 1 - (cvs.len() - 1).leading_zeros());
    let l = merge(platform, &cvs[..left], 0);
    let r = merge(platform, &cvs[left..], 0);
    let mut block = [0u8; BLOCK];
    block[..32].copy_from_slice(&bytes(&l));
    block[32..].copy_from_slice(&bytes(&r));
    let mut cv = IV;
    platform.compress_in_place(&mut cv, &block, BLOCK as u8, 0, PARENT | top);
    cv
}

fn words(b: &[u8]) -> [u32; 8] {
    let mut w = [0u32; 8];
    for (w, b) in w.iter_mut().zip(b.chunks_exact(4)) {
        *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    w
}

fn bytes(w: &[u32; 8]) -> [u8; 32] {
    let mut b = [0u8; 32];
    for (b, w) in b.chunks_exact_mut(4).zip(w) {
        b.copy_from_slice(&w.to_le_bytes());
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    /// Every instruction set this machine has (the portable one always; AVX-512,
    /// built only with a C compiler, through `detect`).
    fn platforms() -> Vec<Platform> {
        #[allow(unused_mut)]
        let mut all = vec![Platform::portable(), Platform::detect()];
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        all.extend(
            [Platform::sse2(), Platform::sse41(), Platform::avx2()]
                .into_iter()
                .flatten(),
        );
        all
    }

    #[test]
    fn every_length_up_to_five_chunks_equals_blake3_on_every_platform() {
        let owned: Vec<Vec<u8>> = (0..=5 * CHUNK + 1).map(|n| data(n, n as u8)).collect();
        let inputs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        for platform in platforms() {
            let mut got = Vec::new();
            Lanes::on(platform).hash(&inputs, &mut got);
            assert_eq!(got.len(), inputs.len());
            for (input, h) in inputs.iter().zip(&got) {
                let want = blake3::hash(input);
                assert_eq!(h, want.as_bytes(), "{platform:?}, length {}", input.len());
            }
        }
    }

    /// Inputs of every length to past one chunk, each begun by prefixes that
    /// leave from one byte to more than a block after them.
    #[test]
    fn a_midstate_of_a_prefix_finishes_to_blake3_on_every_platform() {
        let owned: Vec<Vec<u8>> = (1..=CHUNK + 70).map(|n| data(n, n as u8)).collect();
        for platform in platforms() {
            let mut lanes = Lanes::on(platform);
            for after in [1, 63, 64, 65, 200] {
                let fit: Vec<&Vec<u8>> = owned.iter().filter(|i| i.len() > after).collect();
                let prefixes: Vec<&[u8]> = fit.iter().map(|i| &i[..i.len() - after]).collect();
                let mut heads = Vec::new();
                lanes.heads(&prefixes, &mut heads);
                assert_eq!(heads.len(), fit.len());
                for (input, head) in fit.iter().zip(&heads) {
                    let want = blake3::hash(input);
                    let len = input.len();
                    let got = head.hash(&platform, input);
                    assert_eq!(
                        &got,
                        want.as_bytes(),
                        "{platform:?}, length {len}, {after} after"
                    );
                }
                let longest = prefixes.iter().map(|p| p.len()).max().unwrap_or(0);
                let most = heads.iter().map(|h| usize::from(h.blocks)).max();
                assert_eq!(most, Some((longest / BLOCK).min(HEAD_BLOCKS)));
            }
        }
    }

    #[test]
    fn long_inputs_and_mixed_batches_equal_blake3_when_reused() {
        let lens = [
            0,
            1,
            64,
            65,
            1024,
            1025,
            8 * CHUNK,
            8 * CHUNK + 1,
            70_000,
            3,
            200,
        ];
        let owned: Vec<Vec<u8>> = lens.iter().map(|&n| data(n, 7)).collect();
        let inputs: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let mut lanes = Lanes::default();
        let mut got = Vec::new();
        // Twice, and in reverse: what one batch leaves must not leak into the next.
        for batch in [inputs.clone(), inputs.iter().rev().copied().collect()] {
            lanes.hash(&batch, &mut got);
            assert_eq!(got.len(), batch.len());
            for (input, h) in batch.iter().zip(&got) {
                assert_eq!(h, blake3::hash(input).as_bytes(), "length {}", input.len());
            }
        }
        assert!(hash_all(&[]).is_empty());
    }
}

use super::file::{file_name, finish, key_of_file, next_checkpoint, write_unfinished};
use super::frames::compress;
use super::*;

/// The position a key encodes.
fn pos_of(k: &[u8]) -> Option<Pos> {
    let at: [u8; 8] = k.get(..8)?.try_into().ok()?;
    let seq: [u8; 8] = k.get(8..16)?.try_into().ok()?;
    (k.len() == 16).then(|| {
        (
            (u64::from_be_bytes(at) ^ (1 << 63)) as Micros,
            u64::from_be_bytes(seq),
        )
    })
}

/// The bytes of one frame of exactly `len` bytes compressed with `prefix`,
/// as [`unpack`] reads it (after a whole frame of the prefix); `None` if it
/// is not that (damaged, another prefix, another length).
fn decompress(stored: &[u8], prefix: Option<&[u8]>, len: u64) -> Option<Vec<u8>> {
    let mut frames = Vec::new();
    if let Some(p) = prefix {
        frames.push((compress(p, None).unwrap(), p.len() as u64));
    }
    frames.push((stored.to_vec(), len));
    unpack(frames)
}

#[test]
fn spacing_is_a_twentieth_in_steps_of_5000_and_at_least_10000() {
    let cases = [
        (0, 10_000),
        (100_000, 10_000),
        (200_000, 10_000),
        (200_040, 15_000),
        (400_040, 25_000),
        (1_000_000, 50_000),
        (1_000_040, 55_000),
        (8_000_000, 400_000),
    ];
    for (records, spacing) in cases {
        assert_eq!(auto_every(records), spacing, "{records} records");
    }
}

#[test]
fn keys_sort_as_positions_and_round_trip() {
    let positions: Vec<Pos> = vec![
        (Micros::MIN, 0),
        (-1_000_000, 7),
        (-1, u64::MAX),
        (0, 0),
        (0, 1),
        (1, 0),
        (1_000_000_000_000, 3),
        (Micros::MAX, u64::MAX),
    ];
    for w in positions.windows(2) {
        assert!(key(w[0]) < key(w[1]), "{:?} < {:?}", w[0], w[1]);
    }
    for p in &positions {
        assert_eq!(pos_of(&key(*p)), Some(*p));
    }
    assert_eq!(pos_of(&[0u8; 15]), None);
}

/// Section names as a fold gives them.
const NAMES: [&str; 6] = ["ledger.rules", "a", "b", "c", "d", "e"];

/// A whole checkpoint's header with these stored section lengths.
fn sample_header(lens: [u64; 6]) -> Header {
    let sections = NAMES
        .iter()
        .zip(lens)
        .enumerate()
        .map(|(i, (name, stored))| Section {
            name: name.to_string(),
            stored,
            raw: 7 + i as u64,
        });
    Header {
        head: Head {
            seq: 9,
            hash: [7; 32],
        },
        pos: (-5, 4),
        folded: 3,
        parent: None,
        sections: sections.collect(),
    }
}

#[test]
fn headers_round_trip_and_damage_reads_as_absent() {
    let h = sample_header([1, 2, 3, 4, 5, 6]);
    assert_eq!(Header::read(&encode_header(&h)), Some(h.clone()));
    assert_eq!(h.index("c"), Some(3));
    assert_eq!(h.index("z"), None);
    let delta = Header {
        parent: Some(link(&h)),
        ..h.clone()
    };
    assert_eq!(Header::read(&encode_header(&delta)), Some(delta.clone()));
    let mut hb = encode_header(&h);
    hb[0] = b'X';
    assert!(Header::read(&hb).is_none(), "another magic");
    let b = encode_header(&delta);
    assert!(Header::read(&b[..b.len() - 1]).is_none(), "cut short");
    let mut longer = b.clone();
    longer.push(0);
    assert!(
        Header::read(&longer).is_none(),
        "longer than its length says"
    );
    let mut huge = b.clone();
    huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Header::read(&huge).is_none(), "a length past the limit");
    // Any byte changed (the head's hash, `folded`, a length, the check)
    // makes the whole header absent, not another valid one.
    for at in 0..b.len() {
        let mut bad = b.clone();
        bad[at] ^= 0x10;
        assert!(Header::read(&bad).is_none(), "byte {at} changed");
    }
}

/// A file holds its header's bytes first, so a file left from another
/// checkpoint at the same position (same section lengths, other head)
/// reads as absent, as does a cut or missing one; listing reads each
/// file's header and no more.
#[test]
fn a_checkpoint_file_is_read_only_under_its_own_header() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let h = sample_header([3, 0, 5, 0, 0, 1]);
    let stored = [b"abc", &b""[..], b"defgh", b"", b"", b"i"].map(<[u8]>::to_vec);
    write_unfinished(d, &h, &stored).unwrap();
    finish(d, h.pos).unwrap();
    for (i, want) in stored.iter().enumerate() {
        assert_eq!(read_file_section(d, &h, i).as_ref(), Some(want), "{i}");
    }
    assert_eq!(read_file_section(d, &h, 6), None, "no such section");
    let listed = super::file::list(d);
    assert_eq!(listed.get(&key(h.pos)), Some(&encode_header(&h)));
    let other = Header {
        head: Head {
            hash: [8; 32],
            ..h.head
        },
        ..h.clone()
    };
    assert_eq!(read_file_section(d, &other, 2), None, "another head");
    let path = d.join(file_name(h.pos));
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    assert_eq!(read_file_section(d, &h, 2), None, "cut short");
    std::fs::remove_file(&path).unwrap();
    assert_eq!(read_file_section(d, &h, 2), None, "missing");
}

/// Sections of 4 KiB that zstd cannot shrink alone (bytes of BLAKE3 of the
/// section's place), the same in every checkpoint, then `tail`.
fn sections(tail: &[u8]) -> Vec<(String, Vec<u8>)> {
    let section = |i: usize| {
        let mut xof = blake3::Hasher::new().update(&[i as u8]).finalize_xof();
        let mut bytes = vec![0u8; 4096];
        xof.fill(&mut bytes);
        bytes.extend_from_slice(tail);
        (NAMES[i].to_string(), bytes)
    };
    (0..NAMES.len()).map(section).collect()
}

/// A delta is compressed with its whole parent's sections as prefix: it
/// unpacks to its own bytes, and what it shares with the parent costs it
/// next to nothing; a delta on a parent read back from its file is the same.
#[test]
fn a_delta_unpacks_to_its_sections_and_stores_little_of_what_its_parent_has() {
    let every = 100;
    let first = sections(b"old");
    let second = sections(b"new");
    let made = next_checkpoint(Head::default(), ((1, 1), every), first.clone(), None, every);
    let (h1, s1, parent) = made.unwrap();
    assert!(h1.parent.is_none());
    assert!(
        s1.iter().all(|s| s.len() > 4096),
        "whole sections stay large"
    );
    let read_back = Parent {
        header: h1.clone(),
        raw: first.iter().map(|(_, b)| b.clone()).collect(),
        deltas: 0,
    };
    for parent in [parent, Some(read_back)] {
        let made = next_checkpoint(
            Head::default(),
            ((2, 2), 2 * every),
            second.clone(),
            parent,
            every,
        );
        let (h2, s2, _) = made.unwrap();
        assert_eq!(h2.parent, Some(link(&h1)));
        for (i, (_, want)) in second.iter().enumerate() {
            let frames = vec![
                (s1[i].clone(), h1.sections[i].raw),
                (s2[i].clone(), h2.sections[i].raw),
            ];
            assert_eq!(unpack(frames).as_ref(), Some(want), "section {i}");
            assert!(s2[i].len() < 100, "section {i}: {} bytes", s2[i].len());
        }
    }
}

/// Whole checkpoints are the 1st, 6th, 11th, ... of a fold, so the last
/// of a 20-checkpoint import is a delta, and no chain is longer than five.
#[test]
fn whole_checkpoints_are_the_first_and_every_fifth_after_it() {
    let every = 100;
    let mut parent = None;
    let mut whole = Vec::new();
    for k in 1..=20u64 {
        let raw = (0..6)
            .map(|i| (NAMES[i].to_string(), vec![i as u8; 50]))
            .collect();
        let pos = (k as Micros, k);
        let made = next_checkpoint(Head::default(), (pos, k * every), raw, parent, every);
        let (h, _, next) = made.unwrap();
        match h.parent {
            None => whole.push(k),
            // Each delta is made on the latest whole one, not on the delta
            // before it.
            Some((p, _)) => {
                let w = whole[whole.len() - 1];
                assert_eq!(p, key((w as Micros, w)), "checkpoint {k}");
            }
        }
        parent = next;
    }
    assert_eq!(whole, [1, 6, 11, 16]);
}

/// A checkpoint whose sections are not named as its would-be parent's are
/// (a system added since) is whole, and names the new section.
#[test]
fn a_checkpoint_with_other_sections_than_its_parent_is_whole() {
    let every = 100;
    let first = sections(b"old");
    let made = next_checkpoint(Head::default(), ((1, 1), every), first, None, every);
    let parent = made.unwrap().2;
    assert!(parent.is_some());
    let mut more = sections(b"new");
    more.push(("f".to_string(), vec![1u8; 5]));
    let made = next_checkpoint(Head::default(), ((2, 2), 2 * every), more, parent, every);
    let h = made.unwrap().0;
    assert!(h.parent.is_none());
    assert_eq!(h.index("f"), Some(6));
}

#[test]
fn checkpoint_file_names_give_their_key_and_nothing_else_does() {
    for pos in [(-5, 4), (0, 0), (Micros::MAX, u64::MAX), (Micros::MIN, 1)] {
        assert_eq!(key_of_file(&file_name(pos)), Some(key(pos)), "{pos:?}");
    }
    let name = file_name((1, 2));
    let upper = name.replace(".lcp", "").to_uppercase() + ".lcp";
    assert_eq!(key_of_file(&upper), Some(key((1, 2))), "{upper}");
    for other in [
        "notes.txt".to_string(),
        name.replace(".lcp", ".tmp"),
        name.replacen('0', "g", 1),
        name[1..].to_string(),
        format!("0{name}"),
        format!("+{}", &name[1..]),
    ] {
        assert_eq!(key_of_file(&other), None, "{other}");
    }
}

#[test]
fn deltas_need_their_exact_parent_and_damage_reads_as_absent() {
    let parent: Vec<u8> = (0..200_000u32)
        .flat_map(|i| (i * 7919).to_le_bytes())
        .collect();
    let mut child = parent.clone();
    child[1000..1010].fill(9);
    child.extend_from_slice(b"appended");
    let len = child.len() as u64;
    let whole = compress(&child, None).unwrap();
    assert_eq!(decompress(&whole, None, len), Some(child.clone()));
    let delta = compress(&child, Some(&parent)).unwrap();
    assert!(
        delta.len() * 50 < whole.len(),
        "{} vs {}",
        delta.len(),
        whole.len()
    );
    assert_eq!(decompress(&delta, Some(&parent), len), Some(child.clone()));
    assert_eq!(decompress(&delta, None, len), None);
    let mut other = parent.clone();
    other[5000] ^= 1;
    assert_eq!(decompress(&delta, Some(&other), len), None);
    assert_eq!(decompress(&delta, Some(&parent), len - 1), None);
    for at in [0, delta.len() / 2, delta.len() - 1] {
        let mut d = delta.clone();
        d[at] ^= 0x40;
        assert_eq!(decompress(&d, Some(&parent), len), None, "byte {at}");
    }
    assert_eq!(
        decompress(&delta[..delta.len() - 4], Some(&parent), len),
        None
    );
}

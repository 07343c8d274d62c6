use super::file::{file_name, key_of_file, next_checkpoint, write_file};
use super::*;

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
        patched: false,
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
        patched: true,
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
    write_file(d, &h, &stored).unwrap();
    for (i, want) in stored.iter().enumerate() {
        assert_eq!(read_file_section(d, &h, i).as_ref(), Some(want), "{i}");
    }
    assert_eq!(read_file_section(d, &h, 6), None, "no such section");
    let listed = super::file::list(d).unwrap();
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

/// The sections of kept values (cards, sbr).
const KEPT: [usize; 2] = [3, 5];

/// Sections of two kept values: a fixed one (stamp `100 + i`, the same
/// bytes in every checkpoint) and `second`; plain bytes for the others.
fn kept_sections(second: (u64, &[u8])) -> Vec<(String, Encoded)> {
    let section = |i: usize| {
        let mut e = Encoded::from(vec![i as u8; 10]);
        if KEPT.contains(&i) {
            let fixed = (100 + i as u64, &b"an unchanged value"[..]);
            for (stamp, v) in [fixed, (second.0 + i as u64, second.1)] {
                let (at, len) = (e.bytes.len(), v.len());
                e.spans.push(Span { stamp, at, len });
                e.bytes.extend_from_slice(v);
                e.bytes.push(b'|');
            }
        }
        (NAMES[i].to_string(), e)
    };
    (0..NAMES.len()).map(section).collect()
}

/// A delta on a whole checkpoint this process made stores its kept
/// sections as patches that copy the unchanged values, and every section
/// unpacks to its bytes; on a parent read back from its file it is a
/// plain delta, which unpacks to the same.
#[test]
fn deltas_on_a_whole_checkpoint_made_here_patch_their_kept_sections() {
    let every = 100;
    let first = kept_sections((200, b"old"));
    let second = kept_sections((300, b"new"));
    let made = next_checkpoint(Head::default(), ((1, 1), every), first.clone(), None, every);
    let (h1, s1, parent) = made.unwrap();
    assert!(h1.parent.is_none() && !h1.patched);
    let read_back = Parent {
        header: h1.clone(),
        raw: first.iter().map(|(_, e)| e.bytes.clone()).collect(),
        deltas: 0,
        kept: None,
    };
    let unpacked = |h2: &Header, s2: &[Vec<u8>], i: usize| {
        unpack(vec![
            (s1[i].clone(), h1.sections[i].raw, false),
            (s2[i].clone(), h2.sections[i].raw, h2.patched),
        ])
    };
    for (parent, patched) in [(parent, true), (Some(read_back), false)] {
        let made = next_checkpoint(
            Head::default(),
            ((2, 2), 2 * every),
            second.clone(),
            parent,
            every,
        );
        let (h2, s2, _) = made.unwrap();
        assert_eq!((h2.parent, h2.patched), (Some(link(&h1)), patched));
        for (i, (_, want)) in second.iter().enumerate() {
            assert_eq!(
                unpacked(&h2, &s2, i).as_ref(),
                Some(&want.bytes),
                "section {i}"
            );
        }
        for i in KEPT.into_iter().filter(|_| patched) {
            let size = zstd::zstd_safe::get_frame_content_size(&s2[i]);
            let patch = decompress(&s2[i], None, size.unwrap().unwrap()).unwrap();
            let has = |w: &[u8]| patch.windows(w.len()).any(|x| x == w);
            assert!(has(b"new") && !has(b"an unchanged value"), "section {i}");
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
            .map(|i| (NAMES[i].to_string(), vec![i as u8; 50].into()))
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
    let first = kept_sections((200, b"old"));
    let made = next_checkpoint(Head::default(), ((1, 1), every), first, None, every);
    let parent = made.unwrap().2;
    assert!(parent.is_some());
    let mut more = kept_sections((300, b"new"));
    more.push(("f".to_string(), vec![1u8; 5].into()));
    let made = next_checkpoint(Head::default(), ((2, 2), 2 * every), more, parent, every);
    let h = made.unwrap().0;
    assert!(h.parent.is_none() && !h.patched);
    assert_eq!(h.index("f"), Some(6));
}

#[test]
fn checkpoint_file_names_give_their_key_and_nothing_else_does() {
    for pos in [(-5, 4), (0, 0), (Micros::MAX, u64::MAX), (Micros::MIN, 1)] {
        assert_eq!(key_of_file(&file_name(pos)), Some(key(pos)), "{pos:?}");
    }
    let name = file_name((1, 2));
    for other in [
        "notes.txt".to_string(),
        name.replace(".lcp", ".tmp"),
        name.replacen('0', "g", 1),
        name[1..].to_string(),
        format!("0{name}"),
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

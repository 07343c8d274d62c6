//! Tests of the interner, the id maps, the reader and the map encoding.

use super::*;

/// `prefetch` reads a slot of an empty table (none: its mask would
/// underflow), of a full one, and of names that are not there, and
/// changes no lookup.
#[test]
fn prefetch_reads_any_table_and_changes_no_lookup() {
    let mut n = Interner::default();
    n.prefetch(["nobody"]);
    let names: Vec<String> = (0..100).map(|i| format!("player-{i}")).collect();
    for s in &names {
        n.intern(s);
    }
    n.prefetch(names.iter().map(String::as_str).chain(["nobody", ""]));
    for (i, s) in names.iter().enumerate() {
        assert_eq!(n.get(s), Some(i as u32));
    }
    assert_eq!(n.get("nobody"), None);
}

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct AsBytes(#[serde(with = "bytes")] Vec<u8>, u32);

/// A byte field is its varint length, then its bytes, and reads back.
#[test]
fn byte_fields_are_their_length_then_their_bytes() {
    use bincode::Options;
    let varint = bincode::DefaultOptions::new();
    let v = AsBytes(vec![1, 2, 0xff], 300);
    let bytes = varint.serialize(&v).unwrap();
    // 300 is the varint marker 251, then a little-endian u16.
    assert_eq!(bytes, [3, 1, 2, 0xff, 251, 0x2c, 0x01]);
    assert_eq!(varint.deserialize::<AsBytes>(&bytes).unwrap(), v);
    let long = AsBytes((0..=255u8).cycle().take(1000).collect(), 0);
    let bytes = varint.serialize(&long).unwrap();
    assert_eq!(bytes[..3], [251, 0xe8, 0x03]);
    assert_eq!(varint.deserialize::<AsBytes>(&bytes).unwrap(), long);
}

#[test]
fn name_keys_never_order_two_names_against_their_bytes() {
    let names = [
        "",
        "\0",
        "\0\0",
        "a",
        "a\0",
        "a\0b",
        "ab",
        "abcdefg",
        "abcdefgh",
        "abcdefgh\0",
        "abcdefghi",
        "abcdefgz",
        "p00017",
        "p00170",
        "é",
        "z",
    ];
    for a in names {
        for b in names {
            if name_key(a) < name_key(b) {
                assert!(a < b, "{a:?} keyed before {b:?}");
            }
        }
    }
    let mut n = Interner::default();
    let ids: Vec<u32> = names.iter().rev().map(|s| n.intern(s)).collect();
    let mut sorted = ids.clone();
    n.sort_by_name(&mut sorted);
    let got: Vec<&str> = sorted.iter().map(|&id| n.name(id)).collect();
    let mut want = names.to_vec();
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn ids_are_dense_in_first_seen_order_and_survive_growth() {
    let mut n = Interner::default();
    let words: Vec<String> = (0..1000).map(|i| format!("p{:05}", i % 700)).collect();
    for w in &words {
        n.intern(w);
    }
    assert_eq!(n.len(), 700);
    for i in 0..700u32 {
        let w = format!("p{i:05}");
        assert_eq!(n.get(&w), Some(i));
        assert_eq!(n.name(i), w);
    }
    assert_eq!(n.get("nobody"), None);
    assert_eq!(n.intern(""), 700);
    assert_eq!(n.get(""), Some(700));
}

/// An `IdMap` holds and lists its entries as a `BTreeMap` of them does.
#[test]
fn id_map_iterates_as_the_btree_map() {
    let mut dense: IdMap<(i64, u32)> = IdMap::default();
    let mut tree: std::collections::BTreeMap<u32, (i64, u32)> = Default::default();
    for (i, id) in [7u32, 0, 300, 7, 65_536, 2].into_iter().enumerate() {
        let v = (i as i64 - 3, id);
        *dense.entry_or_default(id) = v;
        tree.insert(id, v);
    }
    assert_eq!(dense.len(), tree.len());
    let got: Vec<_> = dense.iter().map(|(k, v)| (k, *v)).collect();
    let want: Vec<_> = tree.iter().map(|(k, v)| (*k, *v)).collect();
    assert_eq!(got, want);
}

#[test]
fn from_parts_rebuilds_the_table_interning_builds() {
    let mut n = Interner::default();
    for i in 0..3000u32 {
        let (buf, ends) = n.parts();
        let back = Interner::from_parts(buf.to_string(), ends.to_vec()).unwrap();
        assert_eq!(back.slots(), n.slots(), "{i} names");
        assert_eq!(back.buf, n.buf);
        // Repeats, the empty string and multi-byte names too.
        n.intern(&format!("é{}", i * 7 % 2000));
        n.intern("");
    }
    let (buf, ends) = n.parts();
    assert!(Interner::from_parts(format!("{buf}x"), ends.to_vec()).is_none());
    let mut longer = ends.to_vec();
    *longer.last_mut().unwrap() += 1;
    assert!(Interner::from_parts(buf.to_string(), longer).is_none());
    // "é" is two bytes: an end inside it is not a char boundary.
    assert!(Interner::from_parts("é".into(), vec![1, 2]).is_none());
    assert!(Interner::from_parts("ab".into(), vec![2, 1]).is_none());
}

/// Short names compare inline, long ones in the buffer: each finds only
/// itself (names that differ only by trailing NULs or by length too).
#[test]
fn short_and_long_names_find_only_themselves() {
    let words = [
        "",
        "a",
        "a\0",
        "a\0\0",
        "p1",
        "abcdefg",
        "abcdefgh",
        "abcdefg\0",
        "é",
        "ééé",
        "a name longer than seven bytes",
        "a name longer than seven bytez",
    ];
    let mut n = Interner::default();
    for (i, w) in words.iter().enumerate() {
        assert_eq!(n.intern(w), i as u32);
    }
    for (i, w) in words.iter().enumerate() {
        assert_eq!(n.get(w), Some(i as u32), "{w:?}");
        assert_eq!(n.intern(w), i as u32);
    }
    for w in [
        "b",
        "abcdef",
        "abcdefgi",
        "a name longer than seven byte",
        "\0",
    ] {
        assert_eq!(n.get(w), None, "{w:?}");
    }
}

/// An interner is stored as its names and their ends, and reads back
/// into the same table; ends that do not fit the names are an error.
#[test]
fn an_interner_serializes_its_names_and_reads_back_its_table() {
    #[derive(Serialize)]
    struct Parts {
        buf: String,
        ends: Vec<u32>,
    }
    let mut n = Interner::default();
    for i in 0..500u32 {
        n.intern(&format!("p{}", i * 7 % 300));
        n.intern(&format!("a much longer name {}", i % 40));
    }
    let parts = Parts {
        buf: n.buf.clone(),
        ends: n.ends.clone(),
    };
    let bytes = bincode::serialize(&n).unwrap();
    assert_eq!(bytes, bincode::serialize(&parts).unwrap());
    let back: Interner = bincode::deserialize(&bytes).unwrap();
    assert_eq!(
        (&back.buf, &back.ends, back.slots()),
        (&n.buf, &n.ends, n.slots())
    );
    let bad = Parts {
        ends: vec![3, 2],
        ..parts
    };
    let bytes = bincode::serialize(&bad).unwrap();
    assert!(bincode::deserialize::<Interner>(&bytes).is_err());
}

#[test]
fn the_hash_is_fnv1a() {
    // Published FNV-1a 64 test vectors: the index must not depend on the build.
    assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
}

#[test]
fn a_read_back_interner_makes_its_table_at_the_first_lookup_only() {
    let mut n = Interner::default();
    for i in 0..100u32 {
        n.intern(&format!("player-{i}"));
    }
    let (buf, ends) = (n.parts().0.to_string(), n.parts().1.to_vec());
    let mut back = Interner::from_parts(buf.clone(), ends.clone()).unwrap();
    assert_eq!(back.name(42), "player-42");
    assert!(back.slots.get().is_none(), "naming an id makes no table");
    assert_eq!(back.get("player-42"), Some(42));
    assert_eq!(back.slots(), n.slots());
    // Interning into a table made on read continues as interning did.
    assert_eq!(back.intern("player-100"), 100);
    assert_eq!(n.intern("player-100"), 100);
    assert_eq!(back.slots(), n.slots());
    let mut fresh = Interner::from_parts(buf, ends).unwrap();
    assert_eq!(fresh.intern("player-7"), 7, "interning a known name first");
    assert_eq!(fresh.intern("new"), 100);
}

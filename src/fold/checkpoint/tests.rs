use super::*;
use crate::fold;

/// The sections' bytes, in order.
fn encode(state: &State, params: &Params) -> Result<Vec<Vec<u8>>> {
    (0..names().len())
        .map(|i| encode_section(state, params, i))
        .collect()
}

/// Sections compared with serde's bytes by [`encode_checked`].
static COMPARED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// [`encode_section`], failing when a state section is not serde's
/// bincode of the state (what [`decode`] reads; mepbm has its own layout).
fn encode_checked(state: &State, params: &Params, i: usize) -> Result<Vec<u8>> {
    let got = encode_section(state, params, i)?;
    let want = match i {
        2 => section_bytes(&state.cfr)?,
        3 => section_bytes(&state.cards)?,
        4 => section_bytes(&state.diplomacy)?,
        5 => section_bytes(&state.sbr)?,
        _ => return Ok(got),
    };
    COMPARED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    match got == want {
        true => Ok(got),
        false => Err(Error::Storage(format!("section {i}: not serde's bytes"))),
    }
}

/// A check fold of `gen::stream(3000, 7)` that makes a checkpoint every
/// 400 records, each section encoded by `encode`, handed to `put`.
fn generated_with_checkpoints(
    encode: fn(&State, &Params, usize) -> Result<Vec<u8>>,
    put: &mut dyn FnMut(Pos, u64, fold::Snapshot) -> Result<()>,
) {
    // The generator writes no registration or rename: two dated before its
    // first event follow it, so that every checkpoint's players sections
    // hold a rename.
    let players = r#"{"type":"ledger.player_registered","at":"2000-01-01","player":"Layout Probe"}
{"type":"ledger.player_renamed","at":"2000-01-01T00:00:01Z","from":"Layout Probe","to":"Layout Probes","distinct":true}
"#;
    let stream = crate::systems::gen::stream(3000, 7) + players;
    let src = fold::MemSource::from_jsonl(&stream).unwrap();
    let sink = Sink {
        marks: fold::Marks::Every(400),
        encode,
        put,
    };
    let q = Query {
        check: true,
        ..Query::default()
    };
    fold::fold_from(&src, &q, None, Some(sink)).unwrap();
}

/// Cards and sbr reuse each unchanged tournament's bytes between
/// checkpoints; their sections must stay exactly the serde encoding, at
/// every checkpoint of a fold whose tournaments change between them.
#[test]
fn kept_tournament_bytes_give_serde_bytes_at_every_checkpoint() {
    let mut made = 0;
    let mut put = |_: Pos, _: u64, _: fold::Snapshot| {
        made += 1;
        Ok(())
    };
    generated_with_checkpoints(encode_checked, &mut put);
    assert!(made >= 5, "{made} checkpoints");
    let compared = COMPARED.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(compared, 4 * made);
}

#[test]
fn sections_decode_back_and_damage_reads_as_absent() {
    let mut params = Params::default();
    let mut m = serde_json::Map::new();
    m.insert("base".into(), serde_json::json!(30));
    params.change("valar", &m);
    let b = encode(&State::default(), &params).unwrap();
    let names = names();
    let at = |name: &str| names.iter().position(|n| *n == name).unwrap();
    let mut read = |name: &str| Ok(Some(b[at(name)].clone()));
    let (_, p2) = decode(&mut read, Some("cards")).unwrap().unwrap();
    assert_eq!(p2.value("valar", "base"), serde_json::json!(30));
    assert_ne!(p2.stamp(), 0, "changed rules get a fresh stamp");
    let mut cut = |name: &str| Ok(Some(b[at(name)][..b[at(name)].len() / 2].to_vec()));
    assert!(decode(&mut cut, None).unwrap().is_none());
    let mut missing = |name: &str| Ok((name != "cards@4").then(|| b[at(name)].clone()));
    assert!(decode(&mut missing, None).unwrap().is_none());
    assert!(decode(&mut missing, Some("mepbm")).unwrap().is_some());
    let cfr = Part {
        only: Some("cfr"),
        states: true,
    };
    assert_eq!(needed(cfr), ["ledger.rules@4", "cfr@4", "players.cfr@4"]);
    let players = Part {
        states: false,
        ..cfr
    };
    assert_eq!(needed(players), ["ledger.rules@4", "players.cfr@4"]);
    // The players indexes alone decode without any state section; the
    // states do not.
    let mut no_states = |name: &str| Ok(name.starts_with("players.").then(|| b[at(name)].clone()));
    let indexes = Part {
        only: None,
        states: false,
    };
    let decoded = decode_state(&mut no_states, Some, indexes, false).unwrap();
    assert!(decoded.is_some());
    let decoded = decode_state(&mut no_states, Some, Part::ALL, false).unwrap();
    assert!(decoded.is_none());
    let (mut all, mut every) = (needed(Part::ALL), names.clone());
    all.sort();
    every.sort();
    assert_eq!(all, every, "a query of every namespace reads every section");
}

/// Every [`LAYOUT`] so far, oldest first, with the BLAKE3 of the sections a
/// check fold of `gen::stream(3000, 7)` stores every 400 records (names
/// without the layout, and bytes). A new entry comes with each new layout; an entry never changes.
const LAYOUTS: &[(u32, &str)] = &[
    (
        1,
        "9b8881b563b8c53b8464b5207f75ef00950849ccb99cf32649b802fa2ec936d9",
    ),
    (
        2,
        "1d9e2589e13955d68779dfa1502ab3b05c4db34166154be6e743ce064223b8e7",
    ),
    (
        3,
        "74386ef4278f07198d7076269dac564788683a97d40db17c080bbe6b1abbed0c",
    ),
    (
        4,
        "0dbcbf6c5728e6cf3aaa4839af2d43439e2d34ec16e2f32994ca730e2f33a5c2",
    ),
];

/// The sections' bytes for the same records change only with [`LAYOUT`]:
/// a fold must never read a section written under another layout as its
/// own (a field added or reordered could decode into wrong values, and a
/// rule computed otherwise leaves stale values in the checkpoints). When
/// this fails, raise `LAYOUT` and add its line to [`LAYOUTS`]. The digest
/// also moves when the generator changes; a new layout then only costs the
/// old checkpoints, which no fold reads any more.
#[test]
fn a_change_of_the_sections_bytes_comes_with_a_new_layout() {
    let (names, mut hasher, mut made) = (names(), blake3::Hasher::new(), 0);
    let mut put = |_: Pos, folded: u64, sections: fold::Snapshot| {
        hasher.update(&folded.to_le_bytes());
        for (name, bytes) in names.iter().zip(&sections) {
            let bytes = bytes.as_deref().unwrap_or_default();
            let base = name.split('@').next().unwrap_or_default();
            hasher.update(base.as_bytes());
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        }
        made += 1;
        Ok(())
    };
    generated_with_checkpoints(encode_section, &mut put);
    assert!(made >= 5, "{made} checkpoints");
    let digest = hasher.finalize().to_hex().to_string();
    let numbers: Vec<u32> = LAYOUTS.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        numbers,
        (1..=LAYOUT).collect::<Vec<_>>(),
        "one entry per layout, in order"
    );
    let digests: std::collections::BTreeSet<&str> = LAYOUTS.iter().map(|(_, d)| *d).collect();
    assert_eq!(digests.len(), LAYOUTS.len(), "each layout's bytes differ");
    assert_eq!(
        LAYOUTS.last().map(|(_, d)| *d),
        Some(digest.as_str()),
        "the sections' bytes changed: raise LAYOUT to {} and add ({}, \"{digest}\") to LAYOUTS",
        LAYOUT + 1,
        LAYOUT + 1
    );
}

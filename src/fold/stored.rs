//! A stored record is read as it was accepted: rules that bind new input
//! (an append's records) refuse what an append brings, and never what a
//! ledger already holds, so a ledger written before a rule still folds,
//! and takes appends. Each case folds the same records twice with the
//! append's checks: once as new input (refused), once as stored records
//! (`fresh_from` after them: accepted).

use crate::fold::{fold, MemSource, Query};

/// The check fold of `text` as an append bringing every record, and as
/// one bringing none of them.
fn as_new_and_as_stored(text: &str) -> (Result<(), String>, Result<(), String>) {
    let src = MemSource::from_jsonl(text).expect("parses");
    let run = |fresh_from: u64| {
        let q = Query {
            check: true,
            fresh_from,
            ..Query::default()
        };
        fold(&src, &q).map(drop).map_err(|e| e.to_string())
    };
    (run(0), run(u64::MAX))
}

fn refused_new_read_stored(text: &str, want: &str) {
    let (new, stored) = as_new_and_as_stored(text);
    let err = new.expect_err("refused as new input");
    assert!(err.contains(want), "{err}");
    stored.expect("read as accepted when stored");
}

const DRAW: &str = r#""result":"draw","powers":[{"power":"England","player":"Ann","centers":10},{"power":"France","player":"Bob","centers":8},{"power":"Germany","player":"Cat","centers":6},{"power":"Italy","player":"Dan","centers":5},{"power":"Austria","player":"Eve","centers":3}]"#;

#[test]
fn a_board_played_twice_in_a_round_is_read_as_stored() {
    let game = |id: &str| {
        format!(
            r#"{{"type":"diplomacy.game_ended","at":"2005-05-01","game":"{id}","tournament":"wdc","round":"1","board":"A",{DRAW}}}"#
        )
    };
    let text = format!("{}\n{}\n", game("a"), game("b"));
    refused_new_read_stored(
        &text,
        "board A of round 1 of tournament wdc was played already",
    );
}

#[test]
fn a_power_without_its_player_field_is_read_as_surrendered_when_stored() {
    let text = format!(
        r#"{{"type":"diplomacy.game_ended","at":"2005-05-01","game":"g",{}}}"#,
        DRAW.replace(r#""player":"Eve","#, "")
    );
    refused_new_read_stored(&text, "power Austria has no `player` field");
}

#[test]
fn power_names_written_with_a_space_or_two_ways_are_read_as_stored() {
    let game = |draw: String| {
        format!(r#"{{"type":"diplomacy.game_ended","at":"2005-05-01","game":"g",{draw}}}"#)
    };
    let padded = game(DRAW.replace(r#""power":"Italy""#, r#""power":"Italy ""#));
    refused_new_read_stored(
        &padded,
        r#"power name "Italy " begins or ends with whitespace"#,
    );
    let twice = game(DRAW.replace(r#""power":"Italy""#, r#""power":"england""#));
    refused_new_read_stored(&twice, r#"powers "England" and "england" are one name"#);
}

#[test]
fn a_tournament_differing_from_another_in_case_alone_is_read_as_stored() {
    let cards = |t: &str| {
        format!(
            r#"{{"type":"cards.tournament_created","at":"2010-01-01","tournament":"{t}","point_system":1,"starts":"2010-01-01","ends":"2010-03-31"}}"#
        )
    };
    refused_new_read_stored(
        &format!("{}\n{}\n", cards("spring"), cards("Spring")),
        "differs from it in case alone",
    );
    let sbr = |t: &str| {
        format!(r#"{{"type":"sbr.tournament_created","at":"2020-01-01","tournament":"{t}"}}"#)
    };
    refused_new_read_stored(
        &format!("{}\n{}\n", sbr("sbr20"), sbr("SBR20")),
        "differs from it in case alone",
    );
}

#[test]
fn a_registration_of_a_known_name_is_read_as_stored() {
    let text = format!(
        "{}\n{}\n",
        format_args!(r#"{{"type":"diplomacy.game_ended","at":"2005-05-01","game":"g",{DRAW}}}"#),
        r#"{"type":"ledger.player_registered","at":"2006-01-01","player":"Ann"}"#
    );
    refused_new_read_stored(&text, "\"Ann\" is already a player's name");
}

#[test]
fn a_decimal_spelt_otherwise_is_read_as_stored() {
    let series = r#"{"type":"cfr.series_defined","at":"2012-01-01","series":"wbc","format":"elimination","heat_decay":"00.5"}"#;
    refused_new_read_stored(
        series,
        "`heat_decay` \"00.5\" is not a decimal string: leading zeros are not allowed; write \"0.5\"",
    );
    let rules = r#"{"type":"ledger.rules_changed","at":"2012-01-01","system":"monthly","params":{"factor":" 0.9"}}"#;
    refused_new_read_stored(
        rules,
        "monthly.factor: \" 0.9\" is not a decimal string: spaces are not allowed; write \"0.9\"",
    );
}

/// A stored rules change that does not check (only a ledger written by a
/// laurel whose ranges were wider holds one: every range a stored change is
/// read against only widens) changes nothing in a query's fold, and an
/// append's check fold that reaches it is refused naming it, so that
/// `laurel void SEQ` sets it aside, to the tables queries already show.
#[test]
fn a_stored_rules_change_that_does_not_check_changes_nothing_and_is_named_at_append() {
    let text = r#"{"type":"ledger.rules_changed","at":"2003-01-01","system":"valar","params":{"base":50,"divisor":0}}"#;
    let (new, stored) = as_new_and_as_stored(text);
    for refused in [new, stored] {
        let err = refused.expect_err("refused by a check fold");
        let want = "seq 1, ledger.rules_changed: valar.divisor: 0 is out of range";
        assert!(err.starts_with(want), "{err}");
    }
    let src = MemSource::from_jsonl(text).expect("parses");
    let folded = fold(&src, &Query::default()).expect("a query folds it");
    let in_force = |name: &str| {
        let listing = folded.cx.params.listing();
        let found = listing
            .iter()
            .find(|(d, _)| d.system == "valar" && d.name == name);
        found.map(|(_, v)| v.clone()).unwrap()
    };
    assert_eq!(
        (in_force("base"), in_force("divisor")),
        (45.into(), 150.into())
    );
}

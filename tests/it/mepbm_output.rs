//! Middle-earth PBM's tables as text and CSV, and in the demo.

use crate::common;

use common::{empty_ledger, laurel, ledger_with};

#[test]
fn tables_render_as_text_and_csv() {
    let dir = ledger_with(&["mepbm_valar.jsonl"]);
    let out = laurel(dir.path())
        .args(["standings", "valar", "--format", "csv"])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(
        csv.starts_with("rank,player,score,games\r\n1,Ivy Jones,1871,1\r\n"),
        "{csv}"
    );
    let out = laurel(dir.path())
        .args(["standings", "council"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Best played enemy nation"), "{text}");
}

#[test]
fn demo_prints_all_seven_tables() {
    let dir = empty_ledger();
    let out = laurel(dir.path()).args(["demo", "--all"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for t in [
        "valar", "maia", "istari", "nations", "ainur", "council", "nazgul",
    ] {
        let section = format!("== standings {t} ==\n");
        let at = text
            .find(&section)
            .unwrap_or_else(|| panic!("no {t} in demo"));
        let body = &text[at + section.len()..];
        assert!(
            !body.starts_with('('),
            "{t} has no table: {}",
            &body[..80.min(body.len())]
        );
    }
}

/// Nazgul ties go by more games won, then player name: the name breaks
/// every remaining tie, so ranks are never shared (a draw gives every
/// player 0 of 1).
#[test]
fn nazgul_ties_go_by_games_won_then_name_and_never_share_a_rank() {
    use crate::mepbm::{game_ended, game_started};
    let dir = empty_ledger();
    let text = game_started("gd", "2003-01-04", 2, 2, 0)
        + &game_ended("gd", "2003-06-07", "draw", serde_json::json!([]));
    common::append_ok(dir.path(), &text);
    let out = laurel(dir.path())
        .args(["standings", "nazgul", "--format", "csv"])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    let want = "rank,player,score,won,played\r\n1,gd-ds1,0.0,0,1\r\n2,gd-ds2,0.0,0,1\r\n\
                3,gd-fp1,0.0,0,1\r\n4,gd-fp2,0.0,0,1\r\n";
    assert_eq!(csv, want);
}

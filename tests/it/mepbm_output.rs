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

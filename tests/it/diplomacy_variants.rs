//! The Carnage variants tournaments use (`carnage.centre_points`,
//! `carnage.eliminated`, `carnage.leader_bonus`), Fibonacci's minimum
//! following its base, and the checks of the new `diplomacy.game_ended`
//! fields, through the built binary. The boards are dipvis's Carnage test
//! boards (game_scoring/test_carnage.py), so every number here is one dipvis
//! gives too, except the centre-count solo (see `centre_count_carnage`).

use crate::common;

use common::{append_text, head, ledger_with, standings};
use serde_json::{json, Value};

const POWERS: [&str; 7] = [
    "Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey",
];
const PLAYERS: [&str; 7] = ["a", "b", "c", "d", "e", "f", "g"];

/// A game of the seven powers held by a..g; 0 centres: eliminated in `years`, in order.
fn game(id: &str, result: &str, centers: [i64; 7], years: &[i64], extra: Value) -> String {
    let mut years = years.iter();
    let powers: Vec<Value> = (0..7)
        .map(|i| {
            let mut p = json!({"power": POWERS[i], "player": PLAYERS[i], "centers": centers[i]});
            if centers[i] == 0 {
                p["eliminated"] = json!(years.next().unwrap());
            }
            p
        })
        .collect();
    let mut v = json!({"type": "diplomacy.game_ended", "at": "2025-05-01", "game": id,
        "result": result, "powers": powers});
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v.to_string()
}

/// dipvis's boards: `dv-elim` A out 1904, E 5, F out 1906, G 17, I out 1906,
/// R 5, T 7; `dv-centre` A 11, E 10, F 8, G 2, I 2, R 1, T out 1904; `dv-solo`
/// as `dv-elim` with G on 18 and E on 4, G soloing.
fn dipvis_boards() -> tempfile::TempDir {
    let lines = [
        game(
            "dv-elim",
            "draw",
            [0, 5, 0, 17, 0, 5, 7],
            &[1904, 1906, 1906],
            json!({}),
        ),
        game(
            "dv-centre",
            "draw",
            [11, 10, 8, 2, 2, 1, 0],
            &[1904],
            json!({}),
        ),
        game(
            "dv-solo",
            "solo",
            [0, 4, 0, 18, 0, 5, 7],
            &[1904, 1906, 1906],
            json!({"winner": "Germany"}),
        ),
    ];
    common::ledger_of(&lines.join("\n"))
}

/// Carnage under `rules` (a `carnage` group): each game's scores by power, in
/// Austria ... Turkey order, and the whole JSON.
fn carnage(dir: &tempfile::TempDir, name: &str, rules: Value) -> (Vec<Vec<Value>>, Value) {
    let path = dir.path().join(name);
    let sets = rules.as_object().is_some_and(|p| !p.is_empty());
    std::fs::write(&path, json!({ "carnage": rules }).to_string()).unwrap();
    let mut v = standings(dir.path(), &["carnage", "--rules", path.to_str().unwrap()]);
    // The what-if's mark names the rules file, in a temporary directory; a
    // file that sets nothing leaves the ledger's own answer, unmarked.
    match sets {
        true => assert_eq!(v["rules"], json!(path.to_str().unwrap())),
        false => assert!(v.get("rules").is_none(), "{v}"),
    }
    v.as_object_mut().unwrap().remove("rules");
    let rows = v["tables"]["games"].as_array().unwrap();
    let games = ["dv-elim", "dv-centre", "dv-solo"].map(|g| {
        POWERS
            .iter()
            .map(|p| {
                let r = rows
                    .iter()
                    .find(|r| r["game"] == g && r["power"] == *p)
                    .unwrap();
                r["score"].clone()
            })
            .collect()
    });
    (games.to_vec(), v)
}

fn ints(xs: [i64; 7]) -> Vec<Value> {
    xs.iter().map(|&x| json!(x)).collect()
}

#[test]
fn carnage_with_elimination_order() {
    let dir = dipvis_boards();
    let (g, v) = carnage(&dir, "by_year.json", json!({}));
    // dv-elim: survivors G 7000 + 17, T 6000 + 7, E and R tie 3rd-4th:
    // (5000 + 4000) / 2 + 5 = 4505; F and I (out 1906) share 5th-6th,
    // (3000 + 2000) / 2 = 2500; A (out 1904) 7th, 1000.
    assert_eq!(g[0], ints([1000, 4505, 2500, 7017, 2500, 4505, 6007]));
    // dv-centre: 7011, 6010, 5008, G and I (4000 + 3000) / 2 + 2 = 3502, R 2001, T 1000.
    assert_eq!(g[1], ints([7011, 6010, 5008, 3502, 3502, 2001, 1000]));
    // dv-solo: 28000 + 34 to Germany.
    assert_eq!(g[2], ints([0, 0, 0, 28034, 0, 0, 0]));
    common::insta_settings().bind(|| insta::assert_json_snapshot!("carnage_by_year", v));
}

#[test]
fn carnage_with_dead_equal() {
    let dir = dipvis_boards();
    let (g, v) = carnage(&dir, "tied.json", json!({"eliminated": "tied"}));
    // dv-elim: A, F and I share 5th-7th: (3000 + 2000 + 1000) / 3 = 2000.
    assert_eq!(g[0], ints([2000, 4505, 2000, 7017, 2000, 4505, 6007]));
    // One power out: nothing to share, as by year.
    assert_eq!(g[1], ints([7011, 6010, 5008, 3502, 3502, 2001, 1000]));
    assert_eq!(g[2], ints([0, 0, 0, 28034, 0, 0, 0]));
    let austria = (v["tables"]["games"].as_array().unwrap().iter())
        .find(|r| r["game"] == "dv-elim" && r["power"] == "Austria")
        .unwrap();
    assert_eq!(austria["ranks"], "5-7");
    common::insta_settings().bind(|| insta::assert_json_snapshot!("carnage_tied", v));
}

#[test]
fn carnage_2023_leader_bonus() {
    let dir = dipvis_boards();
    let (g, v) = carnage(&dir, "2023.json", json!({"leader_bonus": 300}));
    // dv-elim: G leads T by 17 - 7 = 10 centres: 7017 + 300 x 10 = 10017.
    assert_eq!(g[0], ints([1000, 4505, 2500, 10017, 2500, 4505, 6007]));
    // dv-centre: A leads E by 1: 7011 + 300 = 7311.
    assert_eq!(g[1], ints([7311, 6010, 5008, 3502, 3502, 2001, 1000]));
    // No bonus on a solo.
    assert_eq!(g[2], ints([0, 0, 0, 28034, 0, 0, 0]));
    // The history, folded with the bonus in force from a rules change, which
    // its formula names.
    let rules = r#"{"type":"ledger.rules_changed","at":"2025-01-01","system":"carnage","params":{"leader_bonus":300}}"#;
    let out = append_text(dir.path(), rules);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let h = common::json(
        dir.path(),
        &["history", "d", "--system", "carnage", "--format", "json"],
    );
    assert_eq!(
        h["rows"][0]["formula"],
        "+10017 = 7000 + 17 centers + 300 x 10 (lead over second) [game dv-elim, Germany: rank 1 of 7, 17 centers] [rules given: carnage.leader_bonus=300]"
    );
    common::insta_settings().bind(|| insta::assert_json_snapshot!("carnage_2023", v));
}

/// Centre-count Carnage: 500 a centre, rank points 7007 down to 1001. dipvis
/// gives a soloist 39028 and each other power 1000 (45028 in all); laurel's
/// solo takes every rank point plus 500 x the board's 34: 28028 + 17000 = 45028,
/// the others 0.
#[test]
fn centre_count_carnage() {
    let dir = dipvis_boards();
    let (g, v) = carnage(
        &dir,
        "centre.json",
        json!({"rank_points": 1001, "centre_points": 500}),
    );
    // dv-elim: G 7007 + 17 x 500 = 15507; T 6006 + 3500 = 9506; E and R
    // (5005 + 4004) / 2 + 2500 = 7004.5; F and I (3003 + 2002) / 2 = 2502.5; A 1001.
    assert_eq!(
        g[0],
        vec![
            json!(1001),
            json!(7004.5),
            json!(2502.5),
            json!(15507),
            json!(2502.5),
            json!(7004.5),
            json!(9506)
        ]
    );
    // dv-centre (dipvis's example 1): A 11 x 500 + 7007 = 12507, E 11006, F 9005,
    // G and I 2 x 500 + (4004 + 3003) / 2 = 4503.5, R 500 + 2002 = 2502, T 1001.
    assert_eq!(
        g[1],
        vec![
            json!(12507),
            json!(11006),
            json!(9005),
            json!(4503.5),
            json!(4503.5),
            json!(2502),
            json!(1001)
        ]
    );
    assert_eq!(g[2], ints([0, 0, 0, 45028, 0, 0, 0]));
    common::insta_settings().bind(|| insta::assert_json_snapshot!("carnage_centre_count", v));
}

#[test]
fn fibonacci_base_1_scores_four_powers() {
    let dir = ledger_with(&["diplomacy_small_boards.jsonl"]);
    let path = dir.path().join("base1.json");
    std::fs::write(&path, r#"{"fibonacci": {"base": 1}}"#).unwrap();
    let f = standings(
        dir.path(),
        &["fibonacci", "--rules", path.to_str().unwrap()],
    );
    // min_powers 5 with base 0 is 4 with base 1: 1, 1, 2, 3 (7): England 12
    // centres 3/7 = 0.4286, France 2/7 = 0.2857, Germany and Russia 1/7 = 0.1429.
    assert_eq!(f["tables"]["refused"], json!([]));
    let got: Vec<Value> = (f["tables"]["games"].as_array().unwrap().iter())
        .filter(|r| r["game"] == "diplomacy-2024-four")
        .map(|r| r["score"].clone())
        .collect();
    assert_eq!(
        got,
        vec![json!(0.4286), json!(0.2857), json!(0.1429), json!(0.1429)]
    );
}

/// Appending `line` to a fresh ledger fails with exit 2 and `needle`, writing nothing.
fn refused(line: &str, needle: &str) {
    let dir = common::empty_ledger();
    let before = head(dir.path());
    let out = append_text(dir.path(), line);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(needle), "missing {needle:?} in: {err}");
    assert_eq!(head(dir.path()), before);
}

const BOARD: [i64; 7] = [10, 8, 6, 5, 3, 2, 0];

#[test]
fn a_concession_names_a_surviving_held_winner() {
    refused(
        &game("c1", "concession", BOARD, &[1907], json!({})),
        "game c1: result is concession but no winner is named",
    );
    refused(
        &game(
            "c1",
            "concession",
            BOARD,
            &[1907],
            json!({"winner": "Turkey"}),
        ),
        "game c1: winner of the concession Turkey holds no centers; a winner survives the game",
    );
    refused(
        &game(
            "c1",
            "concession",
            BOARD,
            &[1907],
            json!({"winner": "Prussia"}),
        ),
        "game c1: winner of the concession Prussia is not one of the game's powers",
    );
}

#[test]
fn a_draw_vote_lists_two_or_more_distinct_survivors() {
    let vote = |draw: Value| game("d1", "draw", BOARD, &[1907], json!({ "draw": draw }));
    refused(
        &vote(json!(["Austria"])),
        "game d1: `draw` lists 1 power(s); a draw is shared by at least two",
    );
    refused(
        &vote(json!(["Austria", "Prussia"])),
        "game d1: draw member Prussia is not one of the game's powers",
    );
    refused(
        &vote(json!(["Austria", "Austria"])),
        "game d1: `draw` lists Austria twice",
    );
    refused(
        &vote(json!(["Austria", "Turkey"])),
        "game d1: draw member Turkey holds no centers; only survivors share a draw",
    );
    refused(
        &game(
            "d1",
            "solo",
            [18, 8, 6, 2, 0, 0, 0],
            &[1905, 1906, 1907],
            json!({"winner": "Austria", "draw": ["Austria", "England"]}),
        ),
        "game d1: result is solo but `draw` lists powers; only a draw has a draw vote",
    );
}

#[test]
fn a_tournament_game_names_its_round() {
    refused(
        &game("t1", "draw", BOARD, &[1907], json!({"tournament": "cup"})),
        "game t1: tournament cup but no round; a tournament game names its round",
    );
    refused(
        &game("t1", "draw", BOARD, &[1907], json!({"round": "1"})),
        "game t1: round and board belong to a tournament; give `tournament` too",
    );
    refused(
        &game("t1", "draw", BOARD, &[1907], json!({"board": "A"})),
        "game t1: round and board belong to a tournament",
    );
}

/// The largest board a game may list, 150 powers: every table of its
/// players renders at once, and `history` of one of them shows its long
/// formula as text. A board of 151 is refused naming the bound (its exact
/// fractions would outgrow machine integers, and cost every table shown).
#[test]
fn the_largest_board_renders_every_table_and_a_larger_one_is_refused() {
    let powers = |n: usize| -> Value {
        let p = |i: usize| json!({"power": i.to_string(), "player": format!("Q{i}"), "centers": 1 + i % 2});
        Value::Array((0..n).map(p).collect())
    };
    let line = |n: usize, game: &str| {
        json!({"type": "diplomacy.game_ended", "at": "2024-03-09", "game": game, "result": "draw",
            "centers_total": 1_000_000, "powers": powers(n)})
        .to_string()
    };
    let dir = ledger_with(&[]);
    let out = append_text(dir.path(), &line(151, "huge"));
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("game huge lists 151 powers; a game lists at most 150"),
        "{said}"
    );
    let out = append_text(dir.path(), &line(150, "big"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let start = std::time::Instant::now();
    for table in ["fibonacci", "carnage", "dss", "sos"] {
        let v = standings(dir.path(), &[table]);
        assert_eq!(v["rows"].as_array().unwrap().len(), 150, "{table}");
    }
    let history = common::laurel(dir.path())
        .args(["history", "Q1", "--system", "fibonacci"])
        .output()
        .unwrap();
    assert!(
        history.status.success(),
        "{}",
        String::from_utf8_lossy(&history.stderr)
    );
    let text = String::from_utf8_lossy(&history.stdout);
    // The row's formula, every power's exact fraction, is written whole.
    assert!(
        text.lines().nth(3).unwrap().len() > 1_000,
        "{}",
        &text[..200]
    );
    let took = start.elapsed();
    assert!(took.as_secs() < 10, "{took:?}");
}

/// `laurel ARGS --format csv` of `dir`: the values of `column` in every row,
/// the numbers inside a `per_game` cell (`g1: 0.1000; g2: 1.0000`) each on
/// its own.
fn csv_values(dir: &std::path::Path, args: &[&str], column: &str) -> Vec<String> {
    let out = common::laurel(dir)
        .args(args)
        .args(["--format", "csv", "--limit", "all"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut r = csv::Reader::from_reader(&out.stdout[..]);
    let i = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == column)
        .unwrap();
    let cells: Vec<String> = r.records().map(|rec| rec.unwrap()[i].to_string()).collect();
    let numbers = |c: &String| -> Vec<String> {
        c.split("; ")
            .map(|s| s.rsplit(": ").next().unwrap().to_string())
            .filter(|s| !s.is_empty())
            .collect()
    };
    cells.iter().flat_map(numbers).collect()
}

/// Has every value exactly `places` decimals?
fn all_with(values: &[String], places: usize) -> bool {
    !values.is_empty()
        && values.iter().all(|v| match v.split_once('.') {
            None => places == 0 && v.parse::<i64>().is_ok(),
            Some((int, frac)) => {
                int.parse::<i64>().is_ok()
                    && frac.len() == places
                    && frac.bytes().all(|b| b.is_ascii_digit())
            }
        })
}

/// A table's scores read alike: Fibonacci, DSS and SoS with 4 decimals
/// (1.3 was `1.30` beside `1.0071`, a solo's 1 was `1`), in the ranking, its
/// per-game scores, the games table and `history`; Carnage whole, or every
/// score with 2 decimals in a table where a tie split a point.
#[test]
fn every_score_of_a_table_shows_one_number_of_decimals() {
    let dir = ledger_with(&[
        "diplomacy_draws.jsonl",
        "diplomacy_small_boards.jsonl",
        "diplomacy_solo_surrender.jsonl",
    ]);
    let d = dir.path();
    for t in ["fibonacci", "dss", "sos"] {
        for column in ["score", "per_game"] {
            let v = csv_values(d, &["standings", t], column);
            assert!(all_with(&v, 4), "{t} {column}: {v:?}");
        }
        let v = csv_values(d, &["standings", t, "--table", "games"], "score");
        assert!(all_with(&v, 4), "{t} games: {v:?}");
    }
    let history = ["history", "Priya Raman", "--system", "fibonacci"];
    let mut v = csv_values(d, &history, "new");
    v.extend(csv_values(d, &history, "old"));
    assert!(all_with(&v, 4), "history: {v:?}");
    let v = csv_values(d, &["standings", "carnage"], "score");
    assert!(all_with(&v, 0), "carnage: {v:?}");

    let boards = dipvis_boards();
    let rules = boards.path().join("centre.json");
    let centre = json!({"carnage": {"rank_points": 1001, "centre_points": 500}});
    std::fs::write(&rules, centre.to_string()).unwrap();
    let r = rules.to_str().unwrap();
    for (args, column) in [
        (vec!["standings", "carnage", "--rules", r], "score"),
        (vec!["standings", "carnage", "--rules", r], "per_game"),
        (
            vec!["standings", "carnage", "--rules", r, "--table", "games"],
            "score",
        ),
    ] {
        let v = csv_values(boards.path(), &args, column);
        assert!(all_with(&v, 2), "{args:?} {column}: {v:?}");
    }
}

/// Six standard powers and "Prussia" read as a misspelt Russia, unless the
/// game names its board by `centers_total` (a variant's).
#[test]
fn a_misspelt_standard_power_is_refused_unless_the_game_gives_its_board() {
    let dir = common::empty_ledger();
    let with = |powers: [&str; 7], extra: &str| {
        let list: Vec<String> = (powers.iter().zip(PLAYERS).zip(1..))
            .map(|((p, pl), c)| format!(r#"{{"power":"{p}","player":"{pl}","centers":{c}}}"#))
            .collect();
        format!(
            r#"{{"type":"diplomacy.game_ended","at":"2023-05-01","game":"g","result":"draw"{extra},"powers":[{}]}}"#,
            list.join(",")
        )
    };
    let mut prussia = POWERS;
    prussia[5] = "Prussia";
    let out = append_text(dir.path(), &with(prussia, ""));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(r#"power "Prussia" is not a power of the standard board"#),
        "{err}"
    );
    assert!(err.contains(r#"did you mean "Russia"?"#), "{err}");
    let out = append_text(dir.path(), &with(prussia, r#","centers_total":34"#));
    assert!(out.status.success(), "{out:?}");
}

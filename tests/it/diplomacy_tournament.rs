//! Diplomacy as tournaments run it, through the built binary: tournaments and
//! rounds, draw votes, concessions, boards of any size and the Carnage
//! variants. Every expected number is worked by hand in the comments; the
//! Carnage boards are dipvis's test boards (game_scoring/test_carnage.py).

use crate::common;

use common::{append_text, head, json, standings};
use serde_json::{json, Value};

const POWERS: [&str; 7] = [
    "Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey",
];

/// A position: `(power, player, centers, eliminated year)`.
type Pos<'a> = (&'a str, &'a str, i64, Option<i64>);

/// A `diplomacy.game_ended` line; `extra` adds fields (winner, draw, tournament...).
fn game(id: &str, at: &str, result: &str, powers: &[Pos], extra: Value) -> String {
    let powers: Vec<Value> = (powers.iter())
        .map(|(power, player, centers, year)| {
            let mut p = json!({"power": power, "player": player, "centers": centers});
            if let Some(y) = year {
                p["eliminated"] = json!(y);
            }
            p
        })
        .collect();
    let mut v = json!({"type": "diplomacy.game_ended", "at": at, "game": id,
        "result": result, "powers": powers});
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v.to_string()
}

/// The seven classic powers held by `players`, with `centers` (0: eliminated in `years`).
fn classic<'a>(players: &[&'a str], centers: &[i64], years: &[i64]) -> Vec<Pos<'a>> {
    let mut years = years.iter();
    (0..7)
        .map(|i| {
            let year = (centers[i] == 0).then(|| *years.next().unwrap());
            (POWERS[i], players[i], centers[i], year)
        })
        .collect()
}

/// A ledger holding `lines`; panics if the append fails.
fn ledger(lines: &[String]) -> tempfile::TempDir {
    common::ledger_of(&lines.join("\n"))
}

/// A rules file in `dir` with `rules`; its path.
fn rules_file(dir: &tempfile::TempDir, name: &str, rules: Value) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, rules.to_string()).unwrap();
    path.to_str().unwrap().to_string()
}

/// `(power, score)` of one game's rows of the `games` table, best rank first.
fn scores(v: &Value, game: &str) -> Vec<(String, Value)> {
    (v["tables"]["games"].as_array().unwrap().iter())
        .filter(|r| r["game"] == game)
        .map(|r| (r["power"].as_str().unwrap().to_string(), r["score"].clone()))
        .collect()
}

fn expect(list: &[(&str, Value)]) -> Vec<(String, Value)> {
    list.iter()
        .map(|(p, s)| (p.to_string(), s.clone()))
        .collect()
}

/// `(player, score)` of every row of a main table, in order.
fn ranking(v: &Value) -> Vec<(Value, Value)> {
    (v["rows"].as_array().unwrap().iter())
        .map(|r| (r["player"].clone(), r["score"].clone()))
        .collect()
}

/// The Spring Cup: two rounds, one board each.
///
/// Round 1 (board A): a 10, b 8, c 6, d 5, e 3, f 2, g out in 1907 (the
/// seed's worked example), and a draw vote of Austria, England and France
/// only: Germany, Italy and Russia survive outside the draw.
///
/// Round 2 (board A): h 9, b 9, c 7, d 5, e 4, f out in 1908, g out in 1905;
/// every survivor draws. Player a sits round 2 out; h plays only round 2.
fn spring_cup() -> Vec<String> {
    let cup = |round: &str| json!({"tournament": "spring-cup", "round": round, "board": "A"});
    let mut r1 = cup("1");
    r1["draw"] = json!(["Austria", "England", "France"]);
    vec![
        game(
            "cup-r1",
            "2025-04-05",
            "draw",
            &classic(
                &["a", "b", "c", "d", "e", "f", "g"],
                &[10, 8, 6, 5, 3, 2, 0],
                &[1907],
            ),
            r1,
        ),
        game(
            "cup-r2",
            "2025-04-06",
            "draw",
            &classic(
                &["h", "b", "c", "d", "e", "f", "g"],
                &[9, 9, 7, 5, 4, 0, 0],
                &[1908, 1905],
            ),
            cup("2"),
        ),
    ]
}

#[test]
fn a_partial_draw_shares_dss_among_the_draw_only() {
    let dir = ledger(&spring_cup());
    let dss = standings(dir.path(), &["dss"]);
    // Three powers in the draw: 1/3 each; Germany, Italy and Russia survive
    // but were left out of the vote: 0, as is eliminated Turkey.
    let third = json!(0.3333);
    assert_eq!(
        scores(&dss, "cup-r1"),
        expect(&[
            ("Austria", third.clone()),
            ("England", third.clone()),
            ("France", third),
            ("Germany", json!(0)),
            ("Italy", json!(0)),
            ("Russia", json!(0)),
            ("Turkey", json!(0)),
        ])
    );
    // Fibonacci, Carnage and Sum-of-Squares ignore the vote: the worked example's
    // 0.4 ... 0.05, 0; 7000 + 10 ... 1000 + 0; 100 / 238 ... 0.
    let fib = standings(dir.path(), &["fibonacci"]);
    assert_eq!(scores(&fib, "cup-r1")[3], ("Germany".into(), json!(0.1)));
    let carnage = standings(dir.path(), &["carnage"]);
    assert_eq!(
        scores(&carnage, "cup-r1")[5],
        ("Russia".into(), json!(2002))
    );
    let sos = standings(dir.path(), &["sos"]);
    // 25 / 238 = 0.10504...
    assert_eq!(scores(&sos, "cup-r1")[3], ("Germany".into(), json!(0.105)));
    // The history says why a survivor scored 0.
    let h = json(
        dir.path(),
        &["history", "d", "--system", "dss", "--format", "json"],
    );
    assert_eq!(
        h["rows"][0]["formula"],
        "+0.0000 = 0 (left out of the 3-way draw) [tournament spring-cup, round 1, board A, \
         game cup-r1, Germany: rank 4 of 7, 5 centers]"
    );
}

#[test]
fn tournament_standings_sum_rounds_with_a_column_each() {
    let dir = ledger(&spring_cup());
    let v = standings(dir.path(), &["fibonacci", "--tournament", "spring-cup"]);
    // Fibonacci 0, 1, 1, 2, 3, 5, 8 (20). Round 1: a 8/20 = 0.4, b 0.25, c 0.15,
    // d 0.1, e 0.05, f 0.05, g 0. Round 2: h and b tie 1st-2nd, (8 + 5) / 2 / 20
    // = 0.325; c 0.15, d 0.1, e 0.05, f (6th, 1908) 0.05, g (7th, 1905) 0.
    // Totals: b 0.575, a 0.4, h 0.325, c 0.3, d 0.2, e and f 0.1 (rank 6), g 0.
    assert_eq!(
        ranking(&v),
        vec![
            (json!("b"), json!(0.575)),
            (json!("a"), json!(0.4)),
            (json!("h"), json!(0.325)),
            (json!("c"), json!(0.3)),
            (json!("d"), json!(0.2)),
            (json!("e"), json!(0.1)),
            (json!("f"), json!(0.1)),
            (json!("g"), json!(0)),
        ]
    );
    let b = common::row(&v, "b");
    assert_eq!(
        (&b["round 1"], &b["round 2"], &b["rounds"], &b["dropped"]),
        (&json!(0.25), &json!(0.325), &json!(2), &json!(""))
    );
    assert_eq!(common::row(&v, "a")["round 2"], Value::Null);
    assert_eq!(common::row(&v, "f")["rank"], json!(6));
    // Carnage: a 7010; b 6008 + (7000 + 6000) / 2 + 9 = 6008 + 6509 = 12517;
    // c 5006 + 5007 = 10013; h 6509; g 1000 + 1000 = 2000.
    let c = standings(dir.path(), &["carnage", "--tournament", "spring-cup"]);
    assert_eq!(common::row(&c, "b")["score"], json!(12517));
    assert_eq!(common::row(&c, "c")["score"], json!(10013));
    assert_eq!(common::row(&c, "h")["score"], json!(6509));
    assert_eq!(common::row(&c, "g")["score"], json!(2000));
    // DSS: b and c 1/3 + 1/5 = 8/15 = 0.5333; d 0 + 1/5.
    let d = standings(dir.path(), &["dss", "--tournament", "spring-cup"]);
    assert_eq!(common::row(&d, "b")["score"], json!(0.5333));
    assert_eq!(common::row(&d, "d")["score"], json!(0.2));
    // The global table is still there, and the same as the tournament's here.
    let all = standings(dir.path(), &["fibonacci"]);
    assert_eq!(common::row(&all, "b")["score"], json!(0.575));
    common::insta_settings().bind(|| insta::assert_json_snapshot!("spring_cup_fibonacci", v));
}

/// The site publishes each scoring table whole and, after it, each of its
/// tournaments on a page of its own, linked from the index; a tournament's
/// page holds its standings.
#[test]
fn the_site_has_a_page_per_tournament_of_each_scoring_table() {
    let dir = ledger(&spring_cup());
    let out = dir.path().join("site");
    common::ok(dir.path(), &["site", out.to_str().unwrap()]);
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for table in ["fibonacci", "carnage", "dss", "sos"] {
        let whole = format!("table-{table}.html");
        let cup = format!("table-{table}--spring-cup.html");
        assert!(index.contains(&format!("href=\"{whole}\"")), "{table}");
        assert!(index.contains(&format!("href=\"{cup}\"")), "{table}");
        let page = std::fs::read_to_string(out.join(&cup)).unwrap();
        assert!(
            page.contains(">Round 2</th>"),
            "{cup}: the tournament's round columns"
        );
    }
    let page = std::fs::read_to_string(out.join("table-fibonacci--spring-cup.html")).unwrap();
    assert!(page.contains("0.575"), "b's tournament total");
}

#[test]
fn best_rounds_counts_each_players_best_n() {
    let dir = ledger(&spring_cup());
    let rules = rules_file(
        &dir,
        "best1.json",
        json!({"diplomacy_tournament": {"best_rounds": 1}}),
    );
    let v = standings(
        dir.path(),
        &["fibonacci", "--tournament", "spring-cup", "--rules", &rules],
    );
    // Best 1 of 2: b max(0.25, 0.325) = 0.325 (round 1 dropped); c 0.15 and
    // 0.15, the earlier round counts (round 2 dropped); a 0.4 and h 0.325 played
    // one. b and h are equal on 0.325: b played more rounds and ranks above.
    assert_eq!(
        ranking(&v),
        vec![
            (json!("a"), json!(0.4)),
            (json!("b"), json!(0.325)),
            (json!("h"), json!(0.325)),
            (json!("c"), json!(0.15)),
            (json!("d"), json!(0.1)),
            (json!("e"), json!(0.05)),
            (json!("f"), json!(0.05)),
            (json!("g"), json!(0)),
        ]
    );
    assert_eq!(common::row(&v, "b")["dropped"], json!("1"));
    assert_eq!(common::row(&v, "c")["dropped"], json!("2"));
    assert_eq!(common::row(&v, "b")["round 1"], json!(0.25));
    assert_eq!(common::row(&v, "h")["rank"], json!(3));
}

#[test]
fn a_players_best_game_of_a_round_counts() {
    // Round 1 has two boards of DSS draws and x plays both (2-power games:
    // DSS and SoS score any board). Board A: x and y draw, 1/2 each. Board B:
    // x and z draw with a third power w left out of the vote: x 1/2, z 1/2.
    // Round 2: x soloes, 1. x's round 1 is its best board, 1/2: total 1.5.
    let t = |round: &str, board: &str| json!({"tournament": "t", "round": round, "board": board});
    let mut b = t("1", "B");
    b["draw"] = json!(["X", "Z"]);
    let dir = ledger(&[
        game(
            "t-1a",
            "2025-01-01",
            "draw",
            &[("X", "x", 5, None), ("Y", "y", 5, None)],
            t("1", "A"),
        ),
        game(
            "t-1b",
            "2025-01-01",
            "draw",
            &[
                ("X", "x", 5, None),
                ("Z", "z", 4, None),
                ("W", "w", 3, None),
            ],
            b,
        ),
        game(
            "t-2a",
            "2025-01-02",
            "solo",
            &[("X", "x", 9, None), ("Y", "y", 1, None)],
            json!({"tournament": "t", "round": "2", "winner": "X"}),
        ),
    ]);
    let v = standings(dir.path(), &["dss", "--tournament", "t"]);
    let x = common::row(&v, "x");
    assert_eq!(
        (&x["score"], &x["round 1"], &x["round 2"], &x["rounds"]),
        (&json!(1.5), &json!(0.5), &json!(1), &json!(2))
    );
    assert_eq!(common::row(&v, "w")["score"], json!(0));
    // The global table counts every game: x 1/2 + 1/2 + 1 = 2 over 3 games.
    let all = standings(dir.path(), &["dss"]);
    assert_eq!(common::row(&all, "x")["score"], json!(2));
    assert_eq!(common::row(&all, "x")["games"], json!(3));
}

#[test]
fn an_unknown_tournament_is_refused_naming_the_known_ones() {
    let dir = ledger(&spring_cup());
    let out = common::laurel(dir.path())
        .args(["standings", "dss", "--tournament", "autumn"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown diplomacy tournament \"autumn\" (known: spring-cup)"),
        "{err}"
    );
}

/// France, 15 centres, is conceded the game: scored as a solo everywhere.
#[test]
fn a_concession_is_scored_as_a_solo() {
    let powers = classic(
        &["a", "b", "c", "d", "e", "f", "g"],
        &[5, 6, 15, 4, 3, 1, 0],
        &[1906],
    );
    let dir = ledger(&[game(
        "conceded",
        "2025-02-01",
        "concession",
        &powers,
        json!({"winner": "France"}),
    )]);
    // Fibonacci, DSS, SoS: France 1, every other 0. Carnage: 1000 x (1 + ... + 7)
    // = 28000, plus the board's 34 centres: 28034.
    for (table, top) in [
        ("fibonacci", json!(1)),
        ("carnage", json!(28034)),
        ("dss", json!(1)),
        ("sos", json!(1)),
    ] {
        let v = standings(dir.path(), &[table]);
        let got = scores(&v, "conceded");
        assert_eq!(got[0], ("France".to_string(), top), "{table}");
        assert!(
            got[1..].iter().all(|(_, s)| *s == json!(0)),
            "{table}: {got:?}"
        );
        assert!(v["tables"]["games"][0]["result"] == "concession", "{table}");
    }
    let h = json(
        dir.path(),
        &["history", "c", "--system", "carnage", "--format", "json"],
    );
    assert_eq!(
        h["rows"][0]["formula"],
        "+28034 = 28000 + 34 (concession: every rank point, 1000 x (1 + ... + 7), plus the \
         board's centers) [game conceded, France: rank 1 of 7, 15 centers]"
    );
    let h = json(
        dir.path(),
        &["history", "b", "--system", "dss", "--format", "json"],
    );
    assert_eq!(
        h["rows"][0]["formula"],
        "+0.0000 = 0 (conceded to France) [game conceded, England: rank 2 of 7, 6 centers]"
    );
}

/// A 17-player variant on a board of 83 centres: positions P01 to P17.
fn seventeen(id: &str, result: &str, centers: &[i64], extra: Value) -> String {
    let names: Vec<(String, String)> = (1..=17)
        .map(|i| (format!("P{i:02}"), format!("p{i:02}")))
        .collect();
    let mut years = [1910, 1908].iter();
    let powers: Vec<Pos> = (names.iter().zip(centers))
        .map(|((power, player), &c)| {
            (
                power.as_str(),
                player.as_str(),
                c,
                (c == 0).then(|| *years.next().unwrap()),
            )
        })
        .collect();
    let mut extra = extra;
    extra["centers_total"] = json!(83);
    game(id, "2025-03-01", result, &powers, extra)
}

/// 12, 10, 9, 8, 7, 6, 6, 5, 5, 4, 3, 3, 2, 2, 1 and two eliminated (1910,
/// 1908): 83 centres in all, more than the classic board's 34.
const V17: [i64; 17] = [12, 10, 9, 8, 7, 6, 6, 5, 5, 4, 3, 3, 2, 2, 1, 0, 0];

#[test]
fn a_17_power_game_on_83_centres() {
    // The solo: P01 holds 42 of 83.
    let mut solo = [2i64; 17];
    solo[0] = 42;
    solo[15] = 0;
    solo[16] = 0;
    // 42 + 14 x 2 = 70 centres held.
    let dir = ledger(&[
        seventeen("v17-draw", "draw", &V17, json!({})),
        seventeen("v17-solo", "solo", &solo, json!({"winner": "P01"})),
    ]);
    let f = standings(dir.path(), &["fibonacci"]);
    // 0, 1, 1, 2, ..., 987 (17 elements) sums to 2583. 1st: 987 / 2583 = 0.3821;
    // 2nd 610 / 2583 = 0.2362; 3rd 377 / 2583 = 0.1460; 6th-7th tie on 6:
    // (89 + 55) / 2 / 2583 = 0.0279; 8th-9th (34 + 21) / 2 / 2583 = 0.0106;
    // 15th 1 / 2583 = 0.0004; 16th (1910) 1 / 2583; 17th (1908) 0.
    let got: Vec<Value> = scores(&f, "v17-draw").into_iter().map(|(_, s)| s).collect();
    assert_eq!(
        got,
        [
            0.3821, 0.2362, 0.146, 0.0902, 0.0557, 0.0279, 0.0279, 0.0106, 0.0106, 0.005, 0.0025,
            0.0025, 0.001, 0.001, 0.0004, 0.0004, 0.0
        ]
        .iter()
        .map(|&x| if x == 0.0 { json!(0) } else { json!(x) })
        .collect::<Vec<_>>()
    );
    let c = standings(dir.path(), &["carnage"]);
    // 1000 x (18 - rank) + centres: 17012, 16010, 15009, 14008, 13007, then the
    // tie on 6: (12000 + 11000) / 2 + 6 = 11506 each; ... 15th 3001; 16th
    // 2000; 17th 1000.
    let got: Vec<Value> = scores(&c, "v17-draw").into_iter().map(|(_, s)| s).collect();
    let want = [
        17012, 16010, 15009, 14008, 13007, 11506, 11506, 9505, 9505, 8004, 6503, 6503, 4502, 4502,
        3001, 2000, 1000,
    ];
    assert_eq!(got, want.iter().map(|&x| json!(x)).collect::<Vec<_>>());
    // The solo: every rank point, 1000 x (1 + ... + 17) = 153000, plus the
    // game's 83 centres: 153083.
    assert_eq!(scores(&c, "v17-solo")[0], ("P01".into(), json!(153083)));
    common::insta_settings().bind(|| insta::assert_json_snapshot!("v17_carnage", c));
}

#[test]
fn a_board_bigger_than_the_parameter_needs_its_centers_total() {
    let dir = common::empty_ledger();
    let before = head(dir.path());
    let mut line: Value = serde_json::from_str(&seventeen("v17", "draw", &V17, json!({}))).unwrap();
    line.as_object_mut().unwrap().remove("centers_total");
    let out = append_text(dir.path(), &line.to_string());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("game v17: the powers hold 83 centers in all, more than the board's 34 (carnage.centers_total)"),
        "{err}"
    );
    line["centers_total"] = json!(82);
    let err =
        String::from_utf8_lossy(&append_text(dir.path(), &line.to_string()).stderr).to_string();
    assert!(
        err.contains("more than the board's 82 (the game's centers_total)"),
        "{err}"
    );
    line["centers_total"] = json!(0);
    let err =
        String::from_utf8_lossy(&append_text(dir.path(), &line.to_string()).stderr).to_string();
    assert!(
        err.contains("game v17: field `centers_total`: 0 is out of range; allowed: an integer from 1 to 1000000"),
        "{err}"
    );
    assert_eq!(head(dir.path()), before);
}

/// A tournament a game names first is a new one only when its name is not a
/// known one's written another way: `Cup 2023` and `CUP_2023` are refused
/// after `cup-2023`; `cup-2024` and `cup-2023b` are tournaments of their own.
#[test]
fn a_new_tournament_named_as_a_known_one_written_another_way_is_refused() {
    let players = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus"];
    let pos = classic(&players, &[10, 8, 6, 5, 3, 2, 0], &[1905]);
    // A day a game: the same board on one day would be one game entered twice.
    let round = |id: &str, t: &str| {
        let extra = json!({"tournament": t, "round": "1", "board": "A"});
        let day = format!("2023-05-0{}", &id[1..]);
        game(id, &day, "draw", &pos, extra)
    };
    let dir = ledger(&[round("g1", "cup-2023")]);
    for t in ["Cup 2023", "CUP_2023"] {
        let out = append_text(dir.path(), &round("g2", t));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{t}: {err}");
        let want =
            format!("tournament {t:?} is new, but a game dated before it names \"cup-2023\"");
        assert!(err.contains(&want), "{t}: {err}");
    }
    assert_eq!(head(dir.path()).0, 1);
    for (id, t) in [("g2", "cup-2024"), ("g3", "cup-2023b")] {
        let out = append_text(dir.path(), &round(id, t));
        assert!(out.status.success(), "{t}: {out:?}");
    }
}

/// A game entered again under another id (the same end, powers, players and
/// centres, listed in another order) is refused naming the stored game and
/// its record; the same board ended a minute later is another game.
#[test]
fn a_game_entered_twice_under_another_id_is_refused() {
    let players = ["a", "b", "c", "d", "e", "f", "g"];
    let powers = classic(&players, &[5, 6, 8, 4, 3, 8, 0], &[1906]);
    let first = game("g1", "2025-02-01T20:00:00Z", "draw", &powers, json!({}));
    let dir = ledger(std::slice::from_ref(&first));
    let mut reordered = powers.clone();
    reordered.reverse();
    let again = game(
        "g1-bis",
        "2025-02-01T20:00:00Z",
        "draw",
        &reordered,
        json!({}),
    );
    common::append_refused(
        dir.path(),
        &again,
        &[
            "game g1-bis: game g1 (record 1) ended at the same time with the same powers, \
             players and centres: a game is entered once",
            "laurel correct 1 FILE --reason TEXT",
        ],
    );
    let other = game("g2", "2025-02-01T20:01:00Z", "draw", &powers, json!({}));
    common::append_ok(dir.path(), &other);
    let moved = classic(&players, &[6, 5, 8, 4, 3, 8, 0], &[1906]);
    common::append_ok(
        dir.path(),
        &game("g3", "2025-02-01T20:00:00Z", "draw", &moved, json!({})),
    );
    // Both in one input: the first is named as this append's.
    common::append_refused(
        common::empty_ledger().path(),
        &format!("{first}\n{again}\n"),
        &["game g1-bis: game g1 (which this append brings) ended at the same time"],
    );
}

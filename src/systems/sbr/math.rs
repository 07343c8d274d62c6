//! Pure rules of the Space Base Race: piece sizes, game score, seed ranks and
//! the ranking of a match. No ledger types here.

use std::cmp::Ordering;

/// The 21 bases (Blokus polyominoes) and their sizes in squares.
pub const PIECES: [(&str, i64); 21] = [
    ("I1", 1),
    ("I2", 2),
    ("I3", 3),
    ("V3", 3),
    ("I4", 4),
    ("L4", 4),
    ("O4", 4),
    ("T4", 4),
    ("Z4", 4),
    ("F", 5),
    ("I5", 5),
    ("L5", 5),
    ("N", 5),
    ("P", 5),
    ("T5", 5),
    ("U", 5),
    ("V5", 5),
    ("W", 5),
    ("X", 5),
    ("Y", 5),
    ("Z5", 5),
];

/// Size of a piece, or None for a name outside the 21-piece set.
pub fn piece_size(name: &str) -> Option<i64> {
    PIECES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// One base as the math sees it: piece name and whether it sits on a bonus tile.
pub type BaseRef<'a> = (&'a str, bool);

/// Game score = sum of piece sizes, times `bonus_multiplier` for a piece on a
/// bonus tile. Errors name the piece: unknown, or placed twice. Any sequence of
/// bases; no allocation unless it fails.
pub fn game_score_of<'a>(
    bases: impl IntoIterator<Item = BaseRef<'a>>,
    bonus_multiplier: i64,
) -> Result<i64, String> {
    let mut seen = 0u32;
    let mut total = 0i64;
    for (piece, bonus) in bases {
        let Some(i) = PIECES.iter().position(|(n, _)| *n == piece) else {
            let names = PIECES.map(|(n, _)| n);
            return Err(format!(
                "piece {piece:?} is not one of the 21 bases ({}){}",
                names.join(", "),
                crate::events::did_you_mean(piece, names)
            ));
        };
        if seen & (1 << i) != 0 {
            return Err(format!(
                "piece {piece} is placed twice (each base at most once per player per game)"
            ));
        }
        seen |= 1 << i;
        let size = PIECES[i].1;
        total += if bonus { size * bonus_multiplier } else { size };
    }
    Ok(total)
}

/// The formula of a game score, so a person can redo the sum:
/// `5×3 + 5 + 4 = 24`.
pub fn score_formula(bases: &[BaseRef], bonus_multiplier: i64) -> String {
    let terms: Vec<String> = bases
        .iter()
        .map(|(p, bonus)| {
            let size = piece_size(p).unwrap_or(0);
            if *bonus {
                format!("{p} {size}×{bonus_multiplier}")
            } else {
                format!("{p} {size}")
            }
        })
        .collect();
    if terms.is_empty() {
        "no bases".into()
    } else {
        terms.join(" + ")
    }
}

/// One player's line in a match, as far as ranking goes. `P` names the player
/// (its order is the display order of lines the tie-breaks leave equal).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Line<P = String> {
    pub player: P,
    /// Sum of the player's game scores in the match.
    pub total: i64,
    /// Highest single game of the match.
    pub best: i64,
    /// The tie-break seed rank (1 best); None (no seed) loses every seed tie-break.
    pub seed: Option<u32>,
}

/// Order of two lines: score, then best single game, then seed rank.
pub fn line_order<P>(a: &Line<P>, b: &Line<P>) -> Ordering {
    b.total
        .cmp(&a.total)
        .then_with(|| b.best.cmp(&a.best))
        .then_with(|| seed_key(a.seed).cmp(&seed_key(b.seed)))
}

fn seed_key(s: Option<u32>) -> u32 {
    s.unwrap_or(u32::MAX)
}

/// Rank a match: lines sorted best first with their place. Lines the
/// tie-breaks leave equal share a place (then sorted by name, for a stable display).
pub fn rank_owned<P: Ord>(mut sorted: Vec<Line<P>>) -> Vec<(u32, Line<P>)> {
    sorted.sort_by(|a, b| line_order(a, b).then_with(|| a.player.cmp(&b.player)));
    let mut out: Vec<(u32, Line<P>)> = Vec::with_capacity(sorted.len());
    for (i, l) in sorted.into_iter().enumerate() {
        let place = match out.last() {
            Some((p, prev)) if line_order(prev, &l) == Ordering::Equal => *p,
            _ => i as u32 + 1,
        };
        out.push((place, l));
    }
    out
}

/// Who advances from a ranked match: every place within the top `advance`.
/// A tie the rules cannot break at the cut lets all tied players through
/// (nobody is eliminated by a coin toss the rules do not define).
pub fn advances(place: u32, advance: i64) -> bool {
    i64::from(place) <= advance
}

/// The group (1, 2, …) of each of `n` seeded players, given in seeding order
/// (best first), for groups of `size`: `ceil(n / size)` groups (at least one),
/// dealt in snake order (1, 2, …, k, k, …, 2, 1, 1, 2, …). Every group but the
/// last holds `size` players; the last holds the rest (bots fill its seats) and
/// is passed over once full. 20 players in groups of 16: group 1 gets seeds 1,
/// 4, 5, 8 and 9 to 20, group 2 seeds 2, 3, 6 and 7.
pub fn snake_groups(n: usize, size: usize) -> Vec<u32> {
    let size = size.max(1);
    let groups = n.div_ceil(size).max(1);
    let cap = |g: usize| {
        if g + 1 < groups {
            size
        } else {
            n - size * (groups - 1)
        }
    };
    let mut filled = vec![0usize; groups];
    let mut out = Vec::with_capacity(n);
    let mut step = 0usize;
    while out.len() < n {
        let (lap, i) = (step / groups, step % groups);
        let g = if lap.is_multiple_of(2) {
            i
        } else {
            groups - 1 - i
        };
        step += 1;
        if filled[g] < cap(g) {
            filled[g] += 1;
            out.push(g as u32 + 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_dealt_in_snake_order_and_the_last_is_filled_by_bots() {
        assert_eq!(snake_groups(4, 16), [1, 1, 1, 1]);
        let twenty = snake_groups(20, 16);
        let of = |g: u32| -> Vec<usize> {
            (twenty.iter().enumerate())
                .filter(|(_, &x)| x == g)
                .map(|(i, _)| i + 1)
                .collect()
        };
        assert_eq!(of(2), [2, 3, 6, 7]);
        assert_eq!(
            of(1),
            [1, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
        );
        // 32 players: two full groups, 1 4 5 8 … and 2 3 6 7 ….
        let full = snake_groups(32, 16);
        assert_eq!(&full[..8], [1, 2, 2, 1, 1, 2, 2, 1]);
        assert_eq!(full.iter().filter(|&&g| g == 1).count(), 16);
        assert!(snake_groups(0, 16).is_empty());
        assert_eq!(snake_groups(3, 0), [1, 2, 3]);
    }

    fn game_score(bases: &[BaseRef], bonus_multiplier: i64) -> Result<i64, String> {
        game_score_of(bases.iter().copied(), bonus_multiplier)
    }

    fn rank_lines(lines: &[Line]) -> Vec<(u32, Line)> {
        rank_owned(lines.to_vec())
    }

    fn line(p: &str, total: i64, best: i64, seed: Option<u32>) -> Line {
        Line {
            player: p.into(),
            total,
            best,
            seed,
        }
    }

    #[test]
    fn the_set_has_21_pieces_and_89_squares() {
        assert_eq!(PIECES.len(), 21);
        assert_eq!(PIECES.iter().map(|(_, s)| s).sum::<i64>(), 89);
        assert_eq!(piece_size("X"), Some(5));
        assert_eq!(piece_size("V3"), Some(3));
        assert_eq!(piece_size("Q"), None);
    }

    #[test]
    fn game_score_triples_bases_on_bonus_tiles() {
        // I5 on a bonus tile 5×3 = 15, X 5, L4 4, I1 on a bonus 1×3 = 3: 27.
        let bases = [("I5", true), ("X", false), ("L4", false), ("I1", true)];
        assert_eq!(game_score(&bases, 3), Ok(27));
        assert_eq!(score_formula(&bases, 3), "I5 5×3 + X 5 + L4 4 + I1 1×3");
        // The multiplier is a parameter.
        assert_eq!(game_score(&bases, 2), Ok(5 * 2 + 5 + 4 + 2));
        // Every piece once, no bonus: 89.
        let all: Vec<BaseRef> = PIECES.iter().map(|(n, _)| (*n, false)).collect();
        assert_eq!(game_score(&all, 3), Ok(89));
        assert_eq!(game_score(&[], 3), Ok(0));
    }

    #[test]
    fn game_score_rejects_unknown_and_repeated_pieces() {
        let e = game_score(&[("Q7", false)], 3).unwrap_err();
        assert!(e.contains("\"Q7\" is not one of the 21 bases"), "{e}");
        // A piece in lower case: the one meant is named.
        let e = game_score(&[("f", false)], 3).unwrap_err();
        assert!(e.ends_with("; did you mean \"F\"?"), "{e}");
        let e = game_score(&[("X", false), ("X", true)], 3).unwrap_err();
        assert!(e.contains("piece X is placed twice"), "{e}");
    }

    #[test]
    fn match_ties_break_on_best_game_then_seed() {
        let ranked = rank_lines(&[
            line("low", 150, 60, Some(1)),
            line("seedy", 170, 50, Some(3)),
            line("best", 170, 52, Some(9)),
            line("top", 200, 55, Some(4)),
            line("seedier", 170, 50, Some(2)),
        ]);
        let order: Vec<(&str, u32)> = ranked
            .iter()
            .map(|(p, l)| (l.player.as_str(), *p))
            .collect();
        assert_eq!(
            order,
            [
                ("top", 1),
                ("best", 2),
                ("seedier", 3),
                ("seedy", 4),
                ("low", 5)
            ]
        );
    }

    #[test]
    fn unbreakable_ties_share_a_place_and_all_advance_at_the_cut() {
        let ranked = rank_lines(&[
            line("a", 100, 30, Some(2)),
            line("b", 120, 40, Some(1)),
            line("c", 100, 30, Some(2)),
            line("d", 90, 30, None),
        ]);
        let places: Vec<u32> = ranked.iter().map(|(p, _)| *p).collect();
        assert_eq!(places, [1, 2, 2, 4]);
        assert!(advances(2, 2) && !advances(3, 2) && !advances(4, 2));
        // Without a seed, a player loses the seed tie-break.
        let r = rank_lines(&[line("x", 10, 5, None), line("y", 10, 5, Some(16))]);
        assert_eq!(r[0].1.player, "y");
        assert_eq!((r[0].0, r[1].0), (1, 2));
    }
}

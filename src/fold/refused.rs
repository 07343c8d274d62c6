//! The refusals of a check fold ([`super::parallel`]): each worker's, noted
//! as it goes on past them, and all workers' merged as a sequential fold's
//! check finds them.

use crate::error::{Error, Stage, REFUSALS_SHOWN};

/// A worker's failure: the fold-order index of the record and the error.
pub(super) type Failed = (u64, Error);

/// A worker's failures, in fold order: the records a check refused, the
/// fold going on past each as if it were not there, and whether the worker
/// stopped after the last (at [`REFUSALS_SHOWN`] of them, or at a failure
/// that is no refusal, such as a record that does not decode).
#[derive(Default)]
pub(super) struct Refused {
    pub(super) list: Vec<Failed>,
    pub(super) stopped: bool,
}

impl Refused {
    /// The worker stops at `f`: its failures so far and `f`, taken.
    pub(super) fn stop(&mut self, f: Failed) -> Self {
        let mut out = std::mem::take(self);
        out.list.push(f);
        out.stopped = true;
        out
    }

    /// Note the check's refusal `f`; `Err` (all taken) once the worker
    /// should stop, at more than [`REFUSALS_SHOWN`].
    pub(super) fn note(&mut self, f: Failed) -> std::result::Result<(), Refused> {
        if self.list.len() < REFUSALS_SHOWN {
            self.list.push(f);
            return Ok(());
        }
        Err(self.stop(f))
    }
}

/// The workers' refusals as a sequential fold's check finds them: the first
/// [`REFUSALS_SHOWN`] in fold order, each record once (a rules change
/// reaches every worker), none past the earliest place a worker stopped at
/// (a sequential fold stops there too); shown in seq order, and the index
/// is the first one's in fold order. A failure that is no refusal is
/// returned alone.
pub(super) fn merged(refused: Vec<Refused>) -> Failed {
    let stop = (refused.iter().filter(|r| r.stopped))
        .filter_map(|r| r.list.last().map(|f| f.0))
        .min();
    let mut list: Vec<Failed> = refused.into_iter().flat_map(|r| r.list).collect();
    list.sort_by_key(|f| f.0);
    list.dedup_by_key(|f| f.0);
    let before = list.len();
    list.retain(|f| stop.is_none_or(|s| f.0 <= s));
    let more = list.len() < before || list.len() > REFUSALS_SHOWN;
    list.truncate(REFUSALS_SHOWN);
    // Damage (a record that does not decode) is no refusal: it is named
    // alone, with its own exit code, whatever was refused before it.
    let refusal = |e: &Error| matches!(e, Error::Invalid { .. } | Error::Dependent { .. });
    if let Some(i) = list.iter().position(|(_, e)| !refusal(e)) {
        return list.swap_remove(i);
    }
    let first = list.first().map_or(0, |f| f.0);
    // Shown in seq order: an append's in input order, file by file, line by line.
    list.sort_by_key(|(index, e)| (e.origin_seq(), *index));
    let errors = list.into_iter().map(|(_, e)| e).collect();
    (first, Error::several(errors, more, Stage::Rules))
}

#[cfg(test)]
mod tests {
    use super::{merged, Refused};
    use crate::error::{Error, Origin};

    fn refusal(seq: u64) -> Error {
        let origin = Origin {
            seq: Some(seq),
            ..Origin::default()
        };
        Error::invalid(origin, format!("record {seq}"))
    }

    /// Two workers: a record both refused (a rules change) is named once,
    /// nothing past where the second stopped, in seq order.
    #[test]
    fn refusals_merge_once_each_in_seq_order_up_to_where_a_worker_stopped() {
        let one = Refused {
            list: vec![(3, refusal(9)), (7, refusal(4))],
            stopped: false,
        };
        let two = Refused {
            list: vec![(3, refusal(9)), (5, refusal(2))],
            stopped: true,
        };
        let (first, e) = merged(vec![one, two]);
        assert_eq!(first, 3);
        let Error::Several { errors, more, .. } = e else {
            panic!("{e}");
        };
        let seqs: Vec<u64> = errors.iter().filter_map(Error::origin_seq).collect();
        assert_eq!(seqs, [2, 9]);
        assert!(more, "record 4 came after the stop");
        let alone = Refused {
            list: vec![(1, refusal(1))],
            stopped: false,
        };
        assert!(matches!(merged(vec![alone]).1, Error::Invalid { .. }));
        // Damage after a refusal is named alone.
        let damaged = Refused {
            list: vec![(1, refusal(1)), (4, Error::Corrupt("chunk 4".into()))],
            stopped: true,
        };
        let (at, e) = merged(vec![damaged]);
        assert!(at == 4 && matches!(e, Error::Corrupt(_)), "{e}");
    }
}

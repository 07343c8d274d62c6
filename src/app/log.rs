//! `laurel log [--from SEQ] [--type TYPE]`: one human line per record, in
//! seq order; from seq `SEQ` on (a seq past the head is refused, as a
//! `--known-at` one is: no record is there), of event type or namespace
//! `TYPE` (an unknown one is refused with the nearest). The site's page
//! of voids, renames and rule changes ([`amendments`]) labels its records
//! as these lines do.
//!
//! A line is the record's seq, `at`, type, hash (its first 16 hex digits)
//! and `recorded_at`, columns of fixed width, then its id and what it says,
//! which may be long or hold names of any width, so nothing follows them but
//! `voided by`. After its id, a record shows its event's fields that hold a
//! string, a number or a list (`match=A round=1 tournament=fall-2026`,
//! `month=2009-01`, `voter="Lars Moreau"`, `scores=[Ana:60,Boris:-20]`, a
//! list whole, nested lists too, cut after 160 characters): what a
//! `correct SEQ` is aimed by, whatever the ids say, and what a correction
//! changed. A `ledger.voided`
//! shows its target and reason where other records show their id:
//! `#4 (cards.match_result r1-A): reason "scores swapped"`; a voided
//! record ends with `voided by #10`. Registrations, renames and rule changes
//! show what they say after their id (`"Ann" → "Anna"`, `valar {"base":50}`).
//! The targets come from the chunk summaries before the walk, and a target
//! always precedes its void, so one walk over the records suffices; what it
//! keeps of targets is the type and id of each voided record. With `--from`, the targets
//! before it of the voids it shows are read first, by seq.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;

use super::stdout_error;
use crate::error::{Error, Result};
use crate::fold::Source;
use crate::ledger::{canonical, chunk::RecordView, Ledger};
use crate::systems::table::Table;
use crate::systems::TYPES;
use crate::time;

/// The envelope fields a log line shows.
#[derive(Clone, serde::Deserialize)]
struct Peek {
    #[serde(rename = "type")]
    kind: String,
    id: Option<String>,
}

/// The reason of a `ledger.voided`.
#[derive(serde::Deserialize)]
struct Reason {
    reason: String,
}

/// `laurel log`, from seq `from` (all: 1), of type or namespace `kind`
/// (all: `None`), written to `w`.
pub fn log(
    path: &Path,
    (from, kind): (Option<u64>, Option<&str>),
    w: &mut dyn Write,
) -> Result<()> {
    let ledger = Ledger::read(path)?;
    let wanted = kind.map(known_kind).transpose()?;
    // The type column is as wide as the longest type.
    let kinds = TYPES.iter().map(|t| t.len()).max().unwrap_or(0);
    let from = from.unwrap_or(1);
    let last = ledger.head()?.seq;
    if from > last.max(1) {
        return Err(Error::Usage(format!(
            "--from {from}: the ledger's last record is seq {last}"
        )));
    }
    // Voided seq → the seq of its void.
    let mut voided_by = BTreeMap::new();
    let source = ledger.source()?;
    source.void_pairs(&mut |seq, target| {
        voided_by.insert(target, seq);
        Ok(())
    })?;
    // Each target's "kind id", kept as the walk passes it, those before
    // `from` of the voids after it first.
    let mut targets = targets_before(&source, &voided_by, from)?;
    ledger.for_each_record(from, &mut |r, recorded_at| {
        let peek: Peek = decode(r)?;
        if voided_by.contains_key(&r.seq) {
            targets.insert(r.seq, peek.clone());
        }
        if wanted.is_some_and(|t| !of_kind(&peek.kind, t)) {
            return Ok(());
        }
        let label = label_of(r, &peek, &targets)?;
        let mut line = format!(
            "{:>6}  {:<20}  {:<kinds$}  {}  recorded {recorded_at}  {label}",
            r.seq,
            time::format_short(r.at),
            peek.kind,
            &canonical::hex(&r.hash)[..16],
        );
        if let Some(v) = voided_by.get(&r.seq) {
            line.push_str(&format!("  voided by #{v}"));
        }
        line.push('\n');
        w.write_all(line.as_bytes()).map_err(stdout_error)
    })
}

/// What a record says after its seq, date and type: its id, then what its
/// event says ([`void_label`], [`ledger_content`], [`fields_of`]);
/// `targets` holds the voided records' types and ids, by seq.
fn label_of(r: &RecordView, peek: &Peek, targets: &BTreeMap<u64, Peek>) -> Result<String> {
    let id = peek.id.clone().unwrap_or_default();
    if let Some(target) = r.void_target {
        let reason = decode::<Reason>(r)?.reason;
        let what = targets.get(&target).map(what_it_was);
        return Ok(void_label(&id, target, what.as_ref(), &reason));
    }
    let what = match ledger_content(&peek.kind, r)? {
        Some(what) => what,
        None => fields_of(r)?,
    };
    Ok([id, what].join(" ").trim().to_string())
}

/// The system a `ledger.rules_changed` sets parameters of.
#[derive(serde::Deserialize)]
struct RulesOf {
    system: String,
}

/// The records up to seq `upto` that amend what the ledger says of a value
/// without being a result: every void (a correction's too), rename and
/// rule change, in the order recorded, each as `laurel log` labels it, a
/// voided one ending `voided by #N`. A rule change and a void of a system's
/// record are listed only when `shown(namespace)` says their system's
/// tables are published (a void of a rule change, when the changed
/// system's are); renames and voids of other `ledger.*` records always.
/// Registrations, many and saying nothing of a value, are left out.
/// The site's page of corrections ([`crate::site::Site::amendments`]). One
/// walk over the records, each decoded only when its bytes name a `ledger.`
/// type.
pub(crate) fn amendments(
    ledger: &Ledger,
    upto: u64,
    shown: &dyn Fn(&str) -> bool,
) -> Result<Table> {
    let mut t = Table::new(
        "amendments",
        "Voids, renames and rule changes, in the order recorded, with their reasons",
        &["seq", "at", "type", "what"],
    );
    let source = ledger.source()?;
    let mut voided_by = BTreeMap::new();
    source.void_pairs(&mut |seq, target| {
        if seq <= upto {
            voided_by.insert(target, seq);
        }
        Ok(())
    })?;
    let seqs: Vec<u64> = voided_by.keys().copied().collect();
    let targets = targets_of(&source, &seqs)?;
    // A system's namespace shown, or a `ledger.*` type.
    let of_shown = |kind: &str| match kind.split_once('.') {
        Some(("ledger", _)) | None => true,
        Some((ns, _)) => shown(ns),
    };
    let ledger_type = memchr::memmem::Finder::new(br#""type":"ledger."#);
    // The rule changes of systems not shown: their voids are not shown
    // either (a void follows its target, so the walk has met it).
    let mut unshown_rules = BTreeSet::new();
    ledger.for_each_record(1, &mut |r, _| {
        if r.seq > upto || ledger_type.find(r.event).is_none() {
            return Ok(());
        }
        let peek: Peek = decode(r)?;
        let listed = match peek.kind.as_str() {
            "ledger.rules_changed" => {
                let group = decode::<RulesOf>(r)?.system;
                let listed = crate::systems::namespace_of_group(&group).is_none_or(shown);
                if !listed {
                    unshown_rules.insert(r.seq);
                }
                listed
            }
            "ledger.voided" => r.void_target.is_none_or(|s| {
                !unshown_rules.contains(&s) && targets.get(&s).is_none_or(|v| of_shown(&v.kind))
            }),
            kind => kind == "ledger.player_renamed",
        };
        if !listed {
            return Ok(());
        }
        let mut what = label_of(r, &peek, &targets)?;
        if let Some(v) = voided_by.get(&r.seq) {
            what.push_str(&format!("  voided by #{v}"));
        }
        t.push(vec![
            r.seq.into(),
            time::format_short(r.at).into(),
            peek.kind.into(),
            what.into(),
        ]);
        Ok(())
    })?;
    Ok(t)
}

/// What an event says in short: its fields that hold a string, a number
/// or a list, `field=value` in canonical (key) order, `type`, `at` and `id`
/// left out (`match=A round=1 tournament=fall-2026`, `month=2009-01`,
/// `scores=[Ana:60,Boris:-20]`), so that `correct SEQ` can be aimed
/// whatever the ids are, and a correction's record shows what it changed.
fn fields_of(r: &RecordView) -> Result<String> {
    let event: serde_json::Map<String, serde_json::Value> = decode(r)?;
    let shown = event
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "type" | "at" | "id"));
    let fields: Vec<String> = shown
        .filter_map(|(k, v)| match v {
            serde_json::Value::Array(_) => Some(format!("{k}={}", cut(short(v)))),
            v => Some(format!("{k}={}", scalar(v)?)),
        })
        .collect();
    Ok(fields.join(" "))
}

/// The longest list [`fields_of`] shows, in characters (then `…`).
const LIST_SHOWN: usize = 160;

/// `text` cut after [`LIST_SHOWN`] characters, marked `…`.
fn cut(text: String) -> String {
    match text.char_indices().nth(LIST_SHOWN) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// A value in short, whole: a list's items in brackets joined by `,`, an
/// object's values (in key order) joined by `:`, a bot's `null` as `-`
/// (`[Ana:60,Boris:-20]`, `[[F:true,I5:false]:Curiosity:red,-:30:yellow]`).
fn short(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Array(items) => {
            format!(
                "[{}]",
                items.iter().map(short).collect::<Vec<_>>().join(",")
            )
        }
        serde_json::Value::Object(m) => m.values().map(short).collect::<Vec<_>>().join(":"),
        serde_json::Value::Null => "-".into(),
        serde_json::Value::Bool(b) => b.to_string(),
        v => scalar(v).unwrap_or_default(),
    }
}

/// A string or number as a log line shows it; `None` for anything else.
fn scalar(v: &serde_json::Value) -> Option<String> {
    match v {
        // Quoted when it would not read as one value (`voter="Lars Moreau"`).
        serde_json::Value::String(s)
            if s.is_empty()
                || s.contains(|c: char| {
                    c.is_whitespace() || matches!(c, '=' | '"' | ',' | ':' | '[' | ']')
                }) =>
        {
            Some(v.to_string())
        }
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `kind` as `--type` names records: an event type, or a namespace
/// (`cards`, `ledger`); else a usage error naming the nearest.
fn known_kind(kind: &str) -> Result<&str> {
    if TYPES.iter().any(|t| of_kind(t, kind)) {
        return Ok(kind);
    }
    let namespaces = TYPES
        .iter()
        .filter_map(|t| t.split_once('.').map(|(ns, _)| ns));
    let hint = crate::events::did_you_mean_type(kind, TYPES.iter().copied().chain(namespaces));
    Err(Error::Usage(format!(
        "--type {kind:?}: no event type or namespace{hint} (`laurel events` lists them)"
    )))
}

/// Is an event of type `kind` one `--type wanted` shows?
fn of_kind(kind: &str, wanted: &str) -> bool {
    kind == wanted || kind.split_once('.').is_some_and(|(ns, _)| ns == wanted)
}

/// A voided record as its void's line names it: `kind id`.
fn what_it_was(peek: &Peek) -> String {
    match &peek.id {
        Some(id) => format!("{} {id}", peek.kind),
        None => peek.kind.clone(),
    }
}

/// The types and ids of the voided records before seq `from` whose voids
/// are at or after it, by seq.
fn targets_before(
    source: &dyn Source,
    voided_by: &BTreeMap<u64, u64>,
    from: u64,
) -> Result<BTreeMap<u64, Peek>> {
    let seqs: Vec<u64> = (voided_by.iter())
        .filter(|(t, v)| **t < from && **v >= from)
        .map(|(t, _)| *t)
        .collect();
    targets_of(source, &seqs)
}

/// The types and ids of the records with these seqs, by seq.
fn targets_of(source: &dyn Source, seqs: &[u64]) -> Result<BTreeMap<u64, Peek>> {
    let mut out = BTreeMap::new();
    source.records(seqs, &mut |r| {
        let peek = Peek {
            kind: r.kind.clone(),
            id: r.id.clone(),
        };
        out.insert(r.seq, peek);
        Ok(())
    })?;
    Ok(out)
}

/// What a `ledger.*` record other than a void says, shown after its id: a
/// registration's name, a rename's `from → to`, a rule change's system and
/// parameters (they have no id of their own to tell them by), and the
/// reason a rename or rule change gives.
fn ledger_content(kind: &str, r: &RecordView<'_>) -> Result<Option<String>> {
    let quoted = |v: &serde_json::Value| v.to_string();
    let v: serde_json::Value = match kind {
        "ledger.player_registered" | "ledger.player_renamed" | "ledger.rules_changed" => decode(r)?,
        _ => return Ok(None),
    };
    let said = match v.get("reason").and_then(|r| r.as_str()) {
        Some(reason) => format!(": {}", reason_said(reason)),
        None => String::new(),
    };
    Ok(Some(match kind {
        "ledger.player_registered" => quoted(v.get("player").or(v.get("name")).unwrap_or(&v)),
        "ledger.player_renamed" => {
            format!("{} → {}{said}", quoted(&v["from"]), quoted(&v["to"]))
        }
        _ => format!(
            "{} {}{said}",
            v["system"].as_str().unwrap_or("?"),
            v["params"]
        ),
    }))
}

fn decode<'a, T: serde::Deserialize<'a>>(r: &RecordView<'a>) -> Result<T> {
    serde_json::from_slice(r.event).map_err(|e| Error::Corrupt(format!("record {}: {e}", r.seq)))
}

/// A reason (a void's, a rule change's, a rename's) as `log` and `history`
/// show it: `reason "…"`, quoted as a JSON string (no character of it can
/// break the line).
pub(super) fn reason_said(reason: &str) -> String {
    format!(
        "reason {}",
        serde_json::to_string(reason).unwrap_or_default()
    )
}

/// What a void's line shows in place of an id: its own id if any, then
/// `#TARGET (kind id): reason "…"` (the reason quoted as a JSON string).
fn void_label(id: &str, target: u64, what: Option<&String>, reason: &str) -> String {
    let what = what.map(|w| format!(" ({w})")).unwrap_or_default();
    let label = format!("#{target}{what}: {}", reason_said(reason));
    match id {
        "" => label,
        id => format!("{id} {label}"),
    }
}

#[cfg(test)]
mod tests {
    use super::void_label;

    #[test]
    fn a_void_label_names_target_kind_id_and_quoted_reason() {
        let what = "cards.match_result r1-A".to_string();
        assert_eq!(
            void_label("", 4, Some(&what), "say \"hi\""),
            r#"#4 (cards.match_result r1-A): reason "say \"hi\"""#
        );
        assert_eq!(void_label("v1", 4, None, "x"), r#"v1 #4: reason "x""#);
    }
}

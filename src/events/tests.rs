use super::*;
use crate::systems::Event;
use serde_json::json;

// The event layer's tests, in the registry's vocabulary.
type Record = super::Record<Event>;
type Screened = super::Screened<Event>;
type LineParser = super::LineParser<Event>;

fn parse_event(v: Value) -> Result<Screened, String> {
    super::parse_event(v)
}

fn err(v: Value) -> String {
    parse_event(v).unwrap_err()
}

#[test]
fn envelope_rules_name_the_field() {
    assert!(err(json!({"type": "nope.x", "at": "2003-01-01"})).contains("unknown event type"));
    assert!(err(json!({"at": "2003-01-01"})).contains("`type`"));
    assert!(err(json!({"type": "mepbm.monthly_tick"})).contains("`at`"));
    let e =
        err(json!({"type": "mepbm.monthly_tick", "at": "2003-01-01", "month": "2003-01", "x": 1}));
    assert!(e.contains("unknown field `x`"), "{e}");
    // A nested object's unknown field is no envelope's: no note of them.
    let e = err(
        json!({"type": "mepbm.game_ended", "at": "2003-01-01", "game": "7",
        "nations": [{"nation": "N", "typ": 1}], "turn": 1}),
    );
    assert!(
        e.contains("field `nations[0].typ`: unknown field `typ`"),
        "{e}"
    );
    assert!(
        !e.contains("envelope") && !e.contains("did you mean"),
        "{e}"
    );
    let e = err(json!({"type": "mepbm.monthly_tick", "at": "2003-01-01"}));
    assert!(e.contains("missing field `month`"), "{e}");
    let e = err(json!({"type": "mepbm.rating_seeded", "at": "2003-01-01",
        "player": "a", "system": "valar", "value": "x"}));
    assert!(e.contains("field `value`"), "{e}");
    let e = err(json!({"type": "mepbm.rating_seeded", "at": "2003-01-01",
        "player": "a", "system": "valar", "value": 1.5}));
    assert!(e.contains("`value`") && e.contains("floating-point"), "{e}");
}

#[test]
fn a_stored_event_decodes_to_what_its_input_parsed_to() {
    let gen = crate::systems::gen::stream(400, 3);
    let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
    for line in bundled.chain(gen.lines()).filter(|l| !l.trim().is_empty()) {
        let p = parse_event(serde_json::from_str(line).unwrap()).unwrap();
        let rec = decode_stored(&p.canonical, 3, p.at, 9).unwrap();
        let want = (&p.id, &p.kind, p.event.as_ref().unwrap());
        assert_eq!((&rec.id, &rec.kind, &rec.event), want, "{line}");
        let h = stored_header(&p.canonical).unwrap();
        let id = h.id.map(std::borrow::Cow::into_owned);
        assert_eq!((h.at, id), (p.at, p.id), "{line}");
    }
}

/// A record decoded as a fold decodes it.
fn decode(bytes: &[u8]) -> Result<Record, String> {
    decode_stored(bytes, 3, 7, 9)
}

/// An identifier with a space at an end (which an append refuses: the
/// registry's `idents_written`) reads back as stored: rules of input may
/// tighten, and what a ledger holds stays readable.
#[test]
fn a_stored_identifier_with_a_space_at_an_end_reads_as_it_was_accepted() {
    let stored = br#"{"at":"2003-01-01","game":"177 ","nation":"Noldo Elves","player":"Elrond","type":"mepbm.nation_taken_over"}"#;
    let rec = decode(stored).unwrap();
    let crate::systems::Event::Mepbm(crate::systems::mepbm::events::Event::NationTakenOver(e)) =
        &rec.event
    else {
        panic!("{:?}", rec.event);
    };
    assert_eq!(e.game.0, "177 ");
    let written = crate::systems::State::idents_written(&rec);
    assert_eq!(
        written.unwrap_err(),
        r#"field `game`: identifier "177 " begins or ends with whitespace: write "177""#
    );
}

#[test]
fn odd_records_decode_only_with_one_plain_type_found_from_their_end() {
    let gen = crate::systems::gen::stream(400, 3);
    let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
    let mut guessed = 0;
    for line in bundled.chain(gen.lines()).filter(|l| !l.trim().is_empty()) {
        let p = parse_event(serde_json::from_str(line).unwrap()).unwrap();
        decode(&p.canonical).unwrap();
        guessed += usize::from(guess_stored_kind(&p.canonical).is_some());
    }
    // Every canonical event's `type` is found from its end (a key after
    // `type` is no obstacle).
    assert!(guessed > 400, "{guessed}");
    let tick = r#""at":"2003-01-01T00:00:00Z","month":"2003-01""#;
    let odd = [
        // A key after `type` (refused by the payload), an escaped id, a null id.
        format!(r#"{{{tick},"type":"mepbm.monthly_tick","zz":1}}"#),
        format!(r#"{{{tick},"id":"a\"b","type":"mepbm.monthly_tick"}}"#),
        format!(r#"{{"id":null,{tick},"type":"mepbm.monthly_tick"}}"#),
        // Escaped or repeated envelope fields, a wrong id: not laid out as
        // laurel stores events.
        format!(r#"{{{tick},"type":"mepbm.monthly\u005ftick"}}"#),
        format!(r#"{{{tick},"typ\u0065":"cfr.x","type":"mepbm.monthly_tick"}}"#),
        format!(r#"{{{tick},"type":"cfr.x","type":"mepbm.monthly_tick"}}"#),
        format!(r#"{{"id":"a","id":"b",{tick},"type":"mepbm.monthly_tick"}}"#),
        format!(r#"{{"id":5,{tick},"type":"mepbm.monthly_tick"}}"#),
        // A nested `type` last; malformed and trailing bytes.
        format!(r#"{{{tick},"type":"mepbm.monthly_tick","x":{{"type":"cfr.x"}}}}"#),
        format!(r#"{{"a":{{{tick},"type":"mepbm.monthly_tick"}}"#),
        format!(r#"{{{tick},"type":"mepbm.monthly_tick"}}{{"type":"cfr.x"}}"#),
        format!(r#"{{"x":{{{tick}}},"type":"mepbm.monthly_tick"}}"#),
        format!(r#"{{{tick},"type":"mepbm.nope"}}"#),
        format!(r#"{{{tick},"type":"mepbm.monthly_tick""#),
    ];
    let ok: Vec<bool> = odd.iter().map(|o| decode(o.as_bytes()).is_ok()).collect();
    let want = [
        false, true, true, false, false, false, false, false, false, false, false, false, false,
        false,
    ];
    assert_eq!(ok, want);
    // An escaped `type`, a `type` or `id` given twice: laurel never writes them.
    for o in [&odd[3], &odd[4], &odd[5], &odd[6]] {
        assert_eq!(decode(o.as_bytes()).unwrap_err(), NOT_CANONICAL, "{o}");
    }
    // A `type` nested in a later member is passed over for the top-level one.
    let nested = odd[8].as_bytes();
    let kind = guess_stored_kind(nested).map(|k| &nested[k]);
    assert_eq!(kind, Some(&b"mepbm.monthly_tick"[..]));
    assert!(guess_stored_kind(odd[0].as_bytes()).is_some());
}

#[test]
fn stored_bytes_that_are_not_utf8_are_an_error_and_other_scripts_decode() {
    let event = |id: &[u8]| {
        let head = br#"{"at":"2003-01-01T00:00:00Z","id":""#;
        let tail = br#"","month":"2003-01","type":"mepbm.monthly_tick"}"#;
        [&head[..], id, &tail[..]].concat()
    };
    let bad = event(b"a\xffb");
    assert!(guess_stored_kind(&bad).is_some());
    let e = decode(&bad).unwrap_err();
    assert!(e.contains("invalid unicode"), "{e}");
    // The decode itself refuses the id it reads: it is not read as
    // text (which would take the bytes for granted, or replace them).
    let mut cap = skip::Capture::default();
    let one_pass = dispatch::<Event>("mepbm.monthly_tick", Capturing(&bad, &mut cap));
    assert!(one_pass.is_err(), "{one_pass:?}");
    let fine = decode(&event("Éowyn ☘".as_bytes())).unwrap();
    assert_eq!(fine.id.as_deref(), Some("Éowyn ☘"));
}

/// Verify's header read: `at`, `id` (borrowed, or decoded from escapes) and
/// a void's target, from an event laid out as laurel stores it.
#[test]
fn the_stored_header_reads_at_id_and_a_voids_target() {
    let void = r#"{"at":"2003-02-01","reason":"typo","target":7,"type":"ledger.voided"}"#;
    let h = stored_header(void.as_bytes()).unwrap();
    assert_eq!((h.id, h.void_target), (None, Some(7)));
    let tick = r#"{"at":"2003-01-01T00:00:00Z","id":"a\u0062","month":"2003-01","type":"mepbm.monthly_tick"}"#;
    let h = stored_header(tick.as_bytes()).unwrap();
    let at = time::parse("2003-01-01").unwrap();
    assert_eq!(
        (h.at, h.id.as_deref(), h.void_target),
        (at, Some("ab"), None)
    );
}

/// Records with bytes changed, dropped or repeated: the decode answers (no
/// panic), and values the payload types refuse (`-0`, fractions, leading
/// zeros, repeats, out of range) are refused.
#[test]
fn damaged_records_are_answered_and_bad_values_refused() {
    let gen = crate::systems::gen::stream(600, 5);
    let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let edits: &[&[u8]] = &[
        b"", b"\\\\", b" ", b"0", b"-", b".5", b"null", b"\\\"", b",", b"}",
    ];
    let (mut decoded, mut guessed) = (0, 0);
    for line in bundled.chain(gen.lines()).filter(|l| !l.trim().is_empty()) {
        let p = parse_event(serde_json::from_str(line).unwrap()).unwrap();
        for _ in 0..12 {
            let mut b = p.canonical.clone();
            let at = next(b.len());
            let cut = next(3).min(b.len() - at);
            b.splice(at..at + cut, edits[next(edits.len())].iter().copied());
            decoded += usize::from(decode(&b).is_ok());
            guessed += usize::from(guess_stored_kind(&b).is_some());
        }
    }
    // Most mutations leave the end of the record alone, so the payload is
    // what they damage.
    assert!(decoded > 100 && guessed > 3000, "{decoded} {guessed}");
    let ended = |fields: &str| {
        format!(r#"{{"at":"2003-01-01",{fields},"type":"mepbm.game_ended","winner":"FP"}}"#)
    };
    let bad = [
        r#""game":"7","nations":[],"turn":-0"#,
        r#""game":"7","nations":[],"turn":1.0"#,
        r#""game":"7","nations":[],"turn":01"#,
        r#""game":"7","nations":[],"turn":1,"turn":2"#,
        r#""game":"","nations":[],"turn":1"#,
        r#""game":-1,"nations":[],"turn":1"#,
        r#""game":18446744073709551616,"nations":[],"turn":1"#,
        r#""game":"7","nations":[],"turn":9223372036854775808"#,
        r#""game":"7","nations":[],"turn":1,"x":1"#,
    ];
    for b in bad.map(ended) {
        decode(b.as_bytes()).unwrap_err();
    }
    let edge = ended(r#""game":18446744073709551615,"nations":[],"turn":-9223372036854775808"#);
    decode(edge.as_bytes()).unwrap();
}

/// `screen`'s promise: the line's `parse` result, at once or (a deferred
/// payload) from parsing the canonical bytes it keeps.
fn screen_agrees(parser: &mut LineParser, line: &[u8]) {
    let msg = |e: LineError| match e {
        LineError::Json(e, _) => format!("json: {e}"),
        LineError::Event(m) => m,
    };
    let want = parser.parse(line).map_err(msg);
    let got = match parser.screen(line).map_err(msg) {
        Ok(s) if s.event.is_none() => {
            assert!(deferred::<Event>(&s.kind), "{s:?}");
            let later = parser.parse(&s.canonical);
            later
                .map_err(msg)
                .inspect(|p| assert_eq!(p.canonical, s.canonical))
        }
        other => other,
    };
    assert_eq!(got, want, "{}", String::from_utf8_lossy(line));
}

/// The parser thread's saving: `screen` decodes no payload but `ledger.*`
/// ones (the bundled events have both kinds).
#[test]
fn screen_defers_every_payload_but_ledger_ones() {
    let mut parser = LineParser::default();
    let (mut kept, mut left) = (0, 0);
    let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
    let gen = crate::systems::gen::stream(2000, 7);
    for line in bundled.chain(gen.lines()).filter(|l| l.starts_with('{')) {
        let s = parser.screen(line.as_bytes()).unwrap();
        assert_eq!(s.event.is_none(), !s.kind.starts_with("ledger."), "{line}");
        match s.event {
            Some(_) => kept += 1,
            None => left += 1,
        }
    }
    assert!(kept > 0 && left > 1000, "{kept} decoded, {left} deferred");
}

/// Every line of the bundled samples and of a generated stream parses;
/// its canonical form is laid out as laurel stores events (the stored
/// header reads it), is the line's JSON as serde_json writes a `Value`
/// (keys sorted, no whitespace), and parses to itself.
#[test]
fn every_sample_and_generated_line_parses_to_a_canonical_form_of_itself() {
    let gen = crate::systems::gen::stream(2000, 7);
    let bundled = crate::demo::BUNDLED.iter().flat_map(|(_, t)| t.lines());
    let mut parser = LineParser::default();
    for line in bundled.chain(gen.lines()).filter(|l| l.starts_with('{')) {
        let p = parser.parse(line.as_bytes()).unwrap();
        let c = &p.canonical;
        stored_header(c).unwrap_or_else(|e| panic!("{e}: {line}"));
        let value = serde_json::from_str::<Value>(line).unwrap();
        assert_eq!(c, &serde_json::to_vec(&value).unwrap(), "{line}");
        assert_eq!(&parser.parse(c).unwrap().canonical, c, "{line}");
        screen_agrees(&mut parser, line.as_bytes());
    }
}

/// The hint a line that ends inside its value is given.
const EOF_HINT: &str = "; laurel reads JSON Lines (one event a line) or one JSON array of events \
    (an event written over several lines belongs in an array)";

/// What a line's parse gives: `OK` and its canonical form, `EV` and the
/// event's refusal, `JSON` and the message for serde_json's.
fn answer(parser: &mut LineParser, line: &[u8]) -> String {
    match parser.parse(line) {
        Ok(s) => format!("OK {}", String::from_utf8_lossy(&s.canonical)),
        Err(LineError::Event(m)) => format!("EV {m}"),
        Err(LineError::Json(e, place)) => {
            format!("JSON {}", input::invalid_json(&e, place.as_deref()))
        }
    }
}

/// Odd and bad lines, each with its answer. Of several problems, the first
/// class in this order is named: not JSON, a key given twice, a value no
/// event may hold, not an object, the envelope, the payload; within a
/// class, the first in reading order (the payload's, in key order: it is
/// decoded from the canonical bytes).
#[test]
fn odd_and_bad_lines_get_these_answers() {
    const ENV: &str = " (or the envelope's `type`, `at`, `id`)";
    let tick = r#""type":"mepbm.monthly_tick","at":"2003-01-01""#;
    let rules = |p: &str| {
        format!(
            r#"{{"type":"ledger.rules_changed","at":"2003-01-01","system":"valar","params":{p}}}"#
        )
    };
    let float = "is a floating-point number; laurel accepts only integers (write fractions as decimal strings, e.g. \"0.98\")";
    let printable = "names and text must be printable";
    let wide = "integers must lie between -9007199254740991 and 9007199254740991";
    let exact = "the largest integer every JSON reader keeps exact (RFC 8785 hashes numbers as doubles); an identifier this large is written as a string";
    let cases: Vec<(String, String)> = vec![
        (format!(r#" {{ {tick} , "month" : "2003-01" , "id" : null }} "#),
            r#"OK {"at":"2003-01-01","id":null,"month":"2003-01","type":"mepbm.monthly_tick"}"#.into()),
        (format!(r#"{{{tick},"month":"2003-01","id":"a\"\u00e9\/\ud83d\ude00"}}"#),
            r#"OK {"at":"2003-01-01","id":"a\"é/😀","month":"2003-01","type":"mepbm.monthly_tick"}"#.into()),
        (rules(r#"{"z":[1,-2,{"b":true,"a":null}],"a":"0.5","m":[]}"#),
            r#"OK {"at":"2003-01-01","params":{"a":"0.5","m":[],"z":[1,-2,{"a":null,"b":true}]},"system":"valar","type":"ledger.rules_changed"}"#.into()),
        (format!(r#"{{{tick},"mo\u006eth":"2003-01"}}"#),
            r#"OK {"at":"2003-01-01","month":"2003-01","type":"mepbm.monthly_tick"}"#.into()),
        (rules(r#"{"k":9007199254740991,"m":-9007199254740991}"#),
            r#"OK {"at":"2003-01-01","params":{"k":9007199254740991,"m":-9007199254740991},"system":"valar","type":"ledger.rules_changed"}"#.into()),
        (rules(r#"{"k":9007199254740992}"#),
            format!("EV field `params.k`: 9007199254740992 is beyond ±9007199254740991, {exact}")),
        (rules(r#"{"k":1,"m":-18446744073709551}"#),
            format!("EV field `params.m`: -18446744073709551 is beyond ±9007199254740991, {exact}")),
        (format!(r#"{{{tick},"month":"2003-01","id":""}}"#), "EV field `id`: must not be empty or only whitespace".into()),
        (format!(r#"{{{tick},"month":"2003-01","id":" \u3000 "}}"#), "EV field `id`: must not be empty or only whitespace".into()),
        (format!(r#"{{{tick},"month":"2003-01","id":" t1"}}"#), r#"EV field `id`: " t1" begins or ends with whitespace: write "t1""#.into()),
        (format!(r#"{{{tick},"month":"2003-01","id":5}}"#), "EV field `id`: expected a string, found a number".into()),
        (format!(r#"{{{tick},"month":"2003-01","id":[1]}}"#), "EV field `id`: expected a string, found an array".into()),
        (r#"{"type":null,"at":"2003-01-01"}"#.into(), "EV field `type`: expected a string, found null".into()),
        (r#"{"at":"2003-01-01"}"#.into(), "EV missing field `type`".into()),
        (r#"{"seq":1,"prev":"00","hash":"ab","recorded_at":"2024-01-01T00:00:00Z","event":{"type":"mepbm.monthly_tick","at":"2003-01-01","month":"2003-01"}}"#.into(),
            format!("EV {}", super::EXPORTED)),
        (r#"{"type":"ledger.player_registered","at":"2003-01-01","player":"A","name":"A"}"#.into(),
            "EV ledger.player_registered: `player` is given twice, under two of its names (`laurel events ledger.player_registered` lists them): give it once".into()),
        (r#"{"type":"mepbm.monthly_tick","month":"2003-01"}"#.to_string(), "EV missing field `at`".into()),
        (r#"{"type":"mepbm.monthly_tick","at":5,"month":"2003-01"}"#.to_string(), "EV field `at`: expected a string, found a number".into()),
        (r#"[1,2]"#.into(), "EV an event must be a JSON object".into()),
        (format!(r#"{{{tick},"month":"2003-01","{}":1}}"#, "k".repeat(4000)),
            format!("EV mepbm.monthly_tick: field `\"{k}\"…`: unknown field \"{k}\"…, expected `month`{ENV}", k = "k".repeat(40))),
        (format!(r#"{{{tick},"month":"2003-01","a.b":1}}"#),
            format!("EV mepbm.monthly_tick: field `\"a.b\"`: unknown field \"a.b\", expected `month`{ENV}")),
        (format!(r#"{{{tick},"month":"2003-01","factor":"0.9"}}"#),
            format!("EV mepbm.monthly_tick: field `factor`: unknown field `factor`, expected `month`{ENV}")),
        (format!(r#"{{{tick},"month":"2003-01","ID":"t1"}}"#),
            format!("EV mepbm.monthly_tick: field `ID`: unknown field `ID`, expected `month`{ENV}; did you mean `id`?")),
        (format!(r#"{{{tick},"mnth":"2003-01"}}"#),
            format!("EV mepbm.monthly_tick: field `mnth`: unknown field `mnth`, expected `month`{ENV}; did you mean `month`?")),
        (format!(r#"{{{tick},"month":5}}"#),
            "EV mepbm.monthly_tick: field `month`: invalid type: integer `5`, expected a string".into()),
        (r#"{"type":"mepbm.game_ended","at":"2003-01-01","game":"7","nations":[{"nation":5}],"turn":1}"#.into(),
            "EV mepbm.game_ended: field `nations[0].nation`: invalid type: integer `5`, expected a string".into()),
        (r#"{"type":"ledger.voided","at":"2003-01-01","target":-3,"reason":"r"}"#.into(),
            "EV ledger.voided: field `target`: invalid value: integer `-3`, expected an integer from 0 to 9007199254740991".into()),
        (format!(r#"{{{tick},"month":"2003-01","month":"2003-02"}}"#), "EV `month` appears twice: give each field once".into()),
        (r#"{"b":{"x":1,"x":2},"a":{"y":1,"y":2}}"#.into(), "EV `b.x` appears twice: give each field once".into()),
        (r#"{"a":{"x":1,"x":2},"a":1}"#.into(), "EV `a.x` appears twice: give each field once".into()),
        (r#"{"z":1.5,"z":2}"#.into(), "EV `z` appears twice: give each field once".into()),
        (r#"{"a":1,"a":{"x":1,"x":2}}"#.into(), "EV `a` appears twice: give each field once".into()),
        (r#"{"a":1,"b":1,"b":2,"a":2}"#.into(), "EV `b` appears twice: give each field once".into()),
        (r#"{"l":[{"n":"a"},{"n":"b","n":"c"}]}"#.into(), "EV `l[1].n` appears twice: give each field once".into()),
        (r#"{"type":"mepbm.game_ended","at":"2003-01-01","game":"7","nations":[],"turn":1,"winner":5}"#.into(),
            "EV mepbm.game_ended: field `winner`: invalid type: integer `5`, expected one of the names `laurel events mepbm.game_ended` lists".into()),
        (r#"{"type":"mepbm.game_ended","at":"2003-01-01","game":"7","nations":[],"turn":1,"winner":{"FP":null}}"#.into(),
            "EV mepbm.game_ended: field `winner`: invalid type: map, expected one of the names `laurel events mepbm.game_ended` lists".into()),
        (r#"{"type":"mepbm.game_ended","at":"2003-01-01","game":"7","nations":[],"turn":1,"winner":"XX"}"#.into(),
            "EV mepbm.game_ended: field `winner`: unknown variant `XX`, expected one of `FP`, `DS`, `draw`".into()),
        (rules(r#"{"k":1.5}"#), format!("EV field `params.k`: 1.5 {float}")),
        (rules(r#"{"k":1e3}"#), format!("EV field `params.k`: 1000.0 {float}")),
        (rules(r#"{"k":-0}"#), "EV field `params.k`: -0 is read as a floating-point number; write 0".into()),
        (rules(r#"{"k":18446744073709551616}"#),
            format!("EV field `params.k`: integer out of range (about 1.8446744073709552e19); {wide}")),
        (rules(r#"{"k":-9223372036854775809}"#),
            format!("EV field `params.k`: integer out of range (about -9.223372036854776e18); {wide}")),
        (r#"[1.5]"#.into(), format!("EV field `[0]`: 1.5 {float}")),
        (r#"{"z":1.5,"a":2.5}"#.into(), format!("EV field `z`: 1.5 {float}")),
        (r#"{"z":"\u0001","a":1.5}"#.into(), format!("EV field `z`: holds the control character U+0001; {printable}")),
        (r#"{"a":[{"n":"\u0001"},{"n":"\u0002"}]}"#.into(),
            format!("EV field `a[0].n`: holds the control character U+0001; {printable}")),
        (format!(r#"{{{tick},"month":"2003-01","id":"a​b"}}"#),
            format!("EV field `id`: holds the invisible character U+200B; {printable}")),
        (format!(r#"{{{tick},"month":"2003-01","x\u0001":1}}"#),
            format!("EV event: key \"x\\u0001\": holds the control character U+0001; {printable}")),
        (format!(r#"{{{tick},"month":"{}x"}}"#, "x".repeat(MAX_STRING)),
            "EV field `month`: string of 4097 bytes is longer than the limit of 4096".into()),
        (format!(r#"{{{tick},"{}x":1}}"#, "x".repeat(MAX_STRING)), format!("EV event: key \"{}\"… is longer than the limit of 4096 bytes", "x".repeat(40))),
        (rules(r#"{"k":1e19}"#), format!("EV field `params.k`: 1e+19 {float}")),
        (r#"{"type":"x","a\nok: fine\n":1,"a\nok: fine\n":2}"#.into(),
            "EV `\"a\\nok: fine\\n\"` appears twice: give each field once".into()),
        (r#"{"x":{"a.b":1,"a.b":2}}"#.into(), "EV `x.\"a.b\"` appears twice: give each field once".into()),
        // An invisible letter (U+3164) keeps a key from passing as a plain name.
        ("{\"x\":{\"a\u{3164}\":1,\"a\u{3164}\":2}}".into(),
            "EV `x.\"a\u{3164}\"` appears twice: give each field once".into()),
        (rules(r#"{"k":1E400}"#), format!("JSON invalid JSON in field `params.k`: number out of range; {wide} (column 85)")),
        (r#"{"players":[{"a":1 "b":2}]}"#.into(), "JSON invalid JSON in field `players[0]`: expected `,` or `}` (column 20)".into()),
        (r#"{"x":[1,2}"#.into(), "JSON invalid JSON in field `x`: expected `,` or `]` (column 10)".into()),
        (r#"{"x":[[1],1e400]}"#.into(), format!("JSON invalid JSON in field `x`: number out of range; {wide} (column 15)")),
        (format!("{{\"a\":{}1{}}}", "[".repeat(130), "]".repeat(130)),
            format!("JSON invalid JSON in field `a{}…`: recursion limit exceeded (column 132)", "[0]".repeat(24))),
        (format!(r#"{{{tick},"month":"2003-01",}}"#), "JSON invalid JSON: trailing comma (column 66)".into()),
        (format!(r#"{{{tick},"month":"2003-01"}} x"#), "JSON invalid JSON: trailing characters (column 67)".into()),
        (r#"{"z":1.5,"a":"#.into(), format!("JSON invalid JSON: EOF while parsing a value{EOF_HINT}")),
    ];
    let mut parser = LineParser::default();
    for (line, want) in &cases {
        assert_eq!(&answer(&mut parser, line.as_bytes()), want, "{line}");
        screen_agrees(&mut parser, line.as_bytes());
    }
    let not_utf8 = answer(&mut parser, b"{\"a\":\"\xff\"}");
    assert_eq!(
        not_utf8,
        "JSON invalid JSON in field `a`: invalid unicode code point (column 7)"
    );
}

/// A line stays whole where it is cut, doubled or given a stray byte: the
/// parse answers (no panic), and what it accepts is canonical and parses to
/// itself.
#[test]
fn damaged_lines_are_answered_and_what_passes_is_canonical() {
    let gen = crate::systems::gen::stream(300, 11);
    let mut parser = LineParser::default();
    let mut rng = 12345u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng as usize
    };
    let stray: &[u8] = b"\"{}[]:,0123456789.e-x \\tnu\x01\xff";
    let (mut passed, mut refused) = (0, 0);
    for line in gen.lines().filter(|l| l.starts_with('{')) {
        for _ in 0..8 {
            let mut b = line.as_bytes().to_vec();
            let (i, j) = (next() % b.len(), next() % b.len());
            match next() % 3 {
                0 => b[i] = stray[next() % stray.len()],
                1 => drop(b.remove(i)),
                _ => {
                    let seg = b[i.min(j)..i.max(j)].to_vec();
                    b.splice(i.max(j)..i.max(j), seg);
                }
            }
            match parser.parse(&b) {
                Ok(p) => {
                    passed += 1;
                    stored_header(&p.canonical).unwrap();
                    assert_eq!(parser.parse(&p.canonical).unwrap().canonical, p.canonical);
                }
                Err(_) => refused += 1,
            }
            screen_agrees(&mut parser, &b);
        }
    }
    assert!(
        passed > 50 && refused > 500,
        "{passed} passed, {refused} refused"
    );
}
#[test]
fn a_stored_header_that_cannot_be_read_is_refused_with_its_reason() {
    let laid_out = "not laid out as laurel stores events";
    let cases: [(&[u8], &str); 11] = [
        (
            br#"{"at":"2003-01-01","reason":"r","target":-4,"type":"ledger.voided"}"#,
            "target",
        ),
        (
            br#"{"at":"2003-01-01","reason":"r","type":"ledger.voided"}"#,
            "target",
        ),
        (br#"{"at":"2003-13-01","type":"t"}"#, "not a date"),
        (br#"{"at":5,"type":"t"}"#, "field `at`"),
        (br#"{"id":"x","type":"t"}"#, "missing field `at`"),
        (
            br#"{"at":"2003-01-01","at":"2003-01-02","type":"t"}"#,
            laid_out,
        ),
        (br#"{"at":"2003-01-01","type":"t","x":[}"#, laid_out),
        (br#"{"id":"x","at":"2003-01-01","type":"t"}"#, laid_out),
        (br#"{"at":"2003-01-01", "type":"t"}"#, laid_out),
        (br#"{"at": "2003-01-01","type":"t"}"#, laid_out),
        (br#"{"a":[ 1],"at":"2003-01-01","type":"t"}"#, laid_out),
    ];
    for (c, why) in cases {
        let e = stored_header(c).unwrap_err();
        assert!(e.contains(why), "{e}: {}", String::from_utf8_lossy(c));
    }
    let ok = br#"{"at":"2003-01-01","id":null,"reason":"r","target":4,"type":"ledger.voided"}"#;
    assert_eq!(stored_header(ok).unwrap().void_target, Some(4));
}

#[test]
fn canonical_form_of_a_value_sorts_keys_drops_whitespace_and_escapes_controls() {
    let v = json!({"b": [1, {"z": null, "a": true}], "a": "x\n\u{1}é"});
    assert_eq!(
        String::from_utf8(to_canonical(&v)).unwrap(),
        "{\"a\":\"x\\n\\u0001é\",\"b\":[1,{\"a\":true,\"z\":null}]}"
    );
}

/// Keys sort by their text, not by how it is escaped: `"` (0x22) before
/// `A` before `\` (0x5C), though both escape to a backslash first.
#[test]
fn keys_sort_by_their_unescaped_bytes() {
    let mut parser = LineParser::default();
    let c = parser.canonical(br#"{"\\":1, "A":2, "\"":3}"#).unwrap();
    assert_eq!(String::from_utf8(c).unwrap(), r#"{"\"":3,"A":2,"\\":1}"#);
}

/// A line refused half-way through (a duplicate and a float noted, then
/// the text ends) leaves nothing behind: the next line is read afresh.
#[test]
fn a_line_refused_half_way_leaves_nothing_for_the_next() {
    let mut parser = LineParser::default();
    let half = br#"{"id":"stale","o":{"a":1,"a":2},"type":"x","x":1.5,"#;
    let half = answer(&mut parser, half);
    assert!(
        half.starts_with("JSON invalid JSON: EOF while parsing"),
        "{half}"
    );
    let next = br#"{"type":"mepbm.monthly_tick","at":"2003-01-01","month":"2003-01"}"#;
    let ok = r#"OK {"at":"2003-01-01","month":"2003-01","type":"mepbm.monthly_tick"}"#;
    assert_eq!(answer(&mut parser, next), ok);
    assert_eq!(parser.parse(next).unwrap().id, None);
}

#[test]
fn canonical_form_sorts_keys_and_keeps_content() {
    let p =
        parse_event(json!({"type": "mepbm.monthly_tick", "month": "2003-01", "at": "2003-02-01"}))
            .unwrap();
    assert_eq!(
        String::from_utf8(p.canonical).unwrap(),
        r#"{"at":"2003-02-01","month":"2003-01","type":"mepbm.monthly_tick"}"#
    );
}

#[test]
fn every_type_has_a_schema_and_a_meaning() {
    for kind in Event::TYPES {
        let s = schema::event_schema::<Event>(kind).unwrap();
        assert_eq!(s["properties"]["type"]["const"], json!(kind));
        assert_eq!(s["additionalProperties"], json!(false));
        assert!(
            !schema::meaning::<Event>(kind).unwrap().is_empty(),
            "{kind}: no doc"
        );
    }
    assert!(schema::event_schema::<Event>("cards.nothing").is_none());
    assert!(schema::event_schema::<Event>("nothing").is_none());
}

#[test]
fn ranges_come_from_the_bounds_and_defaults_are_optional() {
    let s = schema::event_schema::<Event>("cards.match_result").unwrap();
    let score = &s["properties"]["scores"]["items"]["properties"]["score"];
    let bounds = crate::systems::cards::events::SCORE;
    assert_eq!(score["minimum"], json!(bounds.min));
    assert_eq!(score["maximum"], json!(bounds.max));
    let s = schema::event_schema::<Event>("cfr.series_defined").unwrap();
    let required = s["required"].as_array().unwrap();
    assert!(!required.contains(&json!("final_points")));
    assert!(required.contains(&json!("format")));
    assert_eq!(s["properties"]["final_points"]["maxItems"], json!(100));
    // serde's rename: the field is `match`, not `match_`.
    let s = schema::event_schema::<Event>("cards.match_result").unwrap();
    assert!(s["properties"].get("match").is_some());
}

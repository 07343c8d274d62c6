//! Duplicate keys: `{"value":1500,"value":1600}` is valid JSON whose meaning
//! depends on the reader (serde_json keeps the last), so an event with a
//! repeated key is ambiguous and refused, naming the key.
//!
//! Only input the fast scanner hands over (it refuses duplicates itself, among
//! other things) is walked here, once, before `serde_json::Value` forgets
//! which keys it saw twice.

use std::cell::RefCell;
use std::collections::BTreeSet;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The first key that appears twice in one object of `json`, with its path
/// (`payload.value`), or `None` (also for input that is not JSON at all:
/// the caller's parse words that).
pub fn first_duplicate(json: &[u8]) -> Option<String> {
    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(json);
    let _ = Walk {
        path: String::new(),
        found: &found,
    }
    .deserialize(&mut de);
    found.into_inner()
}

/// A value at `path`; records the first duplicate key it meets in `found`.
struct Walk<'f> {
    path: String,
    found: &'f RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = match self.path.is_empty() {
                true => key.clone(),
                false => format!("{}.{key}", self.path),
            };
            if !seen.insert(key) {
                *self.found.borrow_mut() = Some(path);
                return Err(de::Error::custom("duplicate key"));
            }
            map.next_value_seed(Walk {
                path,
                found: self.found,
            })?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            let path = format!("{}[{i}]", self.path);
            let walk = Walk {
                path,
                found: self.found,
            };
            if seq.next_element_seed(walk)?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::first_duplicate;

    #[test]
    fn a_repeated_key_is_found_with_its_path() {
        let cases: [(&str, Option<&str>); 7] = [
            (r#"{"a":1,"b":2}"#, None),
            (r#"{"value":1500,"value":1600}"#, Some("value")),
            (r#"{"p":{"x":1,"y":2,"x":3}}"#, Some("p.x")),
            (r#"{"l":[{"n":"a"},{"n":"b","n":"c"}]}"#, Some("l[1].n")),
            (r#"{"a":{"k":1},"b":{"k":1}}"#, None),
            (r#"{"v\u0061lue":1,"value":2}"#, Some("value")),
            ("not json", None),
        ];
        for (json, want) in cases {
            assert_eq!(first_duplicate(json.as_bytes()).as_deref(), want, "{json}");
        }
    }
}

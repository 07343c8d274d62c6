//! Rule parameters: every constant of the rating rules, with the published rules' value
//! as default.
//!
//! Parameters are keyed by `(system, name)`; each rating module declares its own in
//! a `PARAMS: &[ParamDef]` table, collected by [`crate::systems::param_defs`]. Values
//! are JSON: integers, decimal strings (`"0.98"`, kept exact) or integer arrays.
//! Unknown systems or parameters, or values of the wrong kind, are errors, never
//! ignored: that check runs when a `ledger.rules_changed` is appended and when a
//! rules file is read.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::num::{parse_decimal, Rational};

/// What values a parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A JSON integer.
    Int,
    /// A decimal string such as `"0.98"`.
    Decimal,
    /// An array of JSON integers (a points table).
    Ints,
}

/// One rule parameter, declared by the module that uses it.
#[derive(Debug, Clone, Copy)]
pub struct ParamDef {
    pub system: &'static str,
    pub name: &'static str,
    pub kind: Kind,
    /// The published rules' value, as JSON text.
    pub default: &'static str,
    pub doc: &'static str,
}

type Key = (String, String);

/// The parameters in force at one point of a fold.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Params {
    #[serde(with = "as_text")]
    set: BTreeMap<Key, Value>,
    /// Values from `replay --rules`: "as if they had always been in force", so
    /// later `rules_changed` events do not override them.
    #[serde(with = "as_text")]
    pinned: BTreeMap<Key, Value>,
    /// Changes whenever the values in force may have: equal stamps, equal values
    /// (0 for the defaults), so a projection can cache what it derives from them.
    /// Stamps are per process: a checkpoint does not store it ([`Params::restamp`]).
    #[serde(skip)]
    stamp: u64,
}

/// Values as JSON text in a checkpoint: bincode cannot carry a `Value` (reading
/// one back needs a self-describing format).
mod as_text {
    use std::collections::BTreeMap;

    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    use super::Key;

    pub fn serialize<S: Serializer>(m: &BTreeMap<Key, Value>, s: S) -> Result<S::Ok, S::Error> {
        let texts: Vec<(&Key, String)> = m.iter().map(|(k, v)| (k, v.to_string())).collect();
        texts.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<Key, Value>, D::Error> {
        let texts: Vec<(Key, String)> = Vec::deserialize(d)?;
        texts
            .into_iter()
            .map(|(k, t)| {
                serde_json::from_str(&t)
                    .map(|v| (k, v))
                    .map_err(D::Error::custom)
            })
            .collect()
    }
}

/// A fresh [`Params::stamp`], never 0.
fn next_stamp() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn find(system: &str, name: &str) -> Option<&'static ParamDef> {
    position(system, name).map(|i| &crate::systems::param_defs()[i])
}

/// Where parameter `system.name` is in [`crate::systems::param_defs`].
fn position(system: &str, name: &str) -> Option<usize> {
    crate::systems::param_defs()
        .iter()
        .position(|d| d.system == system && d.name == name)
}

/// The default of a known parameter, parsed once; `Null` for an unknown one.
fn default_value(system: &str, name: &str) -> Value {
    static PARSED: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    let parsed = PARSED.get_or_init(|| {
        (crate::systems::param_defs().iter())
            .map(|d| serde_json::from_str(d.default).unwrap_or(Value::Null))
            .collect()
    });
    position(system, name).map_or(Value::Null, |i| parsed[i].clone())
}

/// Check one value against its definition.
fn check_value(def: &ParamDef, v: &Value) -> Result<(), String> {
    let ok = match def.kind {
        Kind::Int => v.as_i64().is_some(),
        Kind::Decimal => v.as_str().and_then(parse_decimal).is_some(),
        Kind::Ints => v
            .as_array()
            .is_some_and(|a| a.iter().all(|x| x.as_i64().is_some())),
    };
    if ok {
        return Ok(());
    }
    let want = match def.kind {
        Kind::Int => "an integer",
        Kind::Decimal => "a decimal string such as \"0.98\"",
        Kind::Ints => "an array of integers",
    };
    Err(format!(
        "{}.{}: expected {want}, got {v}",
        def.system, def.name
    ))
}

/// Validate a flat parameter object for one system.
pub fn check_system(system: &str, params: &Map<String, Value>) -> Result<(), String> {
    if !crate::systems::param_defs()
        .iter()
        .any(|d| d.system == system)
    {
        return Err(format!(
            "unknown rule system {system:?} (known: {})",
            systems_list()
        ));
    }
    for (name, v) in params {
        let def = find(system, name).ok_or_else(|| {
            format!("unknown parameter {system}.{name} (see `laurel rules` for the names)")
        })?;
        check_value(def, v)?;
    }
    Ok(())
}

/// Validate a whole rules file: `{system: {param: value}}`.
pub fn check_rules(rules: &Value) -> Result<(), String> {
    let obj = rules
        .as_object()
        .ok_or("a rules file is one JSON object keyed by system")?;
    for (system, params) in obj {
        let params = params
            .as_object()
            .ok_or_else(|| format!("{system}: expected an object of parameters"))?;
        check_system(system, params)?;
    }
    Ok(())
}

fn systems_list() -> String {
    let mut names: Vec<&str> = crate::systems::param_defs()
        .iter()
        .map(|d| d.system)
        .collect();
    names.dedup();
    names.join(", ")
}

impl Params {
    /// Parameters pinned by a (validated) rules file.
    pub fn pinned(rules: &Value) -> Self {
        let mut p = Params {
            stamp: next_stamp(),
            ..Params::default()
        };
        for (system, params) in rules.as_object().into_iter().flatten() {
            for (name, v) in params.as_object().into_iter().flatten() {
                p.pinned.insert((system.clone(), name.clone()), v.clone());
            }
        }
        p
    }

    /// Apply a (validated) `rules_changed`.
    pub fn change(&mut self, system: &str, params: &Map<String, Value>) {
        self.stamp = next_stamp();
        for (name, v) in params {
            self.set
                .insert((system.to_string(), name.clone()), v.clone());
        }
    }

    /// A fresh stamp for parameters read back from a checkpoint (0 again when
    /// nothing differs from the defaults).
    pub fn restamp(&mut self) {
        let defaults = self.set.is_empty() && self.pinned.is_empty();
        self.stamp = if defaults { 0 } else { next_stamp() };
    }

    /// Equal stamps mean equal values in force (see the field).
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// The value in force: pinned, else last changed, else the default.
    ///
    /// Neither map is searched with an owned key, and defaults are parsed
    /// once ([`default_value`]): the check fold asks for a parameter for
    /// every sbr game and every diplomacy game, and building the key (two
    /// `String`s) and parsing the default's JSON each time put this function
    /// in 39 of the 3,227 samples of one 1M-event import (`perf`, 299 Hz,
    /// call graphs); after, 21 of 3,125 and 28 of 4,123. The maps
    /// hold known parameters only (rules and changes are checked against
    /// [`crate::systems::param_defs`] first), so a scan is short.
    pub fn value(&self, system: &str, name: &str) -> Value {
        let given = |m: &BTreeMap<Key, Value>| {
            m.iter()
                .find(|((s, n), _)| s == system && n == name)
                .map(|(_, v)| v.clone())
        };
        given(&self.pinned)
            .or_else(|| given(&self.set))
            .unwrap_or_else(|| default_value(system, name))
    }

    pub fn int(&self, system: &str, name: &str) -> i64 {
        self.value(system, name).as_i64().unwrap_or_default()
    }

    pub fn decimal(&self, system: &str, name: &str) -> Rational {
        self.value(system, name)
            .as_str()
            .and_then(parse_decimal)
            .unwrap_or_default()
    }

    pub fn ints(&self, system: &str, name: &str) -> Vec<i64> {
        match self.value(system, name) {
            Value::Array(a) => a.iter().filter_map(Value::as_i64).collect(),
            _ => Vec::new(),
        }
    }

    /// Every parameter with its default and the value in force, for `laurel rules`.
    pub fn listing(&self) -> Vec<(&'static ParamDef, Value)> {
        crate::systems::param_defs()
            .iter()
            .map(|d| (d, self.value(d.system, d.name)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_default_is_of_its_kind() {
        for d in crate::systems::param_defs() {
            let v: Value = serde_json::from_str(d.default).expect(d.name);
            check_value(d, &v).unwrap();
        }
    }

    /// Pinned beats changed beats the default, for every parameter, and the
    /// last change of one parameter leaves the others alone.
    #[test]
    fn the_value_in_force_is_pinned_else_changed_else_the_default() {
        let defs = crate::systems::param_defs();
        let fresh = Params::default();
        for d in defs {
            let default: Value = serde_json::from_str(d.default).unwrap();
            assert_eq!(fresh.value(d.system, d.name), default, "{}", d.name);
        }
        let (a, b) = (&defs[0], &defs[defs.len() - 1]);
        let mut p = Params::pinned(&json!({ a.system: { a.name: 11 } }));
        p.change(a.system, json!({ a.name: 22 }).as_object().unwrap());
        p.change(b.system, json!({ b.name: 33 }).as_object().unwrap());
        p.change(b.system, json!({ b.name: 44 }).as_object().unwrap());
        assert_eq!(p.value(a.system, a.name), json!(11));
        assert_eq!(p.value(b.system, b.name), json!(44));
        assert_eq!(p.int(b.system, b.name), 44);
        let c = &defs[1];
        let default: Value = serde_json::from_str(c.default).unwrap();
        assert_eq!(p.value(c.system, c.name), default);
        assert_eq!(p.value("nope", a.name), Value::Null);
        assert_eq!(p.value(a.system, "nope"), Value::Null);
    }

    #[test]
    fn unknown_systems_and_parameters_are_errors() {
        assert!(check_rules(&json!({"nope": {}}))
            .unwrap_err()
            .contains("unknown rule system"));
        let first = crate::systems::param_defs()[0].system;
        let e = check_rules(&json!({first: {"zzz": 1}})).unwrap_err();
        assert!(e.contains("unknown parameter"), "{e}");
        assert!(check_rules(&json!([1])).is_err());
    }
}

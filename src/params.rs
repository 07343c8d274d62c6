//! Rule parameters: every constant of SPEC §2–6, with the seed's value as default.
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
    /// The seed's value, as JSON text.
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
    crate::systems::param_defs()
        .iter()
        .find(|d| d.system == system && d.name == name)
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
    pub fn value(&self, system: &str, name: &str) -> Value {
        let key = (system.to_string(), name.to_string());
        if let Some(v) = self.pinned.get(&key).or_else(|| self.set.get(&key)) {
            return v.clone();
        }
        find(system, name)
            .and_then(|d| serde_json::from_str(d.default).ok())
            .unwrap_or(Value::Null)
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

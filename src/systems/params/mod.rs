//! Rule parameters: every constant of the rating rules, typed, with the published
//! rules' value as default.
//!
//! A rating module declares its parameters in its own `params.rs` with
//! [`rule_params!`], as *groups*: a group is a struct whose fields are its
//! parameters, each with its type, its default, its allowed [`Range`] and a doc
//! line. The group's name (`"valar"`, `"cfr"`, ...) is the `system` of a
//! `ledger.rules_changed` and a key of a `--rules` file (`{group: {name: value}}`);
//! a field's name is the parameter's. [`crate::systems::PARAM_GROUPS`] lists every
//! group, system by system; this module names none.
//!
//! Values keep their JSON forms: integers, decimal strings (`"0.98"`, kept exact
//! and as written: [`Decimal`]), integer arrays and words (one of a list). [`check_system`] refuses an
//! unknown group, an unknown parameter, a value of the wrong kind and a value
//! outside its range, naming `group.name` (and, for a range, the values allowed),
//! then builds the group's typed struct from the values; it reads a stored
//! `ledger.rules_changed` as it was accepted. New input (a rules change being
//! appended, and through [`check_rules`] a rules file) goes through
//! [`check_input`], which also wants tables never rising and decimals spelt
//! one way ([`crate::num::spelled_once`]); a decimal spelt otherwise (`"00.5"`,
//! `"+1"`, `".5"`) is told what is wrong with it and how to write it
//! ([`crate::num::misspelt`]), not that it is out of range. The bounds keep every parameter small (integers mostly within a
//! million, decimals of at most [`DECIMAL_PLACES`] places), far from where the
//! rule math's `i64` and `i128` products overflow.
//!
//! A stored `ledger.rules_changed` always checks, by construction: it was
//! appended through [`check_input`], which asks all that [`check_system`]
//! does, and the ranges stored values are read against only widen (a test
//! pins them; a tighter bound binds new input, through [`check_input`]). So
//! the fold cannot meet one that does not, but in a ledger written by a
//! laurel whose ranges were wider. There, [`Params::change`] changes nothing
//! for it (its values may be outside what the rule math is bounded for; the
//! tables are those of the ledger with the change voided), and an append
//! whose check fold reaches it is refused naming it, which `laurel void SEQ`
//! answers. It is not refused in a query: a ledger stays readable.
//!
//! Rule code reads typed fields: `cx.params.get::<Valar>().base`. [`Params`] keeps
//! the values given (rules changes, a rules file) as JSON, which is what a
//! checkpoint stores, and the typed struct of every group built from them each
//! time they change: a read is a scan of a dozen entries, without parsing.

use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::num::{parse_decimal, Rational};
use crate::systems::PARAM_GROUPS;
use range::check_value;
pub use range::Range;

/// Declares parameter groups: for each, a struct with one public field per
/// parameter (serde, unknown fields denied), its `Default` and its [`Group`]
/// impl (name and [`ParamDef`] table).
///
/// ```ignore
/// rule_params! {
///     /// Doc of the group.
///     pub struct Valar in "valar" {
///         /// constant of the Valar change
///         base: i64 = 45, Range::int(0..=10_000);
///     }
/// }
/// ```
///
/// A field is `name: type = default, range;`. The default is written as its
/// JSON value (`45`, `"0.98"`, `[3, 2, 1]`, `null`): that text is the published rules'
/// value that `laurel rules` shows and `Default` parses. The type is `i64`,
/// `u32` or `usize` for an integer range, `Option<i64>` for an optional one
/// (`null`: unset), [`Decimal`] for a decimal one, `Vec<i64>` for an array one
/// and an enum read from its word (serde) for a choice; every value of the
/// range fits the type (a unit
/// test builds every group at both ends of every range). The doc comment is the
/// parameter's doc line in `laurel rules`.
macro_rules! rule_params {
    ($(
        $(#[$meta:meta])*
        $vis:vis struct $name:ident in $group:literal {
            $(
                $(#[doc = $doc:literal])*
                $field:ident: $ty:ty = $default:tt, $range:expr;
            )*
        }
    )*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        $vis struct $name {
            $(
                $(#[doc = $doc])*
                #[doc = ""]
                #[doc = concat!(
                    "Default `", stringify!($default), "`; allowed: `", stringify!($range), "`."
                )]
                pub $field: $ty,
            )*
        }

        impl Default for $name {
            /// The published rules' values.
            fn default() -> Self {
                $crate::systems::params::from_defaults(<Self as $crate::systems::params::Group>::PARAMS)
            }
        }

        impl $crate::systems::params::Group for $name {
            const NAME: &'static str = $group;
            const PARAMS: &'static [$crate::systems::params::ParamDef] = &[$(
                $crate::systems::params::ParamDef {
                    system: $group,
                    name: stringify!($field),
                    range: $range,
                    default: stringify!($default),
                    doc: concat!($($doc),*).trim_ascii_start(),
                }
            ),*];
        }
    )*};
}
pub(crate) use rule_params;

/// Most decimal places a decimal parameter may have. Factors multiply ratings,
/// scores and each other (a heat decay once per heat) as `i128` fractions; six
/// places (a denominator of at most 10^6) is finer than any rule needs.
pub const DECIMAL_PLACES: usize = 6;

/// The characters of a name no group or parameter has a message shows.
const NAME_SHOWN: usize = 40;

/// One rule parameter, as [`rule_params!`] declares it.
#[derive(Debug, Clone, Copy)]
pub struct ParamDef {
    /// The group's name: the `system` of a `ledger.rules_changed`.
    pub system: &'static str,
    pub name: &'static str,
    pub range: Range,
    /// The published rules' value, as JSON text.
    pub default: &'static str,
    pub doc: &'static str,
}

/// A decimal parameter: its exact value and its text as written (`"0.98"`),
/// which formulas quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    value: Rational,
    text: String,
}

impl Decimal {
    /// A decimal text (`"0.98"`, no exponent), or `None`.
    pub fn parse(text: &str) -> Option<Decimal> {
        parse_decimal(text).map(|value| Decimal {
            value,
            text: text.to_string(),
        })
    }

    pub fn value(&self) -> Rational {
        self.value
    }

    /// The text as written.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl Serialize for Decimal {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Decimal {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Decimal::parse(&text)
            .ok_or_else(|| D::Error::custom(format!("not a decimal string: {text:?}")))
    }
}

/// A group of rule parameters: a struct declared with [`rule_params!`].
pub trait Group: Default + Clone + Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The name `ledger.rules_changed` and rules files use.
    const NAME: &'static str;
    /// One entry per field, in declaration order.
    const PARAMS: &'static [ParamDef];
}

/// A group's typed values, whatever its type.
type Typed = Arc<dyn Any + Send + Sync>;

/// A group as [`crate::systems::PARAM_GROUPS`] lists it: its name, its
/// parameters, and the way between its typed struct and JSON.
#[derive(Debug, Clone, Copy)]
pub struct GroupDef {
    pub name: &'static str,
    pub params: &'static [ParamDef],
    /// The struct from a JSON object of parameters (missing ones at their default).
    read: fn(&Map<String, Value>) -> Result<Typed, String>,
    /// The struct as a JSON object.
    write: fn(&Typed) -> Map<String, Value>,
}

impl GroupDef {
    pub const fn of<T: Group>() -> GroupDef {
        GroupDef {
            name: T::NAME,
            params: T::PARAMS,
            read: read_group::<T>,
            write: write_group::<T>,
        }
    }
}

fn read_group<T: Group>(given: &Map<String, Value>) -> Result<Typed, String> {
    let mut all = defaults_of(T::PARAMS);
    all.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
    let t: T =
        serde_json::from_value(Value::Object(all)).map_err(|e| format!("{}: {e}", T::NAME))?;
    Ok(Arc::new(t))
}

fn write_group<T: Group>(t: &Typed) -> Map<String, Value> {
    match t.downcast_ref::<T>().map(serde_json::to_value) {
        Some(Ok(Value::Object(m))) => m,
        _ => Map::new(),
    }
}

/// The defaults of `params` as one JSON object.
fn defaults_of(params: &[ParamDef]) -> Map<String, Value> {
    (params.iter())
        .map(|d| {
            let v = serde_json::from_str(d.default)
                .unwrap_or_else(|e| panic!("{}.{}: default {}: {e}", d.system, d.name, d.default));
            (d.name.to_string(), v)
        })
        .collect()
}

/// A group's `Default`: its declared defaults (see [`rule_params!`]).
pub fn from_defaults<T: DeserializeOwned>(params: &[ParamDef]) -> T {
    serde_json::from_value(Value::Object(defaults_of(params)))
        .unwrap_or_else(|e| panic!("the declared defaults do not build their group: {e}"))
}

fn group(name: &str) -> Option<(usize, &'static GroupDef)> {
    PARAM_GROUPS
        .iter()
        .enumerate()
        .find(|(_, g)| g.name == name)
}

/// Every group at its defaults, in [`PARAM_GROUPS`] order.
fn default_groups() -> &'static Arc<[Typed]> {
    static DEFAULTS: OnceLock<Arc<[Typed]>> = OnceLock::new();
    DEFAULTS.get_or_init(|| {
        (PARAM_GROUPS.iter())
            .map(|g| (g.read)(&Map::new()).expect("the defaults build their group"))
            .collect()
    })
}

/// Validate a flat parameter object for one group, as a stored rules change
/// was accepted: every name known, every value of its kind and in its
/// range, and together they build the group.
pub fn check_system(system: &str, params: &Map<String, Value>) -> Result<(), String> {
    check_group(system, params, false)
}

/// [`check_system`] for new input (a rules file, a rules change being
/// appended): every value also written as its range says ([`Range`]).
pub fn check_input(system: &str, params: &Map<String, Value>) -> Result<(), String> {
    check_group(system, params, true)
}

fn check_group(system: &str, params: &Map<String, Value>, input: bool) -> Result<(), String> {
    let Some((_, g)) = group(system) else {
        let known: Vec<&str> = PARAM_GROUPS.iter().map(|g| g.name).collect();
        // A namespace's name ("diplomacy", "mepbm") names its groups.
        let namespace = system.to_lowercase();
        let of_namespace: Vec<&str> = (known.iter().copied())
            .filter(|&g| crate::systems::namespace_of_group(g) == Some(namespace.as_str()))
            .collect();
        let hint = match of_namespace.as_slice() {
            [] => crate::events::did_you_mean(system, known.iter().copied()),
            groups => format!(
                "; the rules of {namespace} are the groups {}",
                groups.join(", ")
            ),
        };
        return Err(format!(
            "unknown rule system {}{hint} (known: {})",
            crate::error::quoted_cut(system, NAME_SHOWN),
            known.join(", ")
        ));
    };
    for (name, v) in params {
        let def = g.params.iter().find(|d| d.name == name).ok_or_else(|| {
            let hint = crate::events::did_you_mean(name, g.params.iter().map(|d| d.name));
            let name = crate::events::key_shown(name);
            format!("unknown parameter {system}.{name}{hint} (see `laurel rules` for the names)")
        })?;
        check_value(def, v, input)?;
    }
    (g.read)(params).map(drop)
}

/// Validate a whole rules file: `{system: {param: value}}`.
pub fn check_rules(rules: &Value) -> Result<(), String> {
    let obj = rules
        .as_object()
        .ok_or("a rules file is one JSON object keyed by system")?;
    for (system, params) in obj {
        let params = params.as_object().ok_or_else(|| {
            let what = match group(system) {
                Some(_) => format!("{system}: expected an object of parameters"),
                None => format!(
                    "{} is not a rule system",
                    crate::error::quoted_cut(system, NAME_SHOWN)
                ),
            };
            format!(
                "{what}: a rules file is {{\"system\": {{\"param\": value}}}}, as \
                 `laurel rules --template` prints"
            )
        })?;
        check_input(system, params)?;
    }
    Ok(())
}

type Key = (String, String);

/// The values given, by `(group, name)`: what a checkpoint stores.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Given {
    #[serde(with = "as_text")]
    set: BTreeMap<Key, Value>,
    /// Values from `replay --rules`: "as if they had always been in force", so
    /// later `rules_changed` events do not override them.
    #[serde(with = "as_text")]
    pinned: BTreeMap<Key, Value>,
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

/// The parameters in force at one point of a fold.
///
/// Serialized as the values given (two maps of `(group, name)` to JSON text);
/// reading it back rebuilds the typed groups, and refuses values that do not
/// build them.
#[derive(Clone, Serialize, Deserialize)]
#[serde(into = "Given", try_from = "Given")]
pub struct Params {
    given: Given,
    /// One typed struct per group of [`PARAM_GROUPS`], in its order.
    typed: Arc<[Typed]>,
    /// Changes whenever the values in force may have: equal stamps, equal values
    /// (0 for the defaults), so a projection can cache what it derives from them.
    /// Stamps are per process: a checkpoint does not store it ([`Params::restamp`]).
    stamp: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            given: Given::default(),
            typed: Arc::clone(default_groups()),
            stamp: 0,
        }
    }
}

/// The values given only: stamps differ between two folds of one ledger.
impl fmt::Debug for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Params")
            .field("set", &self.given.set)
            .field("pinned", &self.given.pinned)
            .finish()
    }
}

impl From<Params> for Given {
    fn from(p: Params) -> Given {
        p.given
    }
}

impl TryFrom<Given> for Params {
    type Error = String;

    fn try_from(given: Given) -> Result<Params, String> {
        let mut p = Params {
            typed: build(&given)?,
            given,
            stamp: 0,
        };
        p.restamp();
        Ok(p)
    }
}

/// Every group's typed struct: its defaults, then the values set, then the
/// values pinned. A group nothing was given for shares its defaults.
fn build(given: &Given) -> Result<Arc<[Typed]>, String> {
    let defaults = default_groups();
    (PARAM_GROUPS.iter().zip(defaults.iter()))
        .map(|(g, default)| {
            let of_group = |m: &BTreeMap<Key, Value>| -> Vec<(String, Value)> {
                (m.iter())
                    .filter(|((s, _), _)| s == g.name)
                    .map(|((_, n), v)| (n.clone(), v.clone()))
                    .collect()
            };
            let values: Map<String, Value> = (of_group(&given.set).into_iter())
                .chain(of_group(&given.pinned))
                .collect();
            if values.is_empty() {
                Ok(Arc::clone(default))
            } else {
                (g.read)(&values)
            }
        })
        .collect()
}

/// A fresh [`Params::stamp`], never 0.
fn next_stamp() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Params {
    /// Parameters pinned by a rules file (checked by [`check_rules`]; a group
    /// that does not check is left at its defaults).
    pub fn pinned(rules: &Value) -> Self {
        let mut given = Given::default();
        for (system, params) in rules.as_object().into_iter().flatten() {
            let Some(params) = params.as_object() else {
                continue;
            };
            if check_system(system, params).is_err() {
                continue;
            }
            for (name, v) in params {
                given
                    .pinned
                    .insert((system.clone(), name.clone()), v.clone());
            }
        }
        let typed = build(&given).expect("checked values build their groups");
        Params {
            given,
            typed,
            stamp: next_stamp(),
        }
    }

    /// Apply a `rules_changed` (checked by [`check_input`] when it was
    /// appended, so by [`check_system`] now; one that does not, which only a
    /// ledger written with wider ranges holds, changes nothing: see the
    /// module docs).
    pub fn change(&mut self, system: &str, params: &Map<String, Value>) {
        if check_system(system, params).is_err() {
            return;
        }
        for (name, v) in params {
            self.given
                .set
                .insert((system.to_string(), name.clone()), v.clone());
        }
        self.typed = build(&self.given).expect("checked values build their groups");
        self.stamp = next_stamp();
    }

    /// A fresh stamp for parameters read back from a checkpoint (0 again when
    /// nothing differs from the defaults).
    pub fn restamp(&mut self) {
        let defaults = self.given.set.is_empty() && self.given.pinned.is_empty();
        self.stamp = if defaults { 0 } else { next_stamp() };
    }

    /// Equal stamps mean equal values in force (see the field).
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Group `T`'s values in force: pinned, else last changed, else the default.
    ///
    /// # Panics
    /// When `T` is not in [`PARAM_GROUPS`] (every fold of a system's events reads
    /// its groups, so the system's tests find that at once).
    pub fn get<T: Group>(&self) -> &T {
        (self.typed.iter())
            .find_map(|t| t.downcast_ref::<T>())
            .unwrap_or_else(|| panic!("parameter group {} is not in PARAM_GROUPS", T::NAME))
    }

    /// [`Params::get`] as a shared pointer, for code that needs the values
    /// while it changes the fold's context.
    pub fn shared<T: Group>(&self) -> Arc<T> {
        let found = self.typed.iter().find(|t| t.is::<T>());
        (found.and_then(|t| Arc::clone(t).downcast::<T>().ok()))
            .unwrap_or_else(|| panic!("parameter group {} is not in PARAM_GROUPS", T::NAME))
    }

    /// The values given (by a rule change, or pinned by a rules file) of
    /// the groups `of` picks, in force now, as an audit formula names them:
    /// ` [rules given: carnage.eliminated=tied, fibonacci.base=1]`; empty
    /// when none were (the defaults, which the formula's numbers show).
    pub fn given_text(&self, of: impl Fn(&str) -> bool) -> String {
        if self.stamp == 0 {
            return String::new();
        }
        // Pinned values win over those set, as in force.
        let values: BTreeMap<&Key, &Value> = (self.given.set.iter())
            .chain(&self.given.pinned)
            .filter(|((group, _), _)| of(group))
            .collect();
        if values.is_empty() {
            return String::new();
        }
        let shown: Vec<String> = (values.iter())
            .map(|((group, n), v)| match v {
                Value::String(s) => format!("{group}.{n}={s}"),
                v => format!("{group}.{n}={v}"),
            })
            .collect();
        format!(" [rules given: {}]", shown.join(", "))
    }

    /// Whether a rule change folded sets `group.name`: its value then differs
    /// over the history, and one value pinned for all of it is a what-if.
    pub fn is_changed(&self, group: &str, name: &str) -> bool {
        (self.given.set.keys()).any(|(g, n)| g == group && n == name)
    }

    /// The parameters pinned by a rules file that a rule change folded sets
    /// too, as `(group, name)`: the file's value holds over the whole
    /// history, before that change as after it.
    pub fn pinned_over_changes(&self) -> Vec<(String, String)> {
        (self.given.pinned.keys())
            .filter(|k| self.given.set.contains_key(*k))
            .cloned()
            .collect()
    }

    /// Every parameter with its value in force, for `laurel rules`.
    pub fn listing(&self) -> Vec<(&'static ParamDef, Value)> {
        let mut out = Vec::new();
        for (g, t) in PARAM_GROUPS.iter().zip(self.typed.iter()) {
            let mut values = (g.write)(t);
            for d in g.params {
                out.push((d, values.remove(d.name).unwrap_or(Value::Null)));
            }
        }
        out
    }
}

mod range;
#[cfg(test)]
mod tests;

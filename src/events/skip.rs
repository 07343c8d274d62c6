//! A deserializer adaptor that hides the envelope fields (`type`, `at`, `id`)
//! of the top-level object from a payload type with `deny_unknown_fields`,
//! and, given a [`Capture`], keeps `type` and `id` there.

use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::Deserializer;

/// The envelope fields met at the top level: `type`, `id` (`Some(None)`
/// for `null`), and whether either came twice.
#[derive(Debug, Default)]
pub struct Capture {
    pub kind: Option<String>,
    pub id: Option<Option<String>>,
    pub twice: bool,
}

pub struct SkipEnvelope<'c, D>(pub D, pub Option<&'c mut Capture>);

impl<'de, D: Deserializer<'de>> Deserializer<'de> for SkipEnvelope<'_, D> {
    type Error = D::Error;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(SkipVisitor(v, self.1))
    }
    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(SkipVisitor(v, self.1))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_struct(name, fields, SkipVisitor(v, self.1))
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct enum identifier ignored_any
    }
}

struct SkipVisitor<'c, V>(V, Option<&'c mut Capture>);

impl<'de, V: Visitor<'de>> Visitor<'de> for SkipVisitor<'_, V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.0.expecting(f)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(SkipMap(map, self.1))
    }
}

struct SkipMap<'c, A>(A, Option<&'c mut Capture>);

struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KV;
        impl<'de> Visitor<'de> for KV {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_string())))
            }
        }
        d.deserialize_str(KV)
    }
}

impl<'de, A: MapAccess<'de>> SkipMap<'_, A> {
    /// Consume the value of envelope field `key`, keeping it if capturing.
    fn envelope(&mut self, key: &str) -> Result<(), A::Error> {
        let Some(cap) = self.1.as_deref_mut() else {
            return self.0.next_value::<IgnoredAny>().map(|_| ());
        };
        match key {
            "type" => {
                let v = self.0.next_value::<Cow<'de, str>>()?;
                cap.twice |= cap.kind.replace(v.into_owned()).is_some();
            }
            "id" => {
                let v = self.0.next_value::<Option<Cow<'de, str>>>()?;
                cap.twice |= cap.id.replace(v.map(Cow::into_owned)).is_some();
            }
            _ => {
                self.0.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for SkipMap<'_, A> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        loop {
            let Some(key) = self.0.next_key::<Key<'de>>()? else {
                return Ok(None);
            };
            if matches!(&*key.0, "type" | "at" | "id") {
                self.envelope(&key.0)?;
                continue;
            }
            return seed
                .deserialize(de::value::CowStrDeserializer::<A::Error>::new(key.0))
                .map(Some);
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.0.next_value_seed(seed)
    }
}

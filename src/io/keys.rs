//! The `keys` list of tree and project files (FORMAT.md "Keys"): read with every problem of
//! a declaration placed at its line, and written in the order declared.

use std::collections::HashSet;
use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::{KeyDecl, KeyType, MAX_DECLARED_KEYS, Param, Value};

/// A file's `keys`: its declarations, each checked as it is read.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Keys(pub Vec<KeyDecl>);

#[derive(Serialize, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a key: an object with \"name\" and \"type\""
)]
struct KeyDto {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    parameter: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default: Option<Value>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    doc: String,
}

impl KeyDto {
    fn declaration(self) -> Result<KeyDecl, String> {
        let ty = KeyType::parse(&self.ty).ok_or_else(|| {
            format!(
                "key '{}': \"{}\" is not a key type; a key holds {}",
                self.name,
                self.ty,
                KeyType::ALL.map(KeyType::name).join(", ")
            )
        })?;
        let parameter = match self.parameter.as_deref() {
            None => None,
            Some(p) => Some(Param::parse(p).ok_or_else(|| {
                format!(
                    "key '{}': a parameter is \"in\", \"out\" or \"inout\", not \"{p}\"",
                    self.name
                )
            })?),
        };
        let decl = KeyDecl {
            name: self.name,
            ty,
            default: self.default,
            doc: self.doc,
            parameter,
        };
        match decl.problem() {
            Some(why) => Err(why),
            None => Ok(decl),
        }
    }
}

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct List;
        impl<'de> Visitor<'de> for List {
            type Value = Keys;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of keys [ {\"name\": …, \"type\": …}, … ]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                let mut names = HashSet::new();
                while let Some(decl) = seq.next_element_seed(Entry(&mut names))? {
                    keys.push(decl);
                }
                Ok(Keys(keys))
            }
        }
        d.deserialize_seq(List)
    }
}

/// One entry of the list, checked against itself and the names before it while its object
/// is read, so that a problem is placed at the entry's own line.
struct Entry<'n>(&'n mut HashSet<String>);

impl<'de> DeserializeSeed<'de> for Entry<'_> {
    type Value = KeyDecl;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<KeyDecl, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Entry<'_> {
    type Value = KeyDecl;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key: an object with \"name\" and \"type\"")
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<KeyDecl, M::Error> {
        let dto = KeyDto::deserialize(MapAccessDeserializer::new(map))?;
        if self.0.len() == MAX_DECLARED_KEYS {
            return Err(de::Error::custom(format!(
                "more than {MAX_DECLARED_KEYS} keys are declared; a file declares at most {MAX_DECLARED_KEYS}"
            )));
        }
        let decl = dto.declaration().map_err(de::Error::custom)?;
        if !self.0.insert(decl.name.clone()) {
            return Err(de::Error::custom(format!(
                "key '{}' is declared twice",
                decl.name
            )));
        }
        Ok(decl)
    }
}

impl Serialize for Keys {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|k| KeyDto {
            name: k.name.clone(),
            ty: k.ty.name().to_owned(),
            parameter: k.parameter.map(|p| p.name().to_owned()),
            default: k.default.clone(),
            doc: k.doc.clone(),
        }))
    }
}

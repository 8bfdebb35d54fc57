//! `IsDoorOpen` and `HasBall` (SEMANTICS.md §4): conditions on the world's items.

use super::WorldKind;
use crate::model::{Category, KeyType, KindSpec};
use crate::world::{EntityKind, ItemKind, World};

pub(super) const IS_DOOR_OPEN: WorldKind = WorldKind {
    spec: || {
        KindSpec::new(
            "IsDoorOpen",
            Category::Condition,
            "True when the door in in_context is open.",
            vec![],
        )
        .reads(KeyType::Entity.set())
    },
    register: |b| {
        b.condition_fn("IsDoorOpen", |w: &mut World, io| {
            let door = w.entity_in(io.input).and_then(|d| w.alive(d));
            matches!(door.map(|d| &d.kind), Some(EntityKind::Door { open: true }))
        });
    },
};

pub(super) const HAS_BALL: WorldKind = WorldKind {
    spec: || {
        KindSpec::new(
            "HasBall",
            Category::Condition,
            "True when this agent holds the ball.",
            vec![],
        )
    },
    register: |b| {
        b.condition_fn("HasBall", |w: &mut World, _| {
            w.held(w.me(), ItemKind::Ball).is_some()
        });
    },
};

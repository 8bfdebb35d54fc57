//! The world's leaves and conditions (SEMANTICS.md §4), one module each: a kind's spec
//! (its help, its fields and their defaults) beside the behaviour that runs it, so a
//! default is written once. [`Catalog::builtin`] is assembled here, from the structure of
//! `runtime/kinds`, the mock kinds of the runtime and these.

mod attack;
mod body;
mod find_closest;
mod flee;
mod instant;
mod is_in_range;
mod items;
mod move_to;
mod timed;
mod wander;

pub use move_to::names_a_waypoint;

use crate::model::{Catalog, KindSpec};
use crate::runtime::Behaviours;
use crate::world::World;

/// A kind of the world: its spec, and how its behaviour is registered.
pub(super) struct WorldKind {
    spec: fn() -> KindSpec,
    register: fn(&mut Behaviours<World>),
}

/// The world's leaves, in palette order.
const LEAVES: [WorldKind; 9] = [
    move_to::KIND,
    wander::KIND,
    find_closest::KIND,
    attack::KIND,
    flee::KIND,
    instant::PICK_UP,
    timed::EAT,
    instant::OPEN_DOOR,
    instant::PASS_BALL,
];

/// The world's conditions, in palette order.
const CONDITIONS: [WorldKind; 6] = [
    is_in_range::KIND,
    body::IS_STRONGER,
    body::IS_HEALTH_BELOW,
    body::IS_HUNGRY,
    items::IS_DOOR_OPEN,
    items::HAS_BALL,
];

impl Catalog {
    /// The built-in kinds, in palette order: the structure of SEMANTICS.md §1 (each
    /// defined with its runtime behaviour in `runtime/kinds`), the world's leaves, the
    /// mock action, Wait, SetKey, UnsetKey, Script and WasEntryUpdated, the context check, the constant conditions, the script
    /// condition, the world's conditions and the mock condition.
    pub fn builtin() -> Self {
        let [
            mock_action,
            wait,
            has_context,
            always_success,
            always_failure,
            mock_condition,
        ] = crate::runtime::mock_specs();
        let [script_condition, script] = crate::runtime::script_specs();
        let [set_key, unset_key, was_entry_updated] = crate::runtime::set_key_specs();
        let mut c = Catalog::empty();
        let world = |kinds: &'static [WorldKind]| kinds.iter().map(|k| (k.spec)());
        for k in crate::runtime::structure_specs()
            .into_iter()
            .chain(world(&LEAVES))
            .chain([
                mock_action,
                wait,
                set_key,
                unset_key,
                script,
                was_entry_updated,
                has_context,
                always_success,
                always_failure,
                script_condition,
            ])
            .chain(world(&CONDITIONS))
            .chain([mock_condition])
        {
            c.insert(k);
        }
        c
    }
}

impl Default for Catalog {
    fn default() -> Self {
        Self::builtin()
    }
}

/// The behaviours of every built-in kind: the world's and the mock ones.
pub fn world_behaviours() -> Behaviours<World> {
    let mut b = Behaviours::<World>::with_builtins();
    for k in LEAVES.iter().chain(&CONDITIONS) {
        (k.register)(&mut b);
    }
    b
}

/// The kinds in `tree` that only run in the world (in a scenario), sorted, each once.
pub fn world_kinds(tree: &crate::model::Tree) -> Vec<String> {
    let plain = Behaviours::<()>::with_builtins();
    let world = world_behaviours();
    let mut kinds: Vec<String> = tree
        .nodes()
        .iter()
        .map(|n| n.kind.clone())
        .filter(|k| !plain.knows(k) && world.knows(k))
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// How far the stepping agent walks in a second.
fn speed(w: &World) -> f64 {
    w.body(w.me()).map_or(0.0, |b| b.speed)
}

#[cfg(test)]
mod tests {
    use crate::model::{Catalog, Category};

    /// Every world kind is in the built-in catalog as its module defines it, and has a
    /// behaviour.
    #[test]
    fn every_world_kind_is_in_the_catalog_with_a_behaviour() {
        let catalog = Catalog::builtin();
        let behaviours = super::world_behaviours();
        for k in super::LEAVES.iter().chain(&super::CONDITIONS) {
            let spec = (k.spec)();
            assert!(behaviours.knows(&spec.name), "{}", spec.name);
            assert_eq!(catalog.kind(&spec.name), Some(&spec));
            assert!(matches!(
                spec.category,
                Category::Leaf | Category::Condition
            ));
        }
    }
}

//! Scenario files: a world's starting state and the tree each agent runs.
//!
//! ```json
//! {
//!   "format": "arbor.scenario",
//!   "version": 1,
//!   "description": "Two droids.",
//!   "map": ["#####", "#...#", "#####"],
//!   "entities": [
//!     {"kind": "agent", "name": "red", "at": [1, 1], "team": "red", "tree": "droid.json"},
//!     {"kind": "agent", "name": "blue", "at": [3, 1], "team": "blue", "tree": "droid.json"}
//!   ]
//! }
//! ```
//!
//! docs/FORMAT.md documents every key. Problems are reported with the file and the entity.

use crate::model::names::Num;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{Body, Entity, EntityId, EntityKind, ItemKind, World};

/// The `format` value of a scenario file.
pub const SCENARIO_FORMAT: &str = crate::io::header::SCENARIO.name;
/// The newest scenario version this build reads.
pub const SCENARIO_VERSION: u64 = crate::io::header::SCENARIO.newest;

/// Largest arena side, in tiles.
const MAX_SIDE: usize = 512;

/// Why a scenario cannot be used; names the file and, where there is one, the entity.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}{}: {}{message}", path.display(), place.as_deref().map(|p| format!(":{p}")).unwrap_or_default(), entity.as_deref().map(|e| format!("entity '{e}': ")).unwrap_or_default())]
pub struct ScenarioError {
    /// The scenario file.
    pub path: PathBuf,
    /// `line:column` of a syntax error.
    pub place: Option<String>,
    /// The entity concerned.
    pub entity: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// An agent of the scenario and the tree file it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentSetup {
    /// Its entity in the world.
    pub entity: EntityId,
    /// Its name.
    pub name: String,
    /// Its tree file, resolved against the scenario's folder.
    pub tree: PathBuf,
    /// Its own defaults of keys of its tree (`"keys"`), as the file writes them: each is
    /// typed against the tree's declarations when the tree is compiled.
    pub keys: Vec<(String, Value)>,
}

/// Whether a file's text is a scenario (by its `format` header) rather than a tree.
pub fn is_scenario(text: &str) -> bool {
    // A cheap look at the header; the full parse reports any other problem.
    crate::io::read_header(text)
        .and_then(|h| h.format)
        .as_deref()
        == Some(SCENARIO_FORMAT)
}

/// Reads a scenario file: the world and its agents.
pub fn load_scenario(path: &Path) -> Result<(World, Vec<AgentSetup>), ScenarioError> {
    let text = crate::io::read_text(path).map_err(|e| ScenarioError {
        path: path.to_owned(),
        place: None,
        entity: None,
        message: format!("cannot read: {e}"),
    })?;
    parse_scenario(&text, path)
}

/// Parses a scenario's text; `path` names it in errors and anchors its tree paths.
pub fn parse_scenario(text: &str, path: &Path) -> Result<(World, Vec<AgentSetup>), ScenarioError> {
    let err = |entity: Option<&str>, message: String| ScenarioError {
        path: path.to_owned(),
        place: None,
        entity: entity.map(str::to_owned),
        message,
    };
    crate::io::header::SCENARIO
        .check(text)
        .map_err(|p| err(None, p.message))?;
    let root: Value = serde_json::from_str(text).map_err(|e| ScenarioError {
        path: path.to_owned(),
        place: Some(format!("{}:{}", e.line(), e.column())),
        entity: None,
        message: e
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or_default()
            .to_owned(),
    })?;
    let Value::Object(root) = root else {
        return Err(err(None, "a scenario is a JSON object".into()));
    };
    for key in root.keys() {
        if !["format", "version", "description", "map", "entities"].contains(&key.as_str()) {
            return Err(err(
                None,
                format!(
                    "unknown key '{key}' (expected format, version, description, map, entities)"
                ),
            ));
        }
    }
    if root.get("description").is_some_and(|d| !d.is_string()) {
        return Err(err(None, "\"description\" must be text".into()));
    }
    let mut world = parse_map(root.get("map")).map_err(|m| err(None, m))?;
    let Some(Value::Array(list)) = root.get("entities") else {
        return Err(err(None, "missing \"entities\" (a list)".into()));
    };
    let base = path.parent().unwrap_or(Path::new(""));
    let mut agents = Vec::new();
    let mut holds: Vec<(String, String)> = Vec::new(); // (item, holder)
    let mut taken: std::collections::HashMap<(i32, i32), String> = Default::default();
    let mut unplaced: Vec<String> = Vec::new(); // items without a tile: they must be held
    for (i, v) in list.iter().enumerate() {
        let Value::Object(e) = v else {
            return Err(err(None, format!("entity {} is not an object", i + 1)));
        };
        let name = match e.get("name") {
            Some(Value::String(n)) if !n.trim().is_empty() => n.clone(),
            _ => {
                return Err(err(
                    None,
                    format!(
                        "entity {} has no \"name\" (every entity needs a unique name)",
                        i + 1
                    ),
                ));
            }
        };
        let fail = |m: String| err(Some(&name), m);
        if world.find(&name).is_some() {
            return Err(fail(
                "a second entity with this name (names must be unique)".into(),
            ));
        }
        let kind = e.get("kind").and_then(Value::as_str).unwrap_or("");
        let fields = Fields { map: e, err: &fail };
        let (entity_kind, allowed): (EntityKind, &[&str]) = match kind {
            "agent" => {
                let health = fields.number("health", 100.0, Range::Positive)?;
                let max_health = fields.number("max_health", health, Range::Positive)?;
                if health > max_health {
                    return Err(fail(format!(
                        "health {} is above max_health {}",
                        Num(health),
                        Num(max_health)
                    )));
                }
                let Some(tree) = e
                    .get("tree")
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                else {
                    return Err(fail(
                        "an agent needs a \"tree\": the tree file it runs".into(),
                    ));
                };
                if let Some(item) = e.get("holds") {
                    let Some(item) = item.as_str() else {
                        return Err(fail("\"holds\" must name an item".into()));
                    };
                    holds.push((item.to_owned(), name.clone()));
                }
                let keys = match e.get("keys") {
                    None => Vec::new(),
                    Some(Value::Object(keys)) => {
                        keys.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
                    }
                    Some(_) => {
                        return Err(fail(
                            "\"keys\" must be an object: {\"KEY\": value, …}".into(),
                        ));
                    }
                };
                agents.push((name.clone(), base.join(tree), keys));
                (
                    EntityKind::Agent(Body {
                        team: match e.get("team") {
                            None => String::new(),
                            Some(Value::String(t)) => t.clone(),
                            Some(_) => return Err(fail("\"team\" must be text".into())),
                        },
                        health,
                        max_health,
                        damage: fields.number("damage", 10.0, Range::NonNegative)?,
                        range: fields.number("range", 1.5, Range::Positive)?,
                        speed: fields.number("speed", 2.0, Range::Positive)?,
                        hunger: fields.number("hunger", 0.0, Range::Unit)?,
                        hunger_rate: fields.number("hunger_rate", 0.0, Range::NonNegative)?,
                        holding: None,
                        meals: 0,
                        last_meal: None,
                        kills: 0,
                    }),
                    &[
                        "team",
                        "tree",
                        "health",
                        "max_health",
                        "damage",
                        "range",
                        "speed",
                        "hunger",
                        "hunger_rate",
                        "holds",
                        "keys",
                    ],
                )
            }
            "food" | "health_kit" | "ball" => {
                let (item, amount, allowed): (ItemKind, f64, &[&str]) = match kind {
                    "food" => (
                        ItemKind::Food,
                        fields.number("nutrition", 0.5, Range::Unit)?,
                        &["nutrition"],
                    ),
                    "health_kit" => (
                        ItemKind::HealthKit,
                        fields.number("heal", 50.0, Range::Positive)?,
                        &["heal"],
                    ),
                    _ => (ItemKind::Ball, 0.0, &[]),
                };
                (
                    EntityKind::Item {
                        item,
                        holder: None,
                        amount,
                    },
                    allowed,
                )
            }
            "door" => (
                EntityKind::Door {
                    open: match e.get("open") {
                        None => false,
                        Some(Value::Bool(b)) => *b,
                        Some(_) => return Err(fail("\"open\" must be true or false".into())),
                    },
                },
                &["open"],
            ),
            "waypoint" => (EntityKind::Waypoint, &[]),
            "" => {
                return Err(fail(
                    "missing \"kind\" (agent, food, health_kit, ball, door or waypoint)".into(),
                ));
            }
            other => {
                return Err(fail(format!(
                    "unknown entity kind '{other}' (expected agent, food, health_kit, ball, door or waypoint)"
                )));
            }
        };
        for key in e.keys() {
            if !["kind", "name", "at"].contains(&key.as_str()) && !allowed.contains(&key.as_str()) {
                let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
                    "an"
                } else {
                    "a"
                };
                return Err(fail(format!("{article} {kind} has no field '{key}'")));
            }
        }
        let at = match e.get("at") {
            None if matches!(entity_kind, EntityKind::Item { .. }) => {
                unplaced.push(name.clone());
                None
            }
            None => return Err(fail("missing \"at\": [x, y], its tile".into())),
            Some(v) => Some(parse_tile(v).ok_or_else(|| {
                fail(
                    "\"at\" must be [x, y], two whole numbers (x: column, y: row from the top)"
                        .into(),
                )
            })?),
        };
        if let Some((x, y)) = at {
            if x < 0 || y < 0 || x >= world.width() || y >= world.height() {
                return Err(fail(format!(
                    "is placed at [{x}, {y}], outside the {}×{} map",
                    world.width(),
                    world.height()
                )));
            }
            if world.is_wall((x, y)) {
                return Err(fail(format!("is placed in a wall at [{x}, {y}]")));
            }
            if let Some(other) = taken.get(&(x, y)) {
                return Err(fail(format!("shares the tile [{x}, {y}] with '{other}'")));
            }
            taken.insert((x, y), name.clone());
        }
        let pos = at.map_or([0.0, 0.0], |(x, y)| [f64::from(x), f64::from(y)]);
        world.add(Entity {
            name: name.clone(),
            pos,
            alive: true,
            kind: entity_kind,
        });
    }
    // Hand the held items over (an item may be listed before or after its holder).
    let mut holders: std::collections::HashMap<&str, usize> = Default::default();
    for (item, _) in &holds {
        *holders.entry(item.as_str()).or_default() += 1;
    }
    let unplaced_set: std::collections::HashSet<&String> = unplaced.iter().collect();
    for (item, holder) in &holds {
        let (Some(i), Some(h)) = (world.find(item), world.find(holder)) else {
            return Err(err(
                Some(holder),
                format!("holds '{item}', which is not in the scenario"),
            ));
        };
        if !unplaced_set.contains(item) {
            return Err(err(
                Some(item),
                format!("is held by '{holder}' and also placed on a tile; leave out its \"at\""),
            ));
        }
        let holder_pos = world.entities()[h as usize].pos;
        if holders.get(item.as_str()).is_some_and(|&n| n > 1) {
            return Err(err(Some(item), "is held by two agents".into()));
        }
        match &mut world.entities[i as usize] {
            Entity {
                kind: EntityKind::Item { holder, .. },
                pos,
                ..
            } => {
                *holder = Some(h);
                *pos = holder_pos;
                world.refile(i);
            }
            _ => {
                return Err(err(
                    Some(holder),
                    format!("holds '{item}', which is not an item"),
                ));
            }
        }
        if let EntityKind::Agent(b) = &mut world.entities[h as usize].kind {
            b.holding = Some(i);
        }
    }
    if let Some(item) = unplaced.iter().find(|i| !holders.contains_key(i.as_str())) {
        return Err(err(
            Some(item),
            "missing \"at\": [x, y], its tile (or an agent that \"holds\" it)".into(),
        ));
    }
    if agents.is_empty() {
        return Err(err(
            None,
            "no agents: add an entity of kind \"agent\" with a tree".into(),
        ));
    }
    let agents = agents
        .into_iter()
        .map(|(name, tree, keys)| AgentSetup {
            entity: world.find(&name).unwrap_or_default(),
            name,
            tree,
            keys,
        })
        .collect();
    Ok((world, agents))
}

fn parse_map(v: Option<&Value>) -> Result<World, String> {
    let Some(Value::Array(rows)) = v else {
        return Err("missing \"map\": a list of rows, '#' for a wall and '.' for floor".into());
    };
    let rows: Vec<&str> = rows
        .iter()
        .map(|r| r.as_str().ok_or("every map row must be text"))
        .collect::<Result<_, _>>()?;
    let width = rows.first().map_or(0, |r| r.chars().count());
    if rows.is_empty() || width == 0 {
        return Err("the map is empty".into());
    }
    if rows.len() > MAX_SIDE || width > MAX_SIDE {
        return Err(format!(
            "the map is larger than {MAX_SIDE}×{MAX_SIDE} tiles"
        ));
    }
    let mut walls = Vec::with_capacity(width * rows.len());
    for (y, row) in rows.iter().enumerate() {
        if row.chars().count() != width {
            return Err(format!(
                "map row {} has {} tiles; the first row has {width} (rows must be equally long)",
                y + 1,
                row.chars().count()
            ));
        }
        for (x, c) in row.chars().enumerate() {
            walls.push(match c {
                '#' => true,
                '.' => false,
                other => {
                    return Err(format!(
                        "map row {}, column {}: '{other}' is not a tile ('#' wall, '.' floor; doors, items and waypoints are entities)",
                        y + 1,
                        x + 1
                    ));
                }
            });
        }
    }
    Ok(World::new(width, rows.len(), walls))
}

fn parse_tile(v: &Value) -> Option<(i32, i32)> {
    let a = v.as_array()?;
    if a.len() != 2 {
        return None;
    }
    let x = i32::try_from(a[0].as_i64()?).ok()?;
    let y = i32::try_from(a[1].as_i64()?).ok()?;
    Some((x, y))
}

#[derive(Clone, Copy)]
enum Range {
    Positive,
    NonNegative,
    Unit,
}

struct Fields<'a, F: Fn(String) -> ScenarioError> {
    map: &'a Map<String, Value>,
    err: &'a F,
}

impl<F: Fn(String) -> ScenarioError> Fields<'_, F> {
    fn number(&self, key: &str, default: f64, range: Range) -> Result<f64, ScenarioError> {
        let Some(v) = self.map.get(key) else {
            return Ok(default);
        };
        let Some(n) = v.as_f64().filter(|n| n.is_finite()) else {
            return Err((self.err)(format!("\"{key}\" must be a number")));
        };
        let ok = match range {
            Range::Positive => n > 0.0,
            Range::NonNegative => n >= 0.0,
            Range::Unit => (0.0..=1.0).contains(&n),
        };
        if !ok {
            let want = match range {
                Range::Positive => "above 0",
                Range::NonNegative => "0 or more",
                Range::Unit => "from 0 to 1",
            };
            return Err((self.err)(format!(
                "\"{key}\" is {}; it must be {want}",
                Num(n)
            )));
        }
        Ok(n)
    }
}

//! Checking a run against a test's expectations: an observer that counts node events and
//! completed runs as they come, and checks deadlines and the world's state at each step's
//! end. The expectations reach it resolved ([`super::Prepared`] resolves them).

use super::file::{Count, NodeEvent};
use crate::model::names::Num;
use crate::runtime::Counts;
use crate::runtime::{CtxValue, Event, EventKind, Observer, Status};
use crate::world::Simulation;

/// A node event, a completed run or an Interrupt started, as an expectation counts it.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Matcher {
    Node(NodeEvent, String),
    Complete(bool),
    Interrupt(String),
}

impl Matcher {
    /// Whether `event` is one this matcher counts. `tally` keeps the node's counts so far:
    /// a guard (a condition checked, never entered) counts its checks as coverage does
    /// ([`Counts::folded`]).
    fn hits(&self, event: &Event<'_>, tally: &mut Counts) -> bool {
        match (self, &event.kind) {
            (Matcher::Node(e, id), kind) if event.node_id == id => {
                let of = |c: Counts| match e {
                    NodeEvent::Enters => c.entered,
                    NodeEvent::Succeeds => c.succeeded,
                    NodeEvent::Fails => c.failed,
                    NodeEvent::Exits => c.succeeded + c.failed,
                    NodeEvent::Aborts => c.aborted,
                };
                let before = of(tally.folded());
                tally.count(kind);
                of(tally.folded()) > before
            }
            // (A run skipped whole neither succeeds nor fails.)
            (Matcher::Complete(success), EventKind::Complete(s)) => {
                *s != Status::Skipped && (*s == Status::Success) == *success
            }
            (Matcher::Interrupt(id), EventKind::Interrupt(i)) => i == id,
            _ => false,
        }
    }

    /// Whether `event` may be one it counts (a node matcher looks at its node's events).
    fn concerns(&self, event: &Event<'_>) -> bool {
        match self {
            Matcher::Node(_, id) => event.node_id == id,
            _ => true,
        }
    }

    /// As a sentence says it did not happen: "'open' did not succeed".
    fn not_said(&self) -> String {
        match self {
            Matcher::Node(e, id) => format!("'{id}' {}", e.not_past()),
            other => format!("not: {}", other.said()),
        }
    }

    /// As a sentence says it happened: "'open' succeeded", "the Interrupt 'alarm' started".
    fn said(&self) -> String {
        match self {
            Matcher::Node(e, id) => format!("'{id}' {}", e.past()),
            Matcher::Complete(true) => "a run completed with success".into(),
            Matcher::Complete(false) => "a run completed with failure".into(),
            Matcher::Interrupt(id) => format!("the Interrupt '{id}' started"),
        }
    }
}

/// A place resolved in the world.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Spot {
    Point([f64; 2]),
    Entity(u64, String),
}

/// An expectation, its names resolved against the run.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Rule {
    Count(Matcher, Count),
    Within {
        target: Matcher,
        after: Matcher,
        steps: u64,
    },
    Runs {
        node: String,
        step: u64,
    },
    Near {
        agent: String,
        spot: Spot,
        distance: f64,
        step: Option<u64>,
    },
    Health {
        agent: String,
        above: Option<f64>,
        below: Option<f64>,
        step: Option<u64>,
    },
    Gone {
        entity: u64,
        name: String,
        step: Option<u64>,
    },
    Context {
        agent: String,
        key: u16,
        name: String,
        value: CtxValue,
        step: Option<u64>,
    },
}

/// A resolved expectation: its name, the agent its events are counted for (any when
/// `None`), its rule, and the agent whose tree a failure opens in the editor.
#[derive(Clone, Debug)]
pub(super) struct Check {
    pub(super) name: String,
    pub(super) agent: Option<String>,
    pub(super) rule: Rule,
    pub(super) shown: Option<String>,
    /// The node it is about (its trace id), for the editor to select.
    pub(super) node: Option<String>,
}

/// A node's counts so far, for each agent (a node id may be a guard in one agent's tree
/// and an entered node in another's).
#[derive(Default)]
pub(super) struct Tallies(Vec<(String, Counts)>);

impl Tallies {
    fn of(&mut self, agent: &str) -> &mut Counts {
        let i = match self.0.iter().position(|(a, _)| a == agent) {
            Some(i) => i,
            None => {
                self.0.push((agent.to_owned(), Counts::default()));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }
}

/// What one run has seen of each expectation.
pub(super) enum Seen {
    /// How many times, with the node's counts so far.
    Count(u64, Tallies),
    /// The first step `after` happened at that `target` has not followed yet (a later
    /// one's window ends later, and the same event answers both), whether `after`
    /// happened at all, and the counts so far of the target's and of `after`'s node.
    Within {
        pending: Option<u64>,
        happened: bool,
        tallies: [Tallies; 2],
    },
    /// Checked at a step's end.
    State,
}

/// The observer that checks a run's expectations as its events come.
pub(super) struct Watch<'c> {
    checks: &'c [Check],
    seen: Vec<Seen>,
    /// Per expectation: the first step where it broke, how, and the agent whose event
    /// broke it (when an event did).
    pub(super) broken: Vec<Option<(u64, String, Option<String>)>>,
    agent: String,
}

impl<'c> Watch<'c> {
    pub(super) fn new(checks: &'c [Check]) -> Self {
        Self {
            seen: checks
                .iter()
                .map(|c| match c.rule {
                    Rule::Count(..) => Seen::Count(0, Tallies::default()),
                    Rule::Within { .. } => Seen::Within {
                        pending: Default::default(),
                        happened: false,
                        tallies: Default::default(),
                    },
                    _ => Seen::State,
                })
                .collect(),
            broken: vec![None; checks.len()],
            checks,
            agent: String::new(),
        }
    }

    fn break_at(&mut self, i: usize, step: u64, message: String, agent: Option<String>) {
        self.broken[i].get_or_insert((step, message, agent));
    }

    /// After step `step` of `last`: the deadlines that passed, the states due at this
    /// step, and at the last step what only the end can tell.
    pub(super) fn end_step(&mut self, step: u64, sim: &Simulation, last: u64) {
        for i in 0..self.checks.len() {
            let check = &self.checks[i];
            let verdict = match (&check.rule, &self.seen[i]) {
                (
                    Rule::Within {
                        target,
                        after,
                        steps,
                    },
                    Seen::Within {
                        pending, happened, ..
                    },
                ) => match pending {
                    Some(s) if s.saturating_add(*steps) <= step => Some((
                        s + steps,
                        format!(
                            "{} at step {s}, but {} within {} of it",
                            after.said(),
                            target.not_said(),
                            if *steps == 1 {
                                "1 step".to_owned()
                            } else {
                                format!("{steps} steps")
                            }
                        ),
                    )),
                    _ if step == last && !happened => Some((
                        step,
                        format!(
                            "{} never happened, so nothing could follow it",
                            after.said()
                        ),
                    )),
                    _ => None,
                },
                (Rule::Count(m, count), Seen::Count(n, _))
                    if step == last && *n < count.at_least =>
                {
                    Some((
                        step,
                        format!(
                            "{} {} by the end (step {step}); expected at least {}",
                            m.said(),
                            times(*n),
                            count.at_least
                        ),
                    ))
                }
                (Rule::Runs { node, step: at }, _) if *at == step => {
                    let now: Vec<&String> = sim
                        .agents()
                        .filter(|a| check.agent.as_ref().is_none_or(|n| *n == a.name))
                        .filter_map(|a| sim.instance(&a.name))
                        .flat_map(|inst| {
                            let ids = inst.program().node_ids();
                            inst.active_leaves().iter().map(move |&l| &ids[l as usize])
                        })
                        .collect();
                    (!now.contains(&node)).then(|| {
                        let now: Vec<&str> = now.iter().map(|s| s.as_str()).collect();
                        (
                            step,
                            format!(
                                "'{node}' is not running at step {step}; running: {}",
                                if now.is_empty() {
                                    "nothing".to_owned()
                                } else {
                                    now.join(", ")
                                }
                            ),
                        )
                    })
                }
                (rule, Seen::State) => match state_step(rule) {
                    Some(at) if at.unwrap_or(last) == step => {
                        state_verdict(rule, sim).map(|m| (step, m))
                    }
                    _ => None,
                },
                _ => None,
            };
            if let Some((at, message)) = verdict {
                self.break_at(i, at, message, None);
                if let Seen::Within { pending, .. } = &mut self.seen[i] {
                    *pending = None;
                }
            }
        }
    }
}

/// "once", "3 times".
fn times(n: u64) -> String {
    match n {
        1 => "once".into(),
        n => format!("{n} times"),
    }
}

/// The step a world expectation is checked at (`Some(None)`: the end), if it is one.
fn state_step(rule: &Rule) -> Option<Option<u64>> {
    match rule {
        Rule::Near { step, .. }
        | Rule::Health { step, .. }
        | Rule::Gone { step, .. }
        | Rule::Context { step, .. } => Some(*step),
        _ => None,
    }
}

/// Why a world expectation does not hold in `sim` now; `None` when it holds.
fn state_verdict(rule: &Rule, sim: &Simulation) -> Option<String> {
    let world = sim.world();
    let body_of = |agent: &str| {
        sim.agents()
            .find(|a| a.name == agent)
            .and_then(|a| world.entity(a.entity))
    };
    match rule {
        Rule::Near {
            agent,
            spot,
            distance,
            ..
        } => {
            let Some(me) = body_of(agent) else {
                return Some(format!("'{agent}' is not in the world"));
            };
            if !me.alive {
                return Some(format!("'{agent}' is destroyed"));
            }
            let (to, what) = match spot {
                Spot::Point(p) => (*p, format!("({}, {})", p[0], p[1])),
                Spot::Entity(id, name) => match world.alive(*id) {
                    Some(e) => (world.position_of(*id).unwrap_or(e.pos), format!("'{name}'")),
                    None => return Some(format!("'{name}' is gone")),
                },
            };
            let d = crate::world::distance(me.pos, to);
            (d > *distance + 1e-9).then(|| {
                format!(
                    "'{agent}', at ({:.2}, {:.2}), is {:.2} tiles from {what}; expected within {}",
                    Num(me.pos[0]),
                    Num(me.pos[1]),
                    Num(d),
                    Num(*distance)
                )
            })
        }
        Rule::Health {
            agent,
            above,
            below,
            ..
        } => {
            let Some(me) = body_of(agent) else {
                return Some(format!("'{agent}' is not in the world"));
            };
            let health = match &me.kind {
                crate::world::EntityKind::Agent(b) if me.alive => b.health,
                _ => 0.0,
            };
            let low = above
                .filter(|a| health <= *a)
                .map(|a| format!("above {}", Num(a)));
            let high = below
                .filter(|b| health >= *b)
                .map(|b| format!("below {}", Num(b)));
            low.or(high).map(|want| {
                format!(
                    "'{agent}' has health {}{}; expected {want}",
                    Num(health),
                    if me.alive { "" } else { " (destroyed)" }
                )
            })
        }
        Rule::Gone { entity, name, .. } => world.alive(*entity).map(|e| {
            format!(
                "'{name}' is still there, at ({:.2}, {:.2})",
                e.pos[0], e.pos[1]
            )
        }),
        Rule::Context {
            agent,
            key,
            name,
            value,
            ..
        } => {
            let Some(instance) = sim.instance(agent) else {
                return Some(format!("'{agent}' runs no tree"));
            };
            let held = instance.context().get(*key);
            let same = match (held, value) {
                (Some(CtxValue::Number(a)), CtxValue::Number(b)) => (a - b).abs() <= 1e-9,
                (Some(CtxValue::Position(a)), CtxValue::Position(b)) => {
                    (a[0] - b[0]).abs() <= 1e-9 && (a[1] - b[1]).abs() <= 1e-9
                }
                (Some(a), b) => a == b,
                (None, _) => false,
            };
            let show = |v: &CtxValue| match v {
                CtxValue::Entity(id) => world
                    .entity(*id)
                    .map_or_else(|| v.to_string(), |e| format!("'{}'", e.name)),
                v => v.to_string(),
            };
            (!same).then(|| {
                format!(
                    "'{agent}' has {name} = {}; expected {}",
                    held.map_or_else(|| "nothing".to_owned(), show),
                    show(value)
                )
            })
        }
        _ => None,
    }
}

impl Observer for Watch<'_> {
    fn agent(&mut self, name: &str) {
        if self.agent != name {
            name.clone_into(&mut self.agent);
        }
    }

    fn event(&mut self, event: &Event<'_>) {
        for i in 0..self.checks.len() {
            let check = &self.checks[i];
            if check.agent.as_ref().is_some_and(|a| *a != self.agent) {
                continue;
            }
            match (&check.rule, &mut self.seen[i]) {
                (Rule::Count(m, count), Seen::Count(n, tallies)) => {
                    if !m.concerns(event) || !m.hits(event, tallies.of(&self.agent)) {
                        continue;
                    }
                    *n += 1;
                    if let Some(most) = count.at_most
                        && *n > most
                    {
                        let by = if check.agent.is_none() {
                            format!(" (by '{}')", self.agent)
                        } else {
                            String::new()
                        };
                        let message = format!(
                            "{} for the {} time at step {}{by}; expected at most {most}",
                            m.said(),
                            ordinal(*n),
                            event.step
                        );
                        let agent = Some(self.agent.clone());
                        self.break_at(i, event.step, message, agent);
                    }
                }
                (
                    Rule::Within { target, after, .. },
                    Seen::Within {
                        pending,
                        happened,
                        tallies: [of_target, of_after],
                    },
                ) => {
                    if target.concerns(event) && target.hits(event, of_target.of(&self.agent)) {
                        *pending = None;
                    }
                    if after.concerns(event)
                        && after.hits(event, of_after.of(&self.agent))
                        && self.broken[i].is_none()
                    {
                        *happened = true;
                        pending.get_or_insert(event.step);
                    }
                }
                _ => {}
            }
        }
    }
}

/// "1st", "2nd", "3rd", "4th" …
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

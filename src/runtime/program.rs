//! Compiling a tree (and its subtrees) into a flat, immutable program.
//!
//! Nodes are numbered in tree order (SPEC §3.2): Root, then the main tree in pre-order
//! (a branch's guards right after it, then its children in slot order), then each Interrupt
//! subtree. So index order is tree order, and the nodes below `n` are exactly `n+1..end`.

use std::sync::Arc;

use super::Status;
use super::behaviour::CondIo;
use super::behaviour::{Behaviours, Condition, KeyId, KeyTable, MAX_KEYS, NodeSpec};
use super::slab::{ActionType, CondRef, SlabPlan};
use crate::model::{Assets, Catalog, Category, Diagnostic, Node, Port, Tree, Value, validate};

/// Deepest nesting a program may have (subtrees included); validation refuses deeper.
pub use crate::model::MAX_DEPTH;

/// No node.
pub(crate) const NONE: u32 = u32::MAX;

/// Why a tree could not be compiled.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// Validation found errors; the tree does not run.
    #[error("the tree has {} error(s); the first: {}", .0.len(), .0.first().map(|d| d.to_string()).unwrap_or_default())]
    Invalid(Vec<Diagnostic>),
    /// A node cannot be built by this runtime.
    #[error("[{node}] {message}")]
    Node {
        /// The node's trace id.
        node: String,
        /// What is wrong.
        message: String,
    },
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Root,
    Sequence {
        halt: bool,
        random: bool,
    },
    Selector {
        random: bool,
    },
    Parallel {
        all_succeed: bool,
        all_fail: bool,
    },
    Inverter,
    Repeater {
        times: u64,
        ignore_failures: bool,
    },
    UntilFail,
    ForceSuccess,
    ForceFailure,
    Regulator {
        period: f64,
    },
    SubTree,
    Leaf {
        max_duration: Option<f64>,
        input: Option<KeyId>,
        output: Option<KeyId>,
        overwrite: bool,
    },
    Condition {
        invert: bool,
        input: Option<KeyId>,
    },
    Interrupt {
        force_reset: bool,
        output: Option<KeyId>,
        overwrite: bool,
    },
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Rec {
    pub kind: Kind,
    pub parent: u32,
    /// One past the last node below this one.
    pub end: u32,
    /// Children: `links[kids.0..kids.1]`.
    pub kids: (u32, u32),
    /// Guards: `links[guards.0..guards.1]`.
    pub guards: (u32, u32),
    /// Where its run record starts among the 32-bit record words of an instance's block;
    /// `NONE` for a condition, which keeps none (it finishes where it is checked and never
    /// waits for a report). Word `ri` is its epoch, bumped at each entry so that stale
    /// reports are told apart; a leaf keeps its [`ENTERED`](super::instance) mark in the
    /// epoch's lowest bit and has no other word; a branch has a second, its cursor (slot of
    /// the running child; Parallel: children finished; Repeater: runs; Regulator: flags).
    pub ri: u32,
    /// Leaf slot, condition slot, random-order offset, or by kind the node's word in an
    /// instance's block: Root (the step its run began), Parallel (children that succeeded),
    /// Repeater and UntilFail (the step the child's run began), Regulator (the step its
    /// permission was last decided; also its timer's number).
    pub slot: u32,
}

/// The condition of a guard that is not one (validation refuses such trees): never holds.
struct Never;

impl<A> Condition<A> for Never {
    fn check(&self, _: &mut A, _: &CondIo<'_>) -> bool {
        false
    }
}

/// One guard on the way down to a leaf, with what checking it needs.
pub(crate) struct PathGuard<A> {
    /// The branch it guards.
    pub branch: u32,
    /// The condition node.
    pub node: u32,
    /// Its behaviour, one of `Program::conditions`, referred to here so that checking it
    /// reads no index into them (a guard that is not a condition, which validation
    /// refuses, gets one that never holds).
    pub cond: CondRef<A>,
    /// Its `in_context` key.
    pub input: Option<KeyId>,
    /// Its `invert` field.
    pub invert: bool,
}

impl<A> PathGuard<A> {
    /// The first of `guards` that does not hold, checked in order with `io` (for guards
    /// without an `in_context` key); `None` when all hold.
    ///
    /// (A walk down the slice: at workload W, 7 instructions fewer per step than a `for`
    /// loop or an iterator search.)
    #[inline]
    pub(crate) fn first_failing<'g>(
        guards: &'g [Self],
        agent: &mut A,
        io: &CondIo<'_>,
    ) -> Option<&'g Self> {
        let mut left = guards;
        while let [g, rest @ ..] = left {
            if g.cond.get().check(agent, io) == g.invert {
                return Some(g);
            }
            left = rest;
        }
        None
    }
}

impl<A> Clone for PathGuard<A> {
    fn clone(&self) -> Self {
        Self {
            branch: self.branch,
            node: self.node,
            cond: self.cond.clone(),
            input: self.input,
            invert: self.invert,
        }
    }
}

/// What the hot path needs of each action leaf, precomputed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LeafInfo {
    /// Every guard of every branch above it, outermost branch first, each branch's in slot
    /// order: `path[guards.0..guards.1]`.
    pub guards: (u32, u32),
    /// Regulator ancestors: `chain[regulators.0..regulators.1]`.
    pub regulators: (u32, u32),
    /// Where its input lives in an instance: 0, shared and always empty, for leaves
    /// without `in_context`.
    pub input_at: u32,
    /// Where what it produces is kept until it exits: 0 (none) for leaves without
    /// `out_context`.
    pub output_at: u32,
    /// Its `max_duration` in seconds; infinite when unset.
    pub max_duration: f64,
    /// Where its time executed is kept (leaves with `max_duration`); `NONE` for others.
    pub timer_at: u32,
    /// No Regulator above it, no `in_context`/`out_context`, no `max_duration`, no guard
    /// above it reading the context: a step that runs it alone needs none of that.
    pub plain: bool,
}

/// What a quiet step of a *plain* leaf running alone needs (see [`LeafInfo::plain`]), by
/// node index: one record, so that step reads nothing else of the program.
pub(crate) struct Lone<A> {
    /// Its guards, as `path[LeafInfo::guards]` has them, kept here too: the step then
    /// reads them without working out or checking a range.
    pub guards: Box<[PathGuard<A>]>,
    /// The leaf's action slot; [`NONE`] for a node that is not a plain leaf.
    pub slot: u32,
    /// Its parent (whose record a completion touches, fetched early).
    pub parent: u32,
    /// Where, in an instance's block (bytes from its start), its action's state lies, its
    /// parent's record, and the statuses: what its step touches, and its completion.
    pub action_at: u32,
    /// See `action_at`.
    pub parent_at: u32,
    /// See `action_at`.
    pub status_at: u32,
    /// Its direct hand-over to the next sibling, if it has one that takes it.
    pub next: Option<HandOver>,
}

/// What a plain leaf's completion does when its parent, a `Quick` Sequence or Selector,
/// moves on to a next child that is a `Quick` leaf (see `Instance::lone_next_sibling`):
/// all of it fixed by the tree, since such a parent's cursor is the running child's slot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HandOver {
    /// Whether the parent moves on after a success, and after a failure.
    pub on_success: bool,
    pub on_failure: bool,
    /// The parent's cursor word, and its value once it has moved on.
    pub cursor_at: u32,
    pub cursor: u32,
    /// The next leaf, its action slot and its epoch word.
    pub node: u32,
    pub slot: u32,
    pub ri: u32,
}

/// One branch on a plain leaf's way up to Root that finishes when the leaf does (see
/// `Program::climbs`): it gets `status`, and, when its children are exhausted, its cursor
/// word `cursor_at` moves past the last (to `cursor`; [`NONE`] when it stays).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClimbStep {
    pub node: u32,
    pub status: Status,
    pub cursor_at: u32,
    pub cursor: u32,
}

/// How a quiet transition treats a node (see `Exec::q_run` in the instance): the kinds a
/// game's trees are mostly made of, in the simplest form, which it enters and lets react
/// on a short path; any other node goes the general way.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Quick {
    /// Entered, and reacting to a child, the general way.
    Other,
    Root,
    /// A Sequence in slot order whose guards, `entry[guards.0..guards.1]`, read no context.
    Sequence {
        halt: bool,
        guards: (u32, u32),
    },
    /// A Selector in slot order whose guards read no context (see `Sequence`).
    Selector {
        guards: (u32, u32),
    },
    /// An action leaf with no `in_context`, `out_context` or `max_duration`: its slot.
    Leaf {
        slot: u32,
    },
    /// A condition child with no `in_context`: its slot among the conditions, its `invert`.
    Check {
        slot: u32,
        invert: bool,
    },
}

/// What a quiet transition reads of a node, in one small record: how it treats it, and the
/// node's parent, run record and children as [`Rec`] has them.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
pub(crate) struct QuickRec {
    pub how: Quick,
    pub parent: u32,
    /// See [`Rec::ri`].
    pub ri: u32,
    /// See [`Rec::kids`].
    pub kids: (u32, u32),
}

/// A compiled tree, shared by every agent that runs it.
pub struct Program<A> {
    pub(crate) recs: Vec<Rec>,
    pub(crate) names: Vec<String>,
    pub(crate) links: Vec<u32>,
    /// Each leaf's action, by leaf slot, and where it lives in an instance.
    pub(crate) actions: Arc<SlabPlan<A>>,
    pub(crate) conditions: Vec<CondRef<A>>,
    pub(crate) keys: Vec<String>,
    pub(crate) interrupts: Vec<(String, u32)>,
    pub(crate) perm_len: usize,
    pub(crate) depth: usize,
    pub(crate) leaves: Vec<LeafInfo>,
    /// Per node: what the quiet step of a plain leaf running alone needs.
    pub(crate) lone: Vec<Lone<A>>,
    /// Per node, for a plain leaf finishing with success (`[0]`) or failure (`[1]`) with
    /// nothing queued and no Interrupt running, when every branch between it and Root
    /// finishes on its report, so that Root completes its run: those branches, deepest
    /// first. Fixed by the tree, as `HandOver` is; `None` in any other case.
    pub(crate) climbs: Vec<[Option<Box<[ClimbStep]>>; 2]>,
    /// Guards on the way to each leaf (see [`LeafInfo::guards`]).
    pub(crate) path: Vec<PathGuard<A>>,
    /// Regulators above each leaf (see [`LeafInfo::regulators`]).
    pub(crate) chain: Vec<u32>,
    /// Per node: what a quiet transition reads of it.
    pub(crate) quick: Vec<QuickRec>,
    /// The guards of the Sequences and Selectors that [`Quick`] names, each's in slot order.
    pub(crate) entry: Vec<PathGuard<A>>,
    /// Input and output slots an instance needs (see [`LeafInfo`]).
    pub(crate) io_len: (usize, usize),
    /// Room an instance reserves for reports beyond the two it keeps in place: the most
    /// one step can queue (see [`Program::bounds`]), less two.
    pub(crate) report_cap: usize,
    /// The most action leaves that can be active at once (see [`Program::bounds`]).
    pub(crate) max_active: usize,
}

impl<A: 'static> Program<A> {
    /// Compiles a tree: validates it (refusing errors), resolves SubTrees through `assets`,
    /// and builds each leaf's behaviour from `behaviours`.
    pub fn compile(
        tree: &Tree,
        catalog: &Catalog,
        assets: &dyn Assets,
        behaviours: &Behaviours<A>,
    ) -> Result<Self, CompileError> {
        let errors: Vec<Diagnostic> = validate(tree, catalog, assets)
            .into_iter()
            .filter(|d| d.is_error())
            .collect();
        if !errors.is_empty() {
            return Err(CompileError::Invalid(errors));
        }
        let Some(root) = tree
            .nodes()
            .iter()
            .find(|n| catalog.category_of(&n.kind) == Some(Category::Root))
        else {
            return Err(CompileError::Invalid(vec![]));
        };
        let mut b = Builder {
            catalog,
            behaviours,
            keys: KeyTable::default(),
            types: Vec::new(),
            p: Program {
                recs: Vec::new(),
                names: Vec::new(),
                links: Vec::new(),
                actions: Arc::new(SlabPlan::empty()),
                conditions: Vec::new(),
                keys: Vec::new(),
                interrupts: Vec::new(),
                perm_len: 0,
                depth: 0,
                leaves: Vec::new(),
                lone: Vec::new(),
                climbs: Vec::new(),
                path: Vec::new(),
                chain: Vec::new(),
                quick: Vec::new(),
                entry: Vec::new(),
                io_len: (1, 1),
                report_cap: 0,
                max_active: 0,
            },
        };
        b.add(root, tree, assets, "", NONE, 0)?;
        b.p.keys = std::mem::take(&mut b.keys.names);
        let (timers, words) = b.p.index_leaves(b.types.len());
        if b.p.max_active > usize::from(u16::MAX) {
            // An instance counts its active leaves in 16 bits (see `Active`).
            return Err(CompileError::Node {
                node: b.p.names.first().cloned().unwrap_or_default(),
                message: format!(
                    "{} action leaves can run at once (under Parallels); an instance runs at most {}",
                    b.p.max_active,
                    u16::MAX
                ),
            });
        }
        let nodes = b.p.recs.len();
        let mut records = 0;
        for rec in &mut b.p.recs {
            let len = match rec.kind {
                Kind::Condition { .. } => continue,
                Kind::Leaf { .. } => 1,
                _ => 2,
            };
            rec.ri = records;
            records += len;
        }
        b.p.index_quick();
        b.p.index_hand_overs();
        b.p.index_climbs();
        let types = std::mem::take(&mut b.types);
        let plan = SlabPlan::new(nodes, records as usize, timers, words, types).map_err(|e| {
            CompileError::Node {
                node: String::new(),
                message: format!("the instance state does not fit in memory: {e}"),
            }
        })?;
        for lone in b.p.lone.iter_mut().filter(|l| l.slot != NONE) {
            // A block's offsets fit in u32: the plan refuses blocks past isize, and a
            // program has fewer than u32::MAX nodes; an offset that did not fit would only
            // make a prefetch hint miss (it never faults).
            lone.action_at = plan.action_offset(lone.slot as usize) as u32;
            lone.parent_at = plan.record_offset(b.p.recs[lone.parent as usize].ri as usize) as u32;
            lone.status_at = plan.status_offset() as u32;
        }
        b.p.actions = Arc::new(plan);
        Ok(b.p)
    }
}

impl<A> Program<A> {
    /// Number of nodes (subtree nodes included; unreachable nodes left out).
    pub fn len(&self) -> usize {
        self.recs.len()
    }

    /// Whether the program has no nodes (never, for a compiled tree).
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }

    /// Each node's trace id, by index: the id from the file, `SUBTREE-ID/INNER-ID` in subtrees.
    pub fn node_ids(&self) -> &[String] {
        &self.names
    }

    /// The index of the node with this trace id.
    pub fn index_of(&self, node_id: &str) -> Option<u32> {
        self.names
            .iter()
            .position(|n| n == node_id)
            .map(|i| i as u32)
    }

    /// The context keys the program uses, by [`KeyId`].
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// The id of a context key, if the program uses it.
    pub fn key(&self, name: &str) -> Option<KeyId> {
        self.keys
            .iter()
            .position(|k| k == name)
            .and_then(|i| KeyId::try_from(i).ok())
    }

    /// The interrupt ids the tree answers to.
    pub fn interrupt_ids(&self) -> impl Iterator<Item = &str> {
        self.interrupts.iter().map(|(id, _)| id.as_str())
    }

    /// Number of action leaves.
    pub fn leaf_count(&self) -> usize {
        self.actions.len()
    }

    /// Deepest nesting.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Whether node `i` is an action leaf.
    pub fn is_leaf(&self, i: u32) -> bool {
        matches!(
            self.recs.get(i as usize).map(|r| r.kind),
            Some(Kind::Leaf { .. })
        )
    }

    /// Precomputes, for each of the `count` leaves, the guards above it and its Regulator
    /// ancestors; numbers the timers (Regulators, leaves with `max_duration`) and the words
    /// (Regulators first, so that a Regulator's word and timer share a number; then Root,
    /// Parallels, Repeaters and UntilFails) and returns how many of each there are.
    fn index_leaves(&mut self, count: usize) -> (usize, usize) {
        let mut timers = 0u32;
        for rec in &mut self.recs {
            if let Kind::Regulator { .. } = rec.kind {
                rec.slot = timers;
                timers += 1;
            }
        }
        let mut words = timers;
        for rec in &mut self.recs {
            if let Kind::Root | Kind::Parallel { .. } | Kind::Repeater { .. } | Kind::UntilFail =
                rec.kind
            {
                rec.slot = words;
                words += 1;
            }
        }
        let mut leaves = vec![
            LeafInfo {
                guards: (0, 0),
                regulators: (0, 0),
                input_at: 0,
                output_at: 0,
                max_duration: f64::INFINITY,
                timer_at: NONE,
                plain: false,
            };
            count
        ];
        let (mut inputs, mut outputs) = (1u32, 1u32);
        let (mut path, mut chain) = (Vec::new(), Vec::new());
        let mut up = Vec::new();
        for rec in &self.recs {
            let Kind::Leaf {
                input,
                output,
                max_duration,
                ..
            } = rec.kind
            else {
                continue;
            };
            let input_at = input.map_or(0, |_| {
                inputs += 1;
                inputs - 1
            });
            let output_at = output.map_or(0, |_| {
                outputs += 1;
                outputs - 1
            });
            up.clear();
            let mut at = rec.parent;
            while at != NONE {
                up.push(at);
                at = self.recs[at as usize].parent;
            }
            let p0 = path.len() as u32;
            for &b in up.iter().rev() {
                self.push_guards(b, &mut path);
            }
            let r0 = chain.len() as u32;
            chain.extend(
                up.iter()
                    .rev()
                    .filter(|&&b| matches!(self.recs[b as usize].kind, Kind::Regulator { .. })),
            );
            let plain = input.is_none()
                && output.is_none()
                && max_duration.is_none()
                && chain.len() as u32 == r0
                && path[p0 as usize..].iter().all(|g| g.input.is_none());
            leaves[rec.slot as usize] = LeafInfo {
                plain,
                guards: (p0, path.len() as u32),
                regulators: (r0, chain.len() as u32),
                input_at,
                output_at,
                max_duration: max_duration.unwrap_or(f64::INFINITY),
                timer_at: max_duration.map_or(NONE, |_| {
                    timers += 1;
                    timers - 1
                }),
            };
        }
        self.lone = self
            .recs
            .iter()
            .map(|rec| match rec.kind {
                Kind::Leaf { .. } if leaves[rec.slot as usize].plain => Lone {
                    slot: rec.slot,
                    parent: rec.parent,
                    guards: {
                        let (from, to) = leaves[rec.slot as usize].guards;
                        path[from as usize..to as usize].to_vec().into_boxed_slice()
                    },
                    // Set once the quick records are made (`index_hand_overs`).
                    next: None,
                    // Set once the block is laid out (`Program::compile`).
                    action_at: 0,
                    parent_at: 0,
                    status_at: 0,
                },
                _ => Lone {
                    slot: NONE,
                    parent: NONE,
                    guards: Box::new([]),
                    next: None,
                    action_at: 0,
                    parent_at: 0,
                    status_at: 0,
                },
            })
            .collect();
        self.io_len = (inputs as usize, outputs as usize);
        let (active, reports) = self.bounds();
        self.max_active = active;
        // Two are kept in the instance itself (see `Reports`).
        self.report_cap = reports.saturating_sub(2);
        self.leaves = leaves;
        self.path = path;
        self.chain = chain;
        (timers as usize, words as usize)
    }

    /// Appends branch `b`'s guards, in slot order, to `to`.
    fn push_guards(&self, b: u32, to: &mut Vec<PathGuard<A>>) {
        let (g0, g1) = self.recs[b as usize].guards;
        for &g in &self.links[g0 as usize..g1 as usize] {
            let rec = &self.recs[g as usize];
            let never = || CondRef::new(&(Arc::new(Never) as Arc<dyn Condition<A>>));
            let (cond, input, invert) = match rec.kind {
                Kind::Condition { input, invert } => match self.conditions.get(rec.slot as usize) {
                    Some(c) => (c.clone(), input, invert),
                    None => (never(), None, false),
                },
                _ => (never(), None, false),
            };
            to.push(PathGuard {
                branch: b,
                node: g,
                cond,
                input,
                invert,
            });
        }
    }

    /// Classifies each node for quiet transitions ([`Quick`]) and lists the guards of the
    /// Sequences and Selectors among them (once the run records are laid out).
    fn index_quick(&mut self) {
        let mut entry = Vec::new();
        let mut quick = Vec::with_capacity(self.recs.len());
        for (i, rec) in self.recs.iter().enumerate() {
            let q = match rec.kind {
                Kind::Root => Quick::Root,
                Kind::Leaf {
                    max_duration: None,
                    input: None,
                    output: None,
                    ..
                } => Quick::Leaf { slot: rec.slot },
                Kind::Condition {
                    input: None,
                    invert,
                } if (rec.slot as usize) < self.conditions.len() => Quick::Check {
                    slot: rec.slot,
                    invert,
                },
                Kind::Sequence { random: false, .. } | Kind::Selector { random: false } => {
                    let g0 = entry.len();
                    self.push_guards(i as u32, &mut entry);
                    let guards = (g0 as u32, entry.len() as u32);
                    if entry[g0..].iter().any(|g| g.input.is_some()) {
                        entry.truncate(g0);
                        Quick::Other
                    } else if let Kind::Sequence { halt, .. } = rec.kind {
                        Quick::Sequence { halt, guards }
                    } else {
                        Quick::Selector { guards }
                    }
                }
                _ => Quick::Other,
            };
            quick.push(QuickRec {
                how: q,
                parent: rec.parent,
                ri: rec.ri,
                kids: rec.kids,
            });
        }
        self.quick = quick;
        self.entry = entry;
    }

    /// Each plain leaf's [`HandOver`] (`Lone::next`), once the quick records are made.
    fn index_hand_overs(&mut self) {
        for (n, lone) in self.lone.iter_mut().enumerate() {
            lone.next = None;
            if lone.slot == NONE
                || !matches!(self.quick.get(n).map(|q| q.how), Some(Quick::Leaf { .. }))
            {
                continue;
            }
            let Some(up) = self.quick.get(lone.parent as usize) else {
                continue;
            };
            let (on_success, on_failure) = match up.how {
                Quick::Sequence { halt, .. } => (true, !halt),
                Quick::Selector { .. } => (false, true),
                _ => continue,
            };
            let kids = self
                .links
                .get(up.kids.0 as usize..up.kids.1 as usize)
                .unwrap_or(&[]);
            let Some(at) = kids.iter().position(|&k| k as usize == n) else {
                continue;
            };
            let Some(&next) = kids.get(at + 1) else {
                continue;
            };
            let Some(&QuickRec {
                how: Quick::Leaf { slot },
                ri,
                ..
            }) = self.quick.get(next as usize)
            else {
                continue;
            };
            lone.next = Some(HandOver {
                on_success,
                on_failure,
                cursor_at: up.ri + 1,
                cursor: at as u32 + 1,
                node: next,
                slot,
                ri,
            });
        }
    }

    /// Each plain leaf's climbs to Root (`Program::climbs`), once the quick records are
    /// made: what `Exec::q_run` does with the leaf's report, level by level, when each
    /// parent is a `Quick` Sequence or Selector that finishes on it (a slot-order parent's
    /// cursor is its running child's slot, so whether it finishes is fixed by the tree),
    /// up to Root.
    fn index_climbs(&mut self) {
        let climb = |n: usize, mut s: Status| -> Option<Box<[ClimbStep]>> {
            let mut steps = Vec::new();
            let mut c = n;
            loop {
                let up = self.quick.get(self.quick.get(c)?.parent as usize)?;
                let parent = self.quick[c].parent;
                let (halts_now, on) = match up.how {
                    Quick::Root => return Some(steps.into_boxed_slice()),
                    Quick::Sequence { halt, .. } => (s == Status::Failure && halt, Status::Success),
                    Quick::Selector { .. } => (s == Status::Success, Status::Failure),
                    _ => return None,
                };
                if halts_now {
                    steps.push(ClimbStep {
                        node: parent,
                        status: s,
                        cursor_at: NONE,
                        cursor: 0,
                    });
                } else {
                    // It moves past the child: finishing only if that was its last.
                    let kids = self.links.get(up.kids.0 as usize..up.kids.1 as usize)?;
                    let at = kids.iter().position(|&k| k as usize == c)?;
                    if at + 1 < kids.len() {
                        return None;
                    }
                    s = on;
                    steps.push(ClimbStep {
                        node: parent,
                        status: s,
                        cursor_at: up.ri + 1,
                        cursor: kids.len() as u32,
                    });
                }
                c = parent as usize;
            }
        };
        let climbs = (0..self.lone.len())
            .map(|n| {
                let plain = self.lone[n].slot != NONE
                    && matches!(self.quick.get(n).map(|q| q.how), Some(Quick::Leaf { .. }));
                if plain {
                    [climb(n, Status::Success), climb(n, Status::Failure)]
                } else {
                    [None, None]
                }
            })
            .collect();
        self.climbs = climbs;
    }

    /// The most action leaves active at once, and the most reports one step can queue.
    ///
    /// A report is queued only by a leaf finishing (phase 3) or by a guard failing its
    /// branch (phase 2, or in phase 4 when an ending Interrupt resumes the leaves it
    /// aborted), at most once per running node per step; so both are bounded by what can
    /// run at once: one child's worth below most branches, every child's below a Parallel.
    /// An Interrupt's subtree runs beside the main tree's branches, and its last reports
    /// can wait while the resumed leaves' guards fail: it is counted on top.
    fn bounds(&self) -> (usize, usize) {
        let n = self.recs.len();
        let (mut leaves, mut reports) = (vec![0usize; n], vec![0usize; n]);
        for i in (0..n).rev() {
            let r = &self.recs[i];
            let kids = &self.links[r.kids.0 as usize..r.kids.1 as usize];
            let (l, q) = match r.kind {
                Kind::Leaf { .. } => (1, 1),
                Kind::Condition { .. } => (0, 0),
                Kind::Parallel { .. } => kids.iter().fold((0, 0), |(l, q), &k| {
                    (l + leaves[k as usize], q + reports[k as usize])
                }),
                _ => kids.iter().fold((0, 0), |(l, q), &k| {
                    (l.max(leaves[k as usize]), q.max(reports[k as usize]))
                }),
            };
            leaves[i] = l;
            reports[i] = q + usize::from(r.guards.0 != r.guards.1);
        }
        let (mut l, mut q) = (
            leaves.first().copied().unwrap_or(0),
            reports.first().copied().unwrap_or(0),
        );
        for &(_, at) in &self.interrupts {
            l += leaves[at as usize];
            q += reports[at as usize];
        }
        (l, q)
    }

    pub(crate) fn kids(&self, n: u32) -> &[u32] {
        let r = &self.recs[n as usize];
        &self.links[r.kids.0 as usize..r.kids.1 as usize]
    }

    pub(crate) fn guards(&self, n: u32) -> &[u32] {
        let r = &self.recs[n as usize];
        &self.links[r.guards.0 as usize..r.guards.1 as usize]
    }
}

struct Builder<'a, A> {
    catalog: &'a Catalog,
    behaviours: &'a Behaviours<A>,
    /// The context keys met so far.
    keys: KeyTable,
    types: Vec<ActionType<A>>,
    p: Program<A>,
}

impl<A: 'static> Builder<'_, A> {
    fn err(&self, name: &str, message: impl Into<String>) -> CompileError {
        CompileError::Node {
            node: name.to_owned(),
            message: message.into(),
        }
    }

    /// The behaviour a factory made, or why there is none.
    fn built<T>(
        &self,
        name: &str,
        made: Option<Result<T, String>>,
        what: &str,
        kind: &str,
    ) -> Result<T, CompileError> {
        match made {
            Some(Ok(t)) => Ok(t),
            Some(Err(e)) => Err(self.err(name, e)),
            None => Err(self.err(
                name,
                format!("this runtime has no behaviour for the {what} '{kind}'"),
            )),
        }
    }

    fn key(&mut self, node: &Node, field: &str) -> Option<KeyId> {
        let k = self.catalog.text(node, field);
        (!k.is_empty()).then(|| self.keys.intern(k))
    }

    fn linked<'t>(tree: &'t Tree, node: &Node, port: Port) -> impl Iterator<Item = &'t Node> {
        node.linked(port)
            .to_vec()
            .into_iter()
            .filter_map(move |id| tree.node(&id))
    }

    #[allow(clippy::too_many_lines)]
    fn add(
        &mut self,
        node: &Node,
        tree: &Tree,
        assets: &dyn Assets,
        prefix: &str,
        parent: u32,
        depth: usize,
    ) -> Result<u32, CompileError> {
        let name = format!("{prefix}{}", node.id);
        if depth > MAX_DEPTH {
            return Err(self.err(
                &name,
                format!("the tree is nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        self.p.depth = self.p.depth.max(depth);
        let index = self.p.recs.len() as u32;
        let c = self.catalog;
        let Some(category) = c.category_of(&node.kind) else {
            return Err(self.err(&name, format!("unknown node kind '{}'", node.kind)));
        };
        let kind = match node.kind.as_str() {
            "Root" => Kind::Root,
            "Sequence" | "RandomSequence" => Kind::Sequence {
                halt: c.flag(node, "halt_on_failure"),
                random: node.kind == "RandomSequence",
            },
            "Selector" | "RandomSelector" => Kind::Selector {
                random: node.kind == "RandomSelector",
            },
            "Parallel" => Kind::Parallel {
                all_succeed: c.text(node, "success") != "one",
                all_fail: c.text(node, "failure") == "all",
            },
            "Inverter" => Kind::Inverter,
            "Repeater" => Kind::Repeater {
                times: c
                    .field_value(node, "times")
                    .and_then(Value::as_i64)
                    .unwrap_or(0)
                    .max(0) as u64,
                ignore_failures: c.flag(node, "ignore_failures"),
            },
            "UntilFail" => Kind::UntilFail,
            "ForceSuccess" => Kind::ForceSuccess,
            "ForceFailure" => Kind::ForceFailure,
            "Regulator" => Kind::Regulator {
                period: 1.0 / c.number(node, "hz").unwrap_or(10.0),
            },
            "SubTree" => Kind::SubTree,
            "Interrupt" => Kind::Interrupt {
                force_reset: c.flag(node, "force_reset"),
                output: self.key(node, "out_context"),
                overwrite: c.flag(node, "overwrite_out"),
            },
            _ => match category {
                Category::Leaf => Kind::Leaf {
                    max_duration: c.number(node, "max_duration"),
                    input: self.key(node, "in_context"),
                    output: self.key(node, "out_context"),
                    overwrite: c.flag(node, "overwrite_out"),
                },
                Category::Condition => Kind::Condition {
                    invert: c.flag(node, "invert"),
                    input: self.key(node, "in_context"),
                },
                _ => return Err(self.err(&name, format!("'{}' cannot be run", node.kind))),
            },
        };
        let mut slot = 0;
        match kind {
            Kind::Leaf { .. } => {
                let mut spec = NodeSpec {
                    node,
                    catalog: c,
                    keys: &mut self.keys,
                };
                let made = self.behaviours.make_action(&mut spec);
                let action = self.built(&name, made, "action", &node.kind)?;
                slot = self.types.len() as u32;
                self.types.push(action);
            }
            Kind::Condition { .. } => {
                let mut spec = NodeSpec {
                    node,
                    catalog: c,
                    keys: &mut self.keys,
                };
                let made = self.behaviours.make_condition(&mut spec);
                let cond = self.built(&name, made, "condition", &node.kind)?;
                slot = self.p.conditions.len() as u32;
                self.p.conditions.push(CondRef::new(&Arc::from(cond)));
            }
            _ => {}
        }
        if self.keys.full() {
            return Err(self.err(
                &name,
                format!(
                    "the tree uses more than {MAX_KEYS} distinct context keys (this node's is one past that); a program holds at most {MAX_KEYS}"
                ),
            ));
        }
        self.p.recs.push(Rec {
            kind,
            parent,
            end: index + 1,
            kids: (0, 0),
            guards: (0, 0),
            ri: NONE,
            slot,
        });
        self.p.names.push(name.clone());

        let mut guards = Vec::new();
        if category.is_branch() {
            for g in Self::linked(tree, node, Port::Conditions) {
                guards.push(self.add(g, tree, assets, prefix, index, depth + 1)?);
            }
        }
        let mut kids = Vec::new();
        match category {
            Category::Root | Category::Decorator | Category::Interrupt => {
                for k in Self::linked(tree, node, Port::Child) {
                    kids.push(self.add(k, tree, assets, prefix, index, depth + 1)?);
                }
            }
            Category::Composite => {
                for k in Self::linked(tree, node, Port::Children) {
                    kids.push(self.add(k, tree, assets, prefix, index, depth + 1)?);
                }
            }
            Category::SubTree => {
                let asset = c.text(node, "asset").to_owned();
                let Some((sub, sub_assets)) = assets.open(&asset) else {
                    return Err(self.err(&name, format!("cannot open the subtree asset '{asset}'")));
                };
                let sub_root = sub
                    .nodes()
                    .iter()
                    .find(|n| c.category_of(&n.kind) == Some(Category::Root));
                let Some(top) = sub_root
                    .and_then(|r| r.linked(Port::Child).first())
                    .and_then(|id| sub.node(id))
                else {
                    return Err(self.err(
                        &name,
                        format!("the subtree asset '{asset}' has no Root child"),
                    ));
                };
                let inner = format!("{name}/");
                kids.push(self.add(top, &sub, &*sub_assets, &inner, index, depth + 1)?);
            }
            Category::Leaf | Category::Condition => {}
        }
        if let Kind::Root = kind {
            for i in Self::linked(tree, node, Port::Interrupts) {
                let at = self.add(i, tree, assets, prefix, NONE, depth + 1)?;
                self.p
                    .interrupts
                    .push((c.text(i, "interrupt_id").to_owned(), at));
            }
        }
        let g0 = self.p.links.len() as u32;
        self.p.links.extend(&guards);
        let k0 = self.p.links.len() as u32;
        self.p.links.extend(&kids);
        let end = self.p.recs.len() as u32;
        let perm = self.p.perm_len as u32;
        let rec = &mut self.p.recs[index as usize];
        rec.guards = (g0, k0);
        rec.kids = (k0, k0 + kids.len() as u32);
        rec.end = end;
        if matches!(
            kind,
            Kind::Sequence { random: true, .. } | Kind::Selector { random: true }
        ) {
            rec.slot = perm;
            self.p.perm_len += kids.len();
        }
        Ok(index)
    }
}

//! Compiling a tree (and its subtrees) into a flat, immutable program.
//!
//! Nodes are numbered in tree order (SEMANTICS.md §3.2): Root, then the main tree in pre-order
//! (a branch's guards right after it, then its children in slot order), then each Interrupt
//! subtree. So index order is tree order, and the nodes below `n` are exactly `n+1..end`.

use std::sync::Arc;

use super::Status;
use super::behaviour::CondRef;
use super::behaviour::{CtxValue, KeyId, KeyLookup, KeyTable, MAX_KEYS, NodeSpec};
use super::bound::{Bound, BoundSetting};
use super::hooks::NodeHooks;
use super::kinds::{Build, Kind};
use super::node::{HoldsOn, Next, Test};
use super::registry::Behaviours;
use super::slab::{ActionType, LeafCalls, SlabPlan};
use crate::model::names::Named;
use crate::model::{
    Assets, Binding, Catalog, Category, Diagnostic, FieldType, KeyType, Node, Port, Runs, Tree,
    Value, binding, open_bindings, shares_keys, validate,
};

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
pub(crate) struct Rec {
    pub kind: Kind,
    pub parent: u32,
    /// One past the last node below this one.
    pub end: u32,
    /// Children: `links[kids.0..kids.1]`.
    pub kids: (u32, u32),
    /// Guards: `links[guards.0..guards.1]`.
    pub guards: (u32, u32),
    /// The same guards, ready to check: `Program::entry[entry.0..entry.1]`.
    pub entry: (u32, u32),
    /// Where its run record starts among the 32-bit record words of an instance's block;
    /// `NONE` for a condition, which keeps none (it finishes where it is checked and never
    /// waits for a report). Word `ri` is its epoch, the serial of its last entry, so that
    /// stale reports are told apart; a leaf has no other word; a branch has a second, its
    /// cursor, which its kind uses as it says (`node::Needs`).
    pub ri: u32,
    /// A leaf's or condition's slot among the actions or conditions; a random-order
    /// composite's offset among an instance's permutations.
    pub slot: u32,
    /// Its 64-bit word in an instance's block, if its kind keeps one; else `NONE`.
    pub word: u32,
    /// Its timer in an instance's block, if its kind keeps one; else `NONE`.
    pub timer: u32,
    /// What entering it does where its kind's rule fixes that (`Def::first`), and
    /// whether it is a branch at all.
    pub first: First,
    /// A composite's services: `Program::services[services.0..services.1]`.
    pub services: (u32, u32),
}

/// A service (SEMANTICS.md §3.2.1): an action leaf on a composite's `services` input, run
/// on the composite's entry and then every `interval` seconds while it runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Service {
    /// The leaf.
    pub node: u32,
    /// Seconds between its runs (0: every step).
    pub interval: f64,
}

/// A node's first move on entry, compiled from its kind's rule (`Def::first`): the
/// lifecycle makes it without asking the kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum First {
    /// Not a branch (a leaf or a condition): its kind's `enter` is all of its entry.
    NotBranch,
    /// The kind decides on the instance's state: its `enter` is called.
    Asks,
    /// It enters `child`, in slot `slot`, which its cursor becomes.
    Child { child: u32, slot: u32 },
    /// It finishes at once.
    Finish(Status),
}

/// One guard on the way down to a leaf, or on entering a branch, with what checking it
/// needs.
pub(crate) struct PathGuard<A> {
    /// The branch it guards.
    pub branch: u32,
    /// The condition node (for a deadline, the branch itself).
    pub node: u32,
    /// What a check calls first, and the answer with which the guard holds: for a plain
    /// condition, its behaviour (one of `Program::conditions`, referred to here so that
    /// checking it reads no index into them) and `!invert`; a guard that is not a
    /// condition (validation refuses it) has one that never holds and `True`. Any other
    /// guard has a condition that never holds and [`HoldsOn::Test`], so that its check
    /// goes on to `test`. (One call and one compare decide the common guard, with no test
    /// of its kind first.)
    pub cond: CondRef<A>,
    pub holds_on: HoldsOn,
    pub test: Test<A>,
}

impl<A> Clone for PathGuard<A> {
    fn clone(&self) -> Self {
        Self {
            branch: self.branch,
            node: self.node,
            cond: self.cond.clone(),
            holds_on: self.holds_on,
            test: self.test.clone(),
        }
    }
}

/// [`LeafInfo::has`]: it has an input or an output (`in_context`, `out_context`).
pub(crate) const HAS_IO: u8 = 1;
/// [`LeafInfo::has`]: it has a timer (`max_duration`).
pub(crate) const HAS_TIMER: u8 = 2;
/// [`LeafInfo::has`]: Regulators above it.
pub(crate) const HAS_REGULATORS: u8 = 4;
/// [`LeafInfo::has`]: observers watching from higher priorities on its path, or reactive
/// composites entering earlier children again.
pub(crate) const HAS_WATCH: u8 = 8;
/// [`LeafInfo::has`]: its action sets and clears keys itself (`LeafIo::write`).
pub(crate) const HAS_WRITES: u8 = 16;

/// A place on a running leaf's path where, in phase 2, something before it is looked at
/// again: node `at` (a branch on the path, or the leaf) and its parent `parent`, with
/// children before `at` as `how` says.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Watch {
    pub at: u32,
    pub parent: u32,
    pub how: Watching,
}

/// What a [`Watch`] looks at.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Watching {
    /// `parent` is a Selector whose children before `at` have observers among their guards
    /// (SEMANTICS.md §3.3.2): `Program::takers[.0...1]`.
    Takers(u32, u32),
    /// `parent` is a reactive composite, which enters its children before `at` again
    /// (SEMANTICS.md §3.3).
    Again,
}

impl<A> LeafInfo<A> {
    /// Whether it has any of `what` ([`HAS_IO`], [`HAS_TIMER`], [`HAS_REGULATORS`],
    /// [`HAS_WATCH`]): one test where a plain leaf has none.
    #[inline(always)]
    pub(crate) fn has(&self, what: u8) -> bool {
        self.has & what != 0
    }

    /// Where its report of `s` goes, as far as the tree alone decides it.
    #[inline(always)]
    pub(crate) fn route(&self, s: Status) -> &Route {
        debug_assert!(
            s != Status::Skipped,
            "a leaf's routes are a success's and a failure's"
        );
        &self.routes[usize::from(s != Status::Success)]
    }
}

/// What the hot path needs of each action leaf, precomputed.
pub(crate) struct LeafInfo<A> {
    /// Its action's calls, and where its memory lies in a block: what a step that executes
    /// it touches (fetched early while its guards are checked). Set once the block is laid
    /// out (`Program::compile`).
    pub calls: LeafCalls<A>,
    /// What it has besides its action and guards, as [`LeafInfo::has`] reads it.
    pub has: u8,
    /// Its epoch word (its `Rec::ri`).
    pub ri: u32,
    /// Every guard of every branch above it, outermost branch first, each branch's in slot
    /// order (a branch's deadline after its conditions).
    pub guards: Box<[PathGuard<A>]>,
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
    /// Where its report goes, on success and on failure (see [`LeafInfo::route`]).
    pub routes: [Route; 2],
    /// Where observers watch on its path, outermost first.
    pub watch: Box<[Watch]>,
}

/// Where a node's report goes, as far as the tree alone decides it (see
/// [`LeafInfo::route`], [`Program::guard_route`]): the branches above it that finish on
/// it, deepest first, each with its status (`Program::finished[finished.0..finished.1]`);
/// then, if the parent of the last one moves on to a next child, what that parent does.
#[derive(Clone, Debug, Default)]
pub(crate) struct Route {
    pub finished: (u32, u32),
    pub enter: Option<MoveOn>,
}

/// A parent moving on to its next child (see [`Route`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MoveOn {
    pub parent: u32,
    /// The parent's cursor word among an instance's record words, and the slot it moves to.
    pub cursor_at: u32,
    pub slot: u32,
    /// The child it enters.
    pub child: u32,
    /// Whether the report is handed over: it is a leaf's, nothing finishes before the
    /// parent moves on, and the child is an action leaf, which takes the reporting leaf's
    /// place.
    pub hands_over: bool,
}

/// A compiled tree, shared by every agent that runs it.
pub struct Program<A> {
    pub(crate) recs: Vec<Rec>,
    pub(crate) names: Vec<String>,
    /// Each node's title from its file (empty where it has none), by index.
    pub(crate) titles: Vec<String>,
    /// Each node's kind, by index.
    kinds: Vec<String>,
    pub(crate) links: Vec<u32>,
    /// Each leaf's action, by leaf slot, and where it lives in an instance.
    pub(crate) actions: Arc<SlabPlan<A>>,
    pub(crate) conditions: Vec<CondRef<A>>,
    pub(crate) keys: Vec<String>,
    /// The keys declared with a default and their values, which a run starts with and the
    /// context is cleared back to (SEMANTICS.md §3.5).
    pub(crate) seeds: Vec<(KeyId, CtxValue)>,
    /// Each key's declared type, by [`KeyId`] (`any` where nothing declares it).
    key_types: Vec<KeyType>,
    pub(crate) interrupts: Vec<(String, u32)>,
    /// Every service, each composite's together in slot order, the composites in tree
    /// order; an instance keeps a clock for each, by its place here.
    pub(crate) services: Vec<Service>,
    /// The composites with services, in tree order.
    pub(crate) hosts: Vec<u32>,
    /// Every branch field bound to a key, each node's together; an instance keeps the
    /// value each read at its node's last entry, its setting, by its place here, among its
    /// timers from `settings_at`.
    pub(crate) bindings: Vec<BoundSetting>,
    pub(crate) settings_at: usize,
    /// Each node's bindings, `bindings[settings_of[n].0..settings_of[n].1]`, by node index;
    /// empty when the program has none (so that a node's entry asks only whether it is).
    pub(crate) settings_of: Vec<(u32, u32)>,
    pub(crate) perm_len: usize,
    pub(crate) depth: usize,
    /// What the hot path needs of each action leaf, by node index (other nodes' entries
    /// are empty).
    pub(crate) leaves: Vec<LeafInfo<A>>,
    /// Regulators above each leaf (see [`LeafInfo::regulators`]).
    pub(crate) chain: Vec<u32>,
    /// The branches each route finishes, with their statuses (see [`Route`]).
    pub(crate) finished: Vec<(u32, Status)>,
    /// Where a guarded branch's failure goes when one of its guards fails, by node index
    /// (see [`Program::guard_route`]; other nodes' entries are empty).
    pub(crate) guarded: Vec<Route>,
    /// Every branch's guards, ready to check on entry (see [`Rec::entry`]).
    pub(crate) entry: Vec<PathGuard<A>>,
    /// The children of Selectors that can take over, each with its slot: those with an
    /// observer among their guards, each Selector's together in slot order (see
    /// [`Watch`]).
    pub(crate) takers: Vec<(u32, u32)>,
    /// Input and output slots an instance needs (see [`LeafInfo`]).
    pub(crate) io_len: (usize, usize),
    /// Room an instance reserves for reports beyond the two it keeps in place: the most
    /// one step can queue (see [`Program::bounds`]), less two.
    pub(crate) report_cap: usize,
    /// The most action leaves that can be active at once (see [`Program::bounds`]).
    pub(crate) max_active: usize,
    /// The values branches compare (a Switch's variable and cases), each node's together
    /// (`Build::operands`).
    pub(crate) operands: Vec<super::node::Operand>,
    /// The scripts branches check (Precondition's `if`), each node's together
    /// (`Build::script`).
    pub(crate) scripts: Vec<super::script::ScriptCondition>,
    /// The project's enums, which a Switch's comparisons read as their numbers.
    pub(crate) enums: Arc<std::collections::BTreeMap<String, i64>>,
    /// The leaves whose actions set and clear keys themselves, by node index, in order
    /// ([`HAS_WRITES`]).
    writers: Vec<u32>,
    /// Whether there is one, or a node's hook that sets keys: an instance then keeps room
    /// for their writes.
    pub(crate) writes_keys: bool,
    /// The nodes' hooks (SEMANTICS.md §3.7), in tree order.
    pub(crate) hooks: Vec<NodeHooks>,
    /// Each node's place in `hooks`, by node index ([`NONE`]: it has none); empty when no
    /// node has any (so that an entry asks only whether it is).
    pub(crate) hook_of: Vec<u32>,
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
            served: super::kinds::Served::default(),
            types: Vec::new(),
            runs: Vec::new(),
            seeds: std::collections::BTreeMap::new(),
            key_types: Vec::new(),
            shared_catalog: None,
            p: Program {
                recs: Vec::new(),
                names: Vec::new(),
                titles: Vec::new(),
                kinds: Vec::new(),
                links: Vec::new(),
                actions: Arc::new(SlabPlan::empty()),
                conditions: Vec::new(),
                keys: Vec::new(),
                seeds: Vec::new(),
                key_types: Vec::new(),
                interrupts: Vec::new(),
                services: Vec::new(),
                hosts: Vec::new(),
                bindings: Vec::new(),
                settings_at: 0,
                settings_of: Vec::new(),
                perm_len: 0,
                depth: 0,
                leaves: Vec::new(),
                chain: Vec::new(),
                finished: Vec::new(),
                guarded: Vec::new(),
                entry: Vec::new(),
                takers: Vec::new(),
                io_len: (1, 1),
                report_cap: 0,
                max_active: 0,
                operands: Vec::new(),
                scripts: Vec::new(),
                enums: catalog.enums(),
                writers: Vec::new(),
                writes_keys: false,
                hooks: Vec::new(),
                hook_of: Vec::new(),
            },
        };
        b.add(root, tree, assets, "", NONE, 0)?;
        b.seed(tree);
        b.p.seeds = std::mem::take(&mut b.seeds).into_iter().collect();
        b.p.keys = std::mem::take(&mut b.keys.names);
        b.p.key_types = vec![KeyType::Any; b.p.keys.len()];
        for (key, ty) in std::mem::take(&mut b.key_types) {
            if let Some(slot) = b.p.key_types.get_mut(usize::from(key)) {
                *slot = ty;
            }
        }
        if b.p.bindings.is_empty() {
            b.p.settings_of = Vec::new();
        }
        b.p.writes_keys = !b.p.writers.is_empty() || b.p.hooks.iter().any(NodeHooks::writes);
        if !b.p.hooks.is_empty() {
            b.p.hook_of.resize(b.p.recs.len(), NONE);
        }
        let (records, timers, words) = b.p.lay_out();
        b.p.index_leaves(&b.runs);
        b.p.index_routes();
        b.p.index_firsts();
        debug_assert!(
            b.p.max_active <= usize::from(u16::MAX),
            "validation refuses a tree with more leaves active at once than an instance counts"
        );
        let types = std::mem::take(&mut b.types);
        let plan = SlabPlan::new(b.p.recs.len(), records, timers, words, types).map_err(|e| {
            CompileError::Node {
                node: String::new(),
                message: format!("the instance state does not fit in memory: {e}"),
            }
        })?;
        let plan = Arc::new(plan);
        for (info, rec) in b.p.leaves.iter_mut().zip(&b.p.recs) {
            if rec.kind.is_leaf()
                && let Some(calls) = LeafCalls::of(&plan, rec.slot as usize)
            {
                info.calls = calls;
            }
        }
        b.p.actions = plan;
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

    /// Each node's title as its file gives it (empty where it has none), by index: inside a
    /// SubTree, the title in the SubTree's asset.
    pub fn node_titles(&self) -> &[String] {
        &self.titles
    }

    /// Each node's kind, by index.
    pub fn node_kinds(&self) -> &[String] {
        &self.kinds
    }

    /// Node `i` as the event log names it ([`crate::model::names::spoken`]): its title, or
    /// its kind and trace id where it has none.
    pub fn node_name(&self, i: u32) -> Option<String> {
        let i = i as usize;
        let (id, title, kind) = (self.names.get(i)?, self.titles.get(i)?, self.kinds.get(i)?);
        Some(crate::model::names::spoken(kind, id, title))
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

    /// The declared type of key `key` (`any` where nothing declares it).
    pub fn key_type(&self, key: KeyId) -> KeyType {
        self.key_types
            .get(usize::from(key))
            .copied()
            .unwrap_or(KeyType::Any)
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

    /// Its nodes as a person names them ([`crate::model::names::resolve`]): by trace id,
    /// with their titles (a SubTree's as its asset titles them).
    pub fn named_nodes(&self) -> Vec<Named> {
        self.names
            .iter()
            .zip(&self.titles)
            .map(|(id, title)| Named {
                id: id.clone(),
                title: title.clone(),
            })
            .collect()
    }

    /// Its Interrupts as a person names them: by `interrupt_id`, with the Interrupt's
    /// title.
    pub fn named_interrupts(&self) -> Vec<Named> {
        self.interrupts
            .iter()
            .map(|(id, at)| Named {
                id: id.clone(),
                title: self.titles[*at as usize].clone(),
            })
            .collect()
    }

    /// Number of action leaves.
    pub fn leaf_count(&self) -> usize {
        self.actions.len()
    }

    /// Deepest nesting.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Whether node `i` is a condition with `aborts_lower` (an observer, when it is a
    /// guard).
    pub fn is_observer(&self, i: u32) -> bool {
        self.recs.get(i as usize).is_some_and(|r| r.kind.observes())
    }

    /// Whether node `i` is an action leaf.
    pub fn is_leaf(&self, i: u32) -> bool {
        self.recs.get(i as usize).is_some_and(|r| r.kind.is_leaf())
    }

    /// Each branch's first move on entry, where its kind's rule fixes it; which nodes are
    /// not branches.
    fn index_firsts(&mut self) {
        for rec in &mut self.recs {
            if !rec.kind.is_branch() {
                rec.first = First::NotBranch;
                continue;
            }
            let kids = &self.links[rec.kids.0 as usize..rec.kids.1 as usize];
            rec.first = match rec.kind.first(kids.len() as u32) {
                Some(Next::Child(slot)) => First::Child {
                    child: kids[slot as usize],
                    slot,
                },
                Some(Next::Finish(s)) => First::Finish(s),
                None => First::Asks,
            };
        }
    }

    /// Each leaf's routes (`LeafInfo::route`) and each guarded branch's failure route
    /// (`Program::guard_route`), from the rules of the kinds above it (`Kind::next`): a
    /// parent whose reaction the tree decides is followed; the climb stops below the first
    /// that is not (its reaction depends on its state, or a random order), which reacts
    /// the general way.
    fn index_routes(&mut self) {
        // Each node's place among its parent's children, so that a climb is linear in its
        // length even under a parent of many children.
        let place = self.places();
        let mut all = Vec::new();
        // (A leaf with hooks is entered the general way, where they are checked.)
        let hook_of = &self.hook_of;
        let mut route = |node: u32, s: Status| {
            let from = all.len() as u32;
            let (mut c, mut s) = (node, s);
            let from_leaf = self.recs[node as usize].kind.is_leaf();
            loop {
                let up = self.recs[c as usize].parent;
                let Some(rec) = self.recs.get(up as usize) else {
                    break;
                };
                let random = rec.kind.shuffles();
                let kids = &self.links[rec.kids.0 as usize..rec.kids.1 as usize];
                let at = place[c as usize];
                if kids.get(at as usize) != Some(&c) {
                    break;
                }
                match rec.kind.next(at, kids.len() as u32, s) {
                    Some(Next::Finish(done)) if !random => {
                        all.push((up, done));
                        (c, s) = (up, done);
                    }
                    Some(Next::Child(j)) if !random => {
                        let child = kids[j as usize];
                        let to_leaf = self.recs[child as usize].kind.is_leaf();
                        return Route {
                            enter: Some(MoveOn {
                                parent: up,
                                cursor_at: rec.ri + 1,
                                slot: j,
                                child,
                                // (The leaf after it in tree order: a rule may skip a
                                // slot, as IfThenElse's does.)
                                hands_over: from_leaf
                                    && to_leaf
                                    && all.len() as u32 == from
                                    && child == node + 1
                                    && hook_of.get(child as usize).is_none_or(|&h| h == NONE),
                            }),
                            finished: (from, all.len() as u32),
                        };
                    }
                    _ => break,
                }
            }
            Route {
                finished: (from, all.len() as u32),
                enter: None,
            }
        };
        let mut leaves = std::mem::take(&mut self.leaves);
        let mut guarded = vec![Route::default(); self.recs.len()];
        for (n, rec) in self.recs.iter().enumerate() {
            if rec.kind.is_leaf() {
                leaves[n].routes = [
                    route(n as u32, Status::Success),
                    route(n as u32, Status::Failure),
                ];
            } else if rec.entry.0 != rec.entry.1 {
                guarded[n] = route(n as u32, Status::Failure);
            }
        }
        self.leaves = leaves;
        self.guarded = guarded;
        self.finished = all;
    }

    /// Node `n`'s hooks, if it has any.
    #[inline]
    pub(crate) fn hooks_of(&self, n: u32) -> Option<&NodeHooks> {
        let at = *self.hook_of.get(n as usize)?;
        self.hooks.get(at as usize)
    }

    /// Where the failure of branch `b` goes when one of its guards fails (see [`Route`]).
    #[inline]
    pub(crate) fn guard_route(&self, b: u32) -> &Route {
        &self.guarded[b as usize]
    }

    /// The branches route `r` finishes, deepest first, with their statuses.
    #[inline]
    pub(crate) fn finished(&self, r: &Route) -> &[(u32, Status)] {
        &self.finished[r.finished.0 as usize..r.finished.1 as usize]
    }

    /// Places each node's state in an instance's block as its kind asks (`Kind::needs`):
    /// its run record, its word and its timer; the settings follow the timers. Returns how
    /// many record words, timers (settings included) and words there are.
    fn lay_out(&mut self) -> (usize, usize, usize) {
        let (mut records, mut timers, mut words) = (0u32, 0u32, 0u32);
        let take = |n: &mut u32, used: bool| {
            if used {
                *n += 1;
                *n - 1
            } else {
                NONE
            }
        };
        for rec in &mut self.recs {
            let needs = rec.kind.needs();
            rec.ri = if needs.records > 0 { records } else { NONE };
            records += needs.records;
            rec.word = take(&mut words, needs.word);
            rec.timer = take(&mut timers, needs.timer);
        }
        self.settings_at = timers as usize;
        let timers = timers as usize + self.bindings.len();
        (records as usize, timers, words as usize)
    }

    /// Precomputes, for each leaf, the guards above it and its Regulator ancestors, and for
    /// each branch its guards ready to check on entry.
    fn index_leaves(&mut self, runs: &[Runs]) {
        let count = self.recs.len();
        let none = Arc::new(SlabPlan::empty());
        let mut leaves: Vec<LeafInfo<A>> = (0..count)
            .map(|_| LeafInfo {
                calls: LeafCalls::none(&none),
                has: 0,
                ri: 0,
                guards: Box::new([]),
                regulators: (0, 0),
                input_at: 0,
                output_at: 0,
                max_duration: f64::INFINITY,
                timer_at: NONE,
                routes: Default::default(),
                watch: Box::new([]),
            })
            .collect();
        let place = self.places();
        // The children that can take over of each branch that runs its children by
        // priority (a Selector): `takers[from[c].0..from[c].1]`.
        let mut takers = Vec::new();
        let mut from = vec![(0u32, 0u32); count];
        for c in 0..count {
            if !runs[c].by_priority {
                continue;
            }
            let t0 = takers.len() as u32;
            for (slot, &b) in self.kids(c as u32).iter().enumerate() {
                let guards = self.recs[b as usize].guards;
                let observes = self.links[guards.0 as usize..guards.1 as usize]
                    .iter()
                    .any(|&g| self.recs[g as usize].kind.observes());
                if observes {
                    takers.push((b, slot as u32));
                }
            }
            from[c] = (t0, takers.len() as u32);
        }
        let (mut inputs, mut outputs) = (1u32, 1u32);
        let mut chain = Vec::new();
        let mut up = Vec::new();
        for (n, rec) in self.recs.iter().enumerate() {
            let Some(leaf) = rec.kind.leaf() else {
                continue;
            };
            let input_at = leaf.input.map_or(0, |_| {
                inputs += 1;
                inputs - 1
            });
            let output_at = leaf.output.map_or(0, |_| {
                outputs += 1;
                outputs - 1
            });
            up.clear();
            let mut at = rec.parent;
            while at != NONE {
                up.push(at);
                at = self.recs[at as usize].parent;
            }
            let mut path = Vec::new();
            for &b in up.iter().rev() {
                self.push_guards(b, &mut path, true);
            }
            // The leaf's own `_while` last.
            self.push_while(n as u32, &mut path);
            let r0 = chain.len() as u32;
            chain.extend(
                up.iter()
                    .rev()
                    .filter(|&&b| self.recs[b as usize].kind.regulates()),
            );
            let regulators = (r0, chain.len() as u32);
            // Observers watch before each node on the path (the leaf last) whose Selector
            // parent has takers before it; a reactive parent with children before the node
            // enters them again there.
            let watch: Box<[Watch]> = up
                .iter()
                .rev()
                .copied()
                .chain([n as u32])
                .filter_map(|at| {
                    let parent = self.recs[at as usize].parent;
                    let kind = self.recs.get(parent as usize)?.kind;
                    if kind.reactive() {
                        return (place[at as usize] > 0 || kind.reselects()).then_some(Watch {
                            at,
                            parent,
                            how: Watching::Again,
                        });
                    }
                    let &(t0, t1) = from.get(parent as usize)?;
                    let before = takers[t0 as usize..t1 as usize]
                        .partition_point(|&(_, slot)| slot < place[at as usize]);
                    (before > 0).then_some(Watch {
                        at,
                        parent,
                        how: Watching::Takers(t0, t0 + before as u32),
                    })
                })
                .collect();
            let has = [
                (input_at | output_at != 0, HAS_IO),
                (rec.timer != NONE, HAS_TIMER),
                (regulators.0 != regulators.1, HAS_REGULATORS),
                (!watch.is_empty(), HAS_WATCH),
                (self.writers.binary_search(&(n as u32)).is_ok(), HAS_WRITES),
            ]
            .iter()
            .filter(|(yes, _)| *yes)
            .fold(0, |all, (_, bit)| all | bit);
            leaves[n] = LeafInfo {
                calls: LeafCalls::none(&none),
                has,
                ri: rec.ri,
                guards: path.into_boxed_slice(),
                regulators,
                input_at,
                output_at,
                max_duration: leaf.max_duration.unwrap_or(f64::INFINITY),
                timer_at: rec.timer,
                routes: Default::default(),
                watch,
            };
        }
        let mut entry = Vec::new();
        for b in 0..self.recs.len() {
            let e0 = entry.len() as u32;
            self.push_guards(b as u32, &mut entry, false);
            self.recs[b].entry = (e0, entry.len() as u32);
        }
        self.io_len = (inputs as usize, outputs as usize);
        let (active, reports) = self.bounds(runs);
        self.max_active = active;
        // Two are kept in the instance itself (see `Reports`).
        self.report_cap = reports.saturating_sub(2);
        self.leaves = leaves;
        self.chain = chain;
        self.entry = entry;
        self.takers = takers;
    }

    /// Each node's place among its parent's children (`u32::MAX` for a guard, Root and
    /// an Interrupt, which are no one's children).
    fn places(&self) -> Vec<u32> {
        let mut place = vec![u32::MAX; self.recs.len()];
        for n in 0..self.recs.len() {
            for (at, &k) in self.kids(n as u32).iter().enumerate() {
                place[k as usize] = at as u32;
            }
        }
        place
    }

    /// Appends branch `b`'s guards, in slot order, to `to`; on a running leaf's path
    /// (`on_path`), its deadline after them (`Def::deadline`, SEMANTICS.md §3.3.1).
    fn push_guards(&self, b: u32, to: &mut Vec<PathGuard<A>>, on_path: bool) {
        let rec = &self.recs[b as usize];
        for &g in &self.links[rec.guards.0 as usize..rec.guards.1 as usize] {
            let guard = &self.recs[g as usize];
            // A guard that is not a condition (validation refuses one) never holds.
            let (cond, holds_on, test) = self
                .conditions
                .get(guard.slot as usize)
                .and_then(|behaviour| guard.kind.as_guard(behaviour))
                .unwrap_or_else(|| (CondRef::never(), HoldsOn::True, Test::Plain));
            to.push(PathGuard {
                branch: b,
                node: g,
                cond,
                holds_on,
                test,
            });
        }
        if on_path && let Some(seconds) = rec.kind.deadline() {
            to.push(PathGuard {
                branch: b,
                node: b,
                cond: CondRef::never(),
                holds_on: HoldsOn::Test,
                test: Test::Deadline { seconds },
            });
        }
        if on_path {
            self.push_while(b, to);
        }
    }

    /// Node `n`'s `_while`, checked on the path while it runs, if it has one.
    fn push_while(&self, n: u32, to: &mut Vec<PathGuard<A>>) {
        if self.hooks_of(n).is_some_and(NodeHooks::has_while) {
            to.push(PathGuard {
                branch: n,
                node: n,
                cond: CondRef::never(),
                holds_on: HoldsOn::Test,
                test: Test::While,
            });
        }
    }

    /// The most action leaves active at once, and the most reports one step can queue.
    ///
    /// A report is queued only by a leaf finishing (phase 3) or by a guard failing its
    /// branch, or a `_while` skipping its node (phase 2, or in phase 4 when an ending
    /// Interrupt resumes the leaves it aborted), at most once per running node per step (a
    /// node that ends so takes its running subtree's reports with it); so both are bounded by what can
    /// run at once: one child's worth below most branches, every child's below a Parallel.
    /// An Interrupt's subtree runs beside the main tree's branches, and its last reports
    /// can wait while the resumed leaves' guards fail: it is counted on top.
    fn bounds(&self, runs: &[Runs]) -> (usize, usize) {
        let n = self.recs.len();
        let (mut leaves, mut reports) = (vec![0usize; n], vec![0usize; n]);
        for i in (0..n).rev() {
            let r = &self.recs[i];
            let kids = &self.links[r.kids.0 as usize..r.kids.1 as usize];
            let (l, q) = match r.kind {
                k if k.is_leaf() => (1, 1),
                k if !k.is_branch() => (0, 0),
                // A reactive composite enters an earlier child before it aborts the one
                // that runs: for a moment, two children's leaves are active.
                _ if runs[i].all_at_once || r.kind.reactive() => {
                    kids.iter().fold((0, 0), |(l, q), &k| {
                        (l + leaves[k as usize], q + reports[k as usize])
                    })
                }
                _ => kids.iter().fold((0, 0), |(l, q), &k| {
                    (l.max(leaves[k as usize]), q.max(reports[k as usize]))
                }),
            };
            leaves[i] = l;
            // A failing guard, a deadline passed, a `_while` that stops holding or an
            // earlier child deciding a reactive composite ends the branch: one report.
            let checked = r.guards.0 != r.guards.1
                || r.kind.deadline().is_some()
                || r.kind.reactive()
                || self.hooks_of(i as u32).is_some_and(NodeHooks::has_while);
            reports[i] = q + usize::from(checked);
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

    /// What the hot path needs of action leaf `n`.
    #[inline]
    pub(crate) fn leaf(&self, n: u32) -> &LeafInfo<A> {
        &self.leaves[n as usize]
    }

    pub(crate) fn kids(&self, n: u32) -> &[u32] {
        let r = &self.recs[n as usize];
        &self.links[r.kids.0 as usize..r.kids.1 as usize]
    }

    /// Where setting `at` (a [`super::node::Param::Key`]'s place) lies among an
    /// instance's timers.
    #[inline(always)]
    pub(crate) fn setting_slot(&self, at: u32) -> usize {
        self.settings_at + at as usize
    }

    /// Composite `n`'s services, in slot order, with their places in
    /// [`Program::services`] from `services_of(n).0`.
    #[inline]
    pub(crate) fn services_of(&self, n: u32) -> (u32, &[Service]) {
        let (s0, s1) = self.recs[n as usize].services;
        (s0, &self.services[s0 as usize..s1 as usize])
    }
}

struct Builder<'a, A> {
    catalog: &'a Catalog,
    behaviours: &'a Behaviours<A>,
    /// The context keys met so far.
    keys: KeyTable,
    served: super::kinds::Served,
    types: Vec<ActionType<A>>,
    /// How each node runs its children, by index (its kind's catalog entry says).
    runs: Vec<Runs>,
    /// The values keys hold from the start, by key: see `Program::seeds`.
    seeds: std::collections::BTreeMap<KeyId, CtxValue>,
    /// The declared keys' types: see `Program::key_types`.
    key_types: Vec<(KeyId, KeyType)>,
    /// The catalog, shared by the leaves made again from fields bound to keys: copied once,
    /// at the first of them.
    shared_catalog: Option<Arc<Catalog>>,
    p: Program<A>,
}

/// A declared key's default, or a parameter's literal, as a context value (an `int` or a
/// `float` as its number).
fn seed_value(v: &Value) -> Option<CtxValue> {
    Some(match v {
        Value::Bool(b) => CtxValue::Bool(*b),
        Value::Int(_) | Value::Float(_) => CtxValue::Number(v.as_f64().unwrap_or_default()),
        Value::Text(t) => CtxValue::Text(t.as_str().into()),
        Value::Key(_) => return None,
    })
}

impl<A: 'static> Builder<'_, A> {
    /// The defaults of the keys `tree` and its project declare, as the run's seeds.
    fn seed(&mut self, tree: &Tree) {
        let declared = tree.keys.as_deref().unwrap_or_default();
        // The tree's own declaration of a name comes after the project's, and wins.
        for k in self.catalog.shared_keys().iter().chain(declared) {
            let key = self.keys.intern(&k.name);
            self.key_types.push((key, k.ty));
            if let Some(v) = k.default.as_ref().and_then(seed_value) {
                self.seeds.insert(key, v);
            }
        }
    }

    /// SubTree node `node` of `caller` runs the tree `sub`: from here to [`KeyTable::leave`], the keys
    /// `sub` names are the node's (SEMANTICS.md §3.5), each as [`binding`] says, and its own
    /// keys hold their literals and defaults from the start.
    fn enter_subtree(&mut self, node: &Node, caller: &Tree, sub: &Tree, prefix: &str) {
        let shares = shares_keys(node, caller);
        let mut bound = Vec::new();
        let mut own = Vec::new();
        match sub.keys.as_deref() {
            Some(declared) => {
                for d in declared {
                    match binding(&d.name, Some(d), &node.fields, shares) {
                        Binding::Caller(key) => bound.push((d.name.clone(), key.to_owned())),
                        Binding::Literal(v) => own.push((d.name.as_str(), d.ty, seed_value(v))),
                        Binding::Own => {
                            own.push((
                                d.name.as_str(),
                                d.ty,
                                d.default.as_ref().and_then(seed_value),
                            ));
                        }
                    }
                }
            }
            // An asset that declares no keys: whatever the node binds, by name.
            None => {
                for (name, v) in open_bindings(node) {
                    match v {
                        Value::Key(key) => bound.push((name.to_owned(), key.clone())),
                        v => own.push((name, KeyType::Any, seed_value(v))),
                    }
                }
            }
        }
        let named = own.iter().map(|(name, _, _)| (*name).to_owned()).collect();
        self.keys.enter(prefix, shares, bound, named);
        for (name, ty, seed) in own {
            let key = self.keys.intern(name);
            self.key_types.push((key, ty));
            if let Some(v) = seed {
                self.seeds.insert(key, v);
            }
        }
    }

    /// What making leaf or condition `node` (trace id `trace_id`) from its fields bound to
    /// keys needs at its entry (`bound.rs`), or `None` when it has none: it is made now.
    fn bound_fields(&mut self, node: &Node, trace_id: &str) -> Option<Arc<Bound>> {
        let kind = self.catalog.kind(&node.kind)?;
        let mut fields = Vec::new();
        for (name, value) in &node.fields {
            // A field its code writes (an output port) is not read as it is entered.
            if let Value::Key(key) = value
                && let Some(spec) = kind.field(name)
                && spec.ty.key_types().is_some()
                && spec.direction.reads()
            {
                fields.push((name.clone(), self.keys.intern(key), spec.clone()));
            }
        }
        if fields.is_empty() {
            return None;
        }
        let mut keys = Vec::new();
        for f in &kind.fields {
            let name = self.catalog.text(node, &f.name);
            if matches!(f.ty, FieldType::ContextKey(_)) && !name.is_empty() {
                keys.push((name.to_owned(), self.keys.intern(name)));
            }
        }
        let outputs = super::behaviour::bound_outputs(node, kind)
            .map(|(field, key)| (field.to_owned(), self.keys.intern(key)))
            .collect();
        let mut template = node.clone();
        for (name, _, _) in &fields {
            template.fields.remove(name);
        }
        let catalog = self
            .shared_catalog
            .get_or_insert_with(|| Arc::new(self.catalog.clone()))
            .clone();
        Some(Arc::new(Bound {
            node: template,
            trace_id: trace_id.to_owned(),
            catalog,
            keys,
            fields,
            outputs,
        }))
    }

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
        let b0 = self.p.bindings.len() as u32;
        let mut build = Build {
            catalog: c,
            keys: &mut self.keys,
            served: &mut self.served,
            bindings: &mut self.p.bindings,
            operands: &mut self.p.operands,
            scripts: &mut self.p.scripts,
        };
        let spec = c.kind(&node.kind);
        // (An action may write the keys its writing fields are bound to.)
        let outputs =
            spec.is_some_and(|k| super::behaviour::bound_outputs(node, k).next().is_some());
        let runs_as = c.as_built_in(node);
        let Some(kind) = Kind::build(runs_as.as_ref().unwrap_or(node), category, &mut build) else {
            let why = match spec.map(|k| &k.origin) {
                Some(crate::model::Origin::Library { library, file }) => format!(
                    "the {} '{}' of the node library '{library}' ({}) has no \"runs_as\", so Arbor cannot run it; add \"runs_as\" naming the built-in {} it behaves as",
                    category.label().to_lowercase(),
                    node.kind,
                    file.display(),
                    category.label().to_lowercase()
                ),
                _ => format!("'{}' cannot be run", node.kind),
            };
            return Err(self.err(&name, why));
        };
        let mut slot = 0;
        let bound = if matches!(category, Category::Leaf | Category::Condition) {
            self.bound_fields(node, &name)
        } else {
            None
        };
        match category {
            Category::Leaf => {
                let mut spec = NodeSpec {
                    node,
                    trace_id: &name,
                    catalog: c,
                    keys: KeyLookup::Table(&mut self.keys),
                    bound,
                };
                let made = self.behaviours.make_action(&mut spec);
                let action = self.built(&name, made, "action", &node.kind)?;
                if self.behaviours.writes_keys(&node.kind) || outputs {
                    self.p.writers.push(self.p.recs.len() as u32);
                }
                slot = self.types.len() as u32;
                self.types.push(action);
            }
            Category::Condition => {
                let mut spec = NodeSpec {
                    node,
                    trace_id: &name,
                    catalog: c,
                    keys: KeyLookup::Table(&mut self.keys),
                    bound,
                };
                let made = self.behaviours.make_condition(&mut spec);
                let cond = self.built(&name, made, "condition", &node.kind)?;
                slot = self.p.conditions.len() as u32;
                self.p.conditions.push(cond);
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
        self.runs.push(c.runs(&node.kind));
        self.p.recs.push(Rec {
            kind,
            parent,
            end: index + 1,
            kids: (0, 0),
            guards: (0, 0),
            entry: (0, 0),
            ri: NONE,
            slot,
            word: NONE,
            timer: NONE,
            first: First::Asks,
            services: (0, 0),
        });
        if let Some(h) = NodeHooks::of(node, c, |k| self.keys.intern(k)) {
            self.p.hook_of.resize(index as usize, NONE);
            self.p.hook_of.push(self.p.hooks.len() as u32);
            self.p.hooks.push(h);
        }
        self.p.settings_of.push((b0, self.p.bindings.len() as u32));
        self.p.names.push(name.clone());
        self.p.titles.push(node.title.clone());
        self.p.kinds.push(node.kind.clone());

        let mut guards = Vec::new();
        if category.is_branch() {
            for g in Self::linked(tree, node, Port::Conditions) {
                guards.push(self.add(g, tree, assets, prefix, index, depth + 1)?);
            }
        }
        let mut services = Vec::new();
        if category == Category::Composite {
            for s in Self::linked(tree, node, Port::Services) {
                let at = self.add(s, tree, assets, prefix, index, depth + 1)?;
                let interval = c.number(s, "interval").unwrap_or(0.0);
                services.push(Service { node: at, interval });
            }
        }
        if !services.is_empty() {
            self.p.hosts.push(index);
        }
        let s0 = self.p.services.len() as u32;
        self.p.services.extend(services);
        let s1 = self.p.services.len() as u32;
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
                self.enter_subtree(node, tree, &sub, &inner);
                let top = self.add(top, &sub, &*sub_assets, &inner, index, depth + 1);
                self.keys.leave();
                kids.push(top?);
            }
            Category::Leaf | Category::Condition => {}
        }
        if category == Category::Root {
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
        rec.services = (s0, s1);
        rec.end = end;
        if kind.shuffles() {
            rec.slot = perm;
            self.p.perm_len += kids.len();
        }
        Ok(index)
    }
}

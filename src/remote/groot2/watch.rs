//! A BehaviorTree.CPP program watched through its Groot2Publisher: its tree, what its
//! nodes do as trace events (the rule a recording's changes follow,
//! [`StatusChanges`](crate::io::btcpp::StatusChanges)), its blackboards as context
//! writes, and its breakpoints (docs/BTCPP.md, "Live attach").
//!
//! The publisher keeps the status changes since it was last asked (its last 1,000), each
//! with its time: a poll takes them all, so every change is seen, however short, in the
//! order and at the millisecond it happened (a step is a millisecond, as in a recording).
//! The blackboards are read at each poll; a value changed since the last is a context
//! write of the poll's step.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::client::{Fault, Groot2Error, Publisher, PublisherAddress};
use crate::io::TracedEvent;
use crate::io::btcpp::StatusChanges;
use crate::runtime::{EventKindOf, TraceHeader, ValueOf};

/// The status changes a publisher keeps between two polls: a poll that takes this many may
/// have missed older ones.
pub const KEPT_CHANGES: usize = 1_000;

/// The longest text a blackboard value is shown with (a longer one is cut, and says so).
const MAX_VALUE: usize = 4_096;

/// The longest blackboard key shown (a longer one is cut, and says so).
const MAX_KEY: usize = 256;

/// How far past now a change's time may lie (a clock that jumped, a time that does not
/// read): a later one is taken to be now.
const AHEAD: u64 = 1_000;

/// How long each request of a detach waits: a detach never keeps its caller long.
const DETACH_WITHIN: Duration = Duration::from_millis(500);

/// A program watched: see the module's documentation.
pub struct Watch {
    publisher: Publisher,
    xml: String,
    name: String,
    changes: StatusChanges,
    /// Each node's uid, by trace id.
    uids: HashMap<Arc<str>, u16>,
    top: Option<u16>,
    /// The blackboards read: the name the publisher knows each by, and the prefix its
    /// keys are shown with (none for the tree's own, `SUBTREE/` for a SubTree's).
    boards: Vec<(String, String)>,
    values: BTreeMap<String, serde_json::Value>,
    started: Instant,
    /// The newest step given, and the number of the last change.
    step: u64,
    line: usize,
    /// Polls that took as many changes as the publisher keeps.
    full_polls: u64,
    /// Changes passed over because they name no node of the tree, or no status.
    passed_over: u64,
    /// The nodes with a breakpoint, by uid; those made to report a status instead of
    /// running (2 success, 3 failure); and the hooks the publisher has, each a breakpoint
    /// (`None`) or a status reported.
    breaks: BTreeSet<u16>,
    forced: BTreeMap<u16, u8>,
    hooks: BTreeMap<u16, Option<u8>>,
    /// The program is to be held before its next tick.
    pausing: bool,
    /// The node the program is held at, if it is.
    held: Option<u16>,
    /// Breakpoints the program reached that a poll took but did not get to (it failed
    /// first): the next poll does.
    reached: Vec<u16>,
}

/// What a poll saw.
#[derive(Debug, Default)]
pub struct Polled {
    /// The events, in order.
    pub events: Vec<TracedEvent>,
    /// The node the program is now held at (by trace id), when it was not before.
    pub held: Option<Arc<str>>,
}

impl Watch {
    /// Attaches to the publisher at `address`, each request waiting at most `within`: its
    /// tree; hooks left by a monitor before are taken away; the publisher keeps changes
    /// from now on; the nodes running now are entered at step 1 (a change kept meanwhile
    /// to the status a node has is nothing); and the blackboards' values.
    pub fn attach(
        address: &PublisherAddress,
        within: Duration,
    ) -> Result<(Self, Vec<TracedEvent>), Groot2Error> {
        let mut publisher = Publisher::connect(address, within)?;
        let xml = publisher.full_tree()?;
        let ids = crate::io::btcpp::recorded_ids(&xml).map_err(|p| Groot2Error {
            fault: Fault::Garbled,
            message: format!(
                "the tree {address} sent does not read (line {}, column {}): {}",
                p.line, p.column, p.message
            ),
        })?;
        let name = match ids.main.as_str() {
            "" => "tree".to_owned(),
            main => main.to_owned(),
        };
        let mut boards = vec![(name.clone(), String::new())];
        boards.extend(
            ids.subtrees
                .iter()
                .map(|(path, trace)| (path.clone(), format!("{trace}/"))),
        );
        let uids = ids
            .by_uid
            .iter()
            .map(|(uid, id)| (Arc::from(id.as_str()), *uid))
            .collect();
        let top = ids.top;
        let mut watch = Self {
            publisher,
            xml,
            name,
            changes: StatusChanges::new(ids),
            uids,
            top,
            boards,
            values: BTreeMap::new(),
            started: Instant::now(),
            step: 1,
            line: 0,
            full_polls: 0,
            passed_over: 0,
            breaks: BTreeSet::new(),
            forced: BTreeMap::new(),
            hooks: BTreeMap::new(),
            pausing: false,
            held: None,
            reached: Vec::new(),
        };
        let mut events = Vec::new();
        // A program held by hooks a monitor left goes on.
        watch.publisher.remove_all_hooks()?;
        watch.started = Instant::now();
        watch.publisher.start_recording()?;
        for (uid, status) in watch.publisher.statuses()? {
            if status == 1 {
                watch.change(1, uid, status, &mut events)?;
            }
        }
        watch.read_boards(&mut events)?;
        Ok((watch, events))
    }

    /// [`Watch::attach`], tried again every `every` while nothing answers at `address` (a
    /// program not started yet, or gone for a while) until it answers or `give_up` says so
    /// (`Ok(None)`); `waiting` hears why the first try did not answer. Any other fault is
    /// the error.
    pub fn attach_when_there(
        address: &PublisherAddress,
        within: Duration,
        every: Duration,
        give_up: impl Fn() -> bool,
        mut waiting: impl FnMut(&Groot2Error),
    ) -> Result<Option<(Self, Vec<TracedEvent>)>, Groot2Error> {
        let mut said = false;
        loop {
            match Self::attach(address, within) {
                Ok(w) => return Ok(Some(w)),
                Err(e) if matches!(e.fault, Fault::Absent | Fault::Silent) => {
                    if !said {
                        waiting(&e);
                        said = true;
                    }
                    let until = Instant::now() + every;
                    while Instant::now() < until {
                        if give_up() {
                            return Ok(None);
                        }
                        std::thread::sleep(Duration::from_millis(20).min(every));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The tree the program runs, as it sent it (BehaviorTree.CPP's XML, with its nodes'
    /// uids and the models of its kinds).
    pub fn xml(&self) -> &str {
        &self.xml
    }

    /// The ID of the tree the program runs: the name of the one agent its events are of.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The publisher's address.
    pub fn address(&self) -> &PublisherAddress {
        self.publisher.address()
    }

    /// The header of the run watched: one agent, named as the tree, running `tree` (the
    /// file its XML is, or will be, kept in); a step is a millisecond.
    pub fn header(&self, tree: &str) -> TraceHeader {
        crate::io::recording_header(&self.name, tree)
    }

    /// Polls that took as many changes as the publisher keeps, so that older ones may have
    /// been missed (the nodes' statuses were then read whole to set them right).
    pub fn full_polls(&self) -> u64 {
        self.full_polls
    }

    /// Changes passed over because they named no node of the tree or no status (the
    /// nodes' statuses were then read whole to set them right).
    pub fn passed_over(&self) -> u64 {
        self.passed_over
    }

    /// What happened since the last poll: the status changes, the blackboards' changed
    /// values, and whether the program is now held at a breakpoint.
    pub fn poll(&mut self) -> Result<Polled, Groot2Error> {
        // The notices first: the changes then hold all that came before the hold. They are
        // kept until done, so a poll that fails leaves none behind.
        let new = self.publisher.breakpoints_reached();
        self.reached.extend(new);
        let mut polled = Polled::default();
        let changes = self.publisher.transitions()?;
        let full = changes.len() >= KEPT_CHANGES;
        let now = self.now();
        let mut garbled = false;
        for (time, uid, to) in changes {
            if self.changes.id(uid).is_none() || to > 4 {
                // BehaviorTree.CPP 4.8's publisher can send such a change while its tree
                // changes status as it answers: passed over, and the nodes set right below.
                self.passed_over += 1;
                garbled = true;
                continue;
            }
            let from = polled.events.len();
            let step = crate::io::btlog_step(time).min(now.saturating_add(AHEAD));
            self.change(step, uid, to, &mut polled.events)?;
            if polled.events[from..]
                .iter()
                .any(|e| matches!(e.kind, EventKindOf::Complete(_)))
            {
                self.keep_boards(&mut polled.events);
            }
        }
        if full {
            self.full_polls += 1;
        }
        if full || garbled {
            self.set_right(&mut polled.events)?;
        }
        self.read_boards(&mut polled.events)?;
        while let Some(&uid) = self.reached.first() {
            // A hook that is not Arbor's (another monitor's) is not Arbor's to let go, and a
            // node made to report a status is reached at each tick and not held (letting
            // it go would undo what it reports).
            if self.hooks.get(&uid).is_none_or(Option::is_some) {
                self.reached.remove(0);
                continue;
            }
            let pause = self.pausing && Some(uid) == self.top;
            // A breakpoint stops a node as it is entered; the hook is reached at each of
            // its ticks, and a running node's tick is not an entry.
            let entered = self.breaks.contains(&uid) && self.changes.status(uid) != 1;
            if self.held.is_none() && (pause || entered) {
                self.pausing = false;
                self.held = Some(uid);
                polled.held = self.changes.id(uid).cloned();
                if entered {
                    // Held as it is entered: its entry is said now (when it ticks, it
                    // runs on from there), so a view stops on it as on a game's hit.
                    let now = self.now();
                    self.change(now, uid, 1, &mut polled.events)?;
                }
            } else if self.held != Some(uid) {
                harmless(self.publisher.unlock(uid))?;
            }
            self.reached.remove(0);
        }
        Ok(polled)
    }

    /// The breakpoints: the nodes `nodes` names by trace id. The publisher's hooks are set
    /// to them (those of other nodes taken away); returns the names the tree does not have.
    pub fn set_breakpoints<'n>(
        &mut self,
        nodes: impl IntoIterator<Item = &'n str>,
    ) -> Result<Vec<String>, Groot2Error> {
        let mut wanted = BTreeSet::new();
        let mut unknown = Vec::new();
        for node in nodes {
            match self.uids.get(node) {
                Some(uid) => {
                    wanted.insert(*uid);
                }
                None => unknown.push(node.to_owned()),
            }
        }
        self.breaks = wanted;
        self.sync_hooks(true)?;
        self.sync_hooks(false)?;
        Ok(unknown)
    }

    /// Holds the program before its next tick (of its top node).
    pub fn pause(&mut self) -> Result<(), Groot2Error> {
        if self.held.is_none() {
            self.pausing = self.top.is_some();
            self.sync_hooks(true)?;
        }
        Ok(())
    }

    /// Lets the program held go on for one tick, then holds it again.
    pub fn step(&mut self) -> Result<(), Groot2Error> {
        // The pause is set before the program goes on, so the hook that holds it stays.
        self.pausing = self.top.is_some();
        self.go_on()
    }

    /// Lets the program held go on.
    pub fn go_on(&mut self) -> Result<(), Groot2Error> {
        let held = self.held.take();
        // The hooks wanted now are set before the program goes on (a step's pause holds
        // it at its next tick), and those not wanted taken away after.
        self.sync_hooks(true)?;
        if let Some(uid) = held {
            harmless(self.publisher.unlock(uid))?;
        }
        self.sync_hooks(false)
    }

    /// Makes node `node` (a trace id) report `status` instead of running (`None`: run as it
    /// is again); false when the tree has no such node.
    pub fn force(
        &mut self,
        node: &str,
        status: Option<crate::debug::Forced>,
    ) -> Result<bool, Groot2Error> {
        let Some(&uid) = self.uids.get(node) else {
            return Ok(false);
        };
        match status {
            Some(crate::debug::Forced::Success) => self.forced.insert(uid, 2),
            Some(crate::debug::Forced::Failure) => self.forced.insert(uid, 3),
            None => self.forced.remove(&uid),
        };
        if status.is_some() && self.held == Some(uid) {
            // Its breakpoint becomes a substitution, which the publisher lets go.
            self.held = None;
        }
        self.sync_hooks(true)?;
        self.sync_hooks(false)?;
        Ok(true)
    }

    /// The publisher's hooks made those wanted: a breakpoint on each breakpoint's node, on
    /// the top node while a pause waits, and on the node held; on a node made to report a
    /// status, that status (it is not held). With `adding`, only those missing or of
    /// another kind are set; else only those not wanted are taken away. (A hook stays
    /// until it is taken away: one that removed itself when let go could take a hook set
    /// again just then with it.)
    fn sync_hooks(&mut self, adding: bool) -> Result<(), Groot2Error> {
        let mut wanted: BTreeMap<u16, Option<u8>> =
            self.breaks.iter().map(|&u| (u, None)).collect();
        wanted.extend(self.top.filter(|_| self.pausing).map(|u| (u, None)));
        wanted.extend(self.held.map(|u| (u, None)));
        wanted.extend(self.forced.iter().map(|(&u, &s)| (u, Some(s))));
        if adding {
            for (&uid, &mode) in &wanted {
                if self.hooks.get(&uid) != Some(&mode) {
                    self.publisher.insert_hook(uid, mode)?;
                    self.hooks.insert(uid, mode);
                }
            }
        } else {
            let gone: Vec<u16> = self
                .hooks
                .keys()
                .filter(|u| !wanted.contains_key(u))
                .copied()
                .collect();
            for uid in gone {
                harmless(self.publisher.remove_breakpoint(uid))?;
                self.hooks.remove(&uid);
            }
        }
        Ok(())
    }

    /// Whether the program is held at a breakpoint.
    pub fn held(&self) -> bool {
        self.held.is_some()
    }

    /// Stops watching: every hook is taken away (the program goes on) and the publisher
    /// stops keeping changes.
    pub fn detach(mut self) -> Result<(), Groot2Error> {
        self.publisher.set_within(DETACH_WITHIN);
        self.publisher.remove_all_hooks()?;
        self.publisher.stop_recording()
    }

    fn change(
        &mut self,
        step: u64,
        uid: u16,
        to: u8,
        out: &mut Vec<TracedEvent>,
    ) -> Result<(), Groot2Error> {
        self.line += 1;
        self.step = self.step.max(step);
        let address = self.publisher.address().to_string();
        self.changes
            .apply(self.step, uid, to, self.line, out)
            .map_err(|what| Groot2Error {
                fault: Fault::Garbled,
                message: format!("{address} sent a status change that {what}"),
            })
    }

    /// After changes may have been missed: each node set to the status the publisher
    /// has for it now.
    fn set_right(&mut self, out: &mut Vec<TracedEvent>) -> Result<(), Groot2Error> {
        let step = self.now();
        for (uid, status) in self.publisher.statuses()? {
            // 11, 12, 13: idle again after running, success, failure.
            let (done, now) = match status {
                11 => (None, 0),
                12 => (Some(2), 0),
                13 => (Some(3), 0),
                s => (None, s),
            };
            if let Some(done) = done
                && self.changes.status(uid) == 1
            {
                self.change(step, uid, done, out)?;
            }
            if self.changes.status(uid) != now {
                self.change(step, uid, now, out)?;
            }
        }
        Ok(())
    }

    /// The step of now: the milliseconds since the recording started.
    fn now(&self) -> u64 {
        let ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.step.max(ms.saturating_add(1))
    }

    /// After a run completed: a run of an Arbor tree clears its context, a
    /// BehaviorTree.CPP blackboard keeps its values, so each is written again, as last read.
    fn keep_boards(&self, out: &mut Vec<TracedEvent>) {
        for (key, value) in &self.values {
            out.push(TracedEvent {
                step: self.step,
                agent: 0,
                node: None,
                kind: EventKindOf::Context(Arc::from(key.as_str()), Some(shown(value))),
                line: 0,
            });
        }
    }

    /// The blackboards' values now: each one changed since the last read is a context
    /// write, each one gone a removal.
    fn read_boards(&mut self, out: &mut Vec<TracedEvent>) -> Result<(), Groot2Error> {
        let names: Vec<&str> = self.boards.iter().map(|(n, _)| n.as_str()).collect();
        let read = self.publisher.blackboards(&names)?;
        let mut now = BTreeMap::new();
        for (name, prefix) in &self.boards {
            if let Some(serde_json::Value::Object(keys)) = read.get(name) {
                for (key, value) in keys {
                    now.insert(cut(&format!("{prefix}{key}"), MAX_KEY), value.clone());
                }
            }
        }
        let step = self.now();
        self.step = step;
        let mut write = |key: &str, value: Option<ValueOf<Arc<str>>>| {
            out.push(TracedEvent {
                step,
                agent: 0,
                node: None,
                kind: EventKindOf::Context(Arc::from(key), value),
                line: 0,
            });
        };
        for (key, value) in &now {
            if self.values.get(key) != Some(value) {
                write(key, Some(shown(value)));
            }
        }
        for key in self.values.keys() {
            if !now.contains_key(key) {
                write(key, None);
            }
        }
        self.values = now;
        Ok(())
    }
}

/// What a hook request did, where a refusal is no harm: the publisher has no such hook
/// (it went already, or the program let it go).
fn harmless(done: Result<(), Groot2Error>) -> Result<(), Groot2Error> {
    match done {
        Err(e) if e.fault == Fault::Refused => Ok(()),
        other => other,
    }
}

/// A blackboard value as a context value: a number, text or true or false as it is; a
/// value of another type (a list, an object) as its JSON; one BehaviorTree.CPP cannot
/// write as JSON (null) as `(not shown by the program)`.
fn shown(value: &serde_json::Value) -> ValueOf<Arc<str>> {
    use serde_json::Value as J;
    match value {
        J::Bool(b) => ValueOf::Bool(*b),
        J::Number(n) => n
            .as_f64()
            .map_or_else(|| ValueOf::Text(Arc::from(n.to_string())), ValueOf::Number),
        J::String(s) => ValueOf::Text(Arc::from(cut(s, MAX_VALUE))),
        J::Null => ValueOf::Text(Arc::from("(a type the program does not export)")),
        other => ValueOf::Text(Arc::from(cut(&other.to_string(), MAX_VALUE))),
    }
}

/// `text`, cut to `max` bytes (at a character's edge) with `…` when longer.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

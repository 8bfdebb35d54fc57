//! `ArborLink`: the game shown live in the editor (docs/DEBUGGER.md, docs/PROTOCOL.md),
//! as a Rust game's `GameLink`: the steps of its agents go to the editor, breakpoints and
//! Pause hold them, its Interrupt buttons trigger them; the game never waits for it.

use std::collections::{BTreeMap, HashSet};
use std::ffi::c_char;
use std::sync::{Arc, Mutex};

use arbor::debug::GameTrigger;
use arbor::io::Library;
use arbor::model::Origin;
use arbor::remote::{EditorAddress, GameLink, Hello, LinkObserver, MAX_TRIGGERS, SentTree};
use arbor::runtime::{CtxValue, Instance};

use crate::agent::{ArborAgent, open_for};
use crate::calls::{CAgent, outside};
use crate::error::{ARBOR_ERR_ARGUMENT, ARBOR_ERR_NULL, ARBOR_OK, Failure, fail, guard};
use crate::handles::{self, Object, Type};
use crate::value::{ArborValue, name, put};

/// A handle to a link to the editor (0: none).
pub type ArborLink = u64;

/// What a link holds: the game's link, and the triggers the editor sent for agents not
/// stepped since.
pub(crate) struct Link {
    link: GameLink,
    waiting: Mutex<Vec<GameTrigger>>,
}

impl Link {
    /// Gives agent `agent` (`instance`) the triggers the editor sent it.
    pub(crate) fn deliver(&self, agent: &str, instance: &mut Instance<CAgent>) {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        waiting.extend(self.link.take_triggers());
        if waiting.is_empty() {
            return;
        }
        waiting.retain(|t| {
            if t.agent != agent {
                return true;
            }
            let payload = t.payload.as_deref().map(|p| CtxValue::Text(p.into()));
            instance.trigger(&t.id, payload);
            false
        });
        // Triggers for agents that are never stepped do not pile up.
        let over = waiting.len().saturating_sub(MAX_TRIGGERS);
        waiting.drain(..over);
    }

    /// Whether the editor lets agent `agent` step now.
    pub(crate) fn may_step(&self, agent: &str) -> bool {
        self.link.may_step(agent)
    }

    /// The observer of agent `agent`'s step.
    pub(crate) fn watch(&self, agent: &str) -> LinkObserver<'_> {
        self.link.watch(agent)
    }
}

/// Shows the game named `game` live in the editor: its `count` agents' steps from now on
/// (each agent's tree, and the node libraries its runtime loaded, are sent). `address` is the
/// editor's `[HOST:]PORT/TOKEN` (Simulation > Copy Live Address); null finds it as a Rust
/// game does: `ARBOR_LIVE`, else the editor of the trees' project, else the one started
/// last. Connects, and reconnects, in the background: the call never waits. Each agent
/// step then asks the editor whether it may go (`ARBOR_HELD` when not).
///
/// # Safety
/// `game` must be a NUL-terminated string, `address` null or one; `agents` must hold
/// `count` handles; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_link_connect(
    game: *const c_char,
    dt: f64,
    seed: u64,
    agents: *const ArborAgent,
    count: usize,
    address: *const c_char,
    out: *mut ArborLink,
) -> i32 {
    guard(|| {
        outside("arbor_link_connect")?;
        // SAFETY: the caller's contract.
        let game = unsafe { name(game, "game") }?;
        let address: Option<EditorAddress> = if address.is_null() {
            None
        } else {
            // SAFETY: the caller's contract.
            let text = unsafe { name(address, "address") }?;
            Some(text.parse().map_err(|e: String| Failure {
                code: ARBOR_ERR_ARGUMENT,
                message: format!("address \"{text}\": {e}"),
            })?)
        };
        // SAFETY: the caller's contract.
        let link = unsafe {
            open_for(agents, count, dt, out.is_null(), |opened, claimed| {
                let mut hello = Hello::new(game, dt, seed, &opened.named, &opened.files);
                // A tree given as text is sent as it was given (under its name as the hello's
                // header has it: made absolute where it names a file).
                let given: Vec<SentTree> = opened
                    .texts
                    .iter()
                    .map(|(path, text)| SentTree {
                        path: std::fs::canonicalize(path)
                            .unwrap_or_else(|_| path.clone())
                            .display()
                            .to_string(),
                        text: text.to_string(),
                    })
                    .collect();
                let names: HashSet<&str> = given.iter().map(|t| t.path.as_str()).collect();
                hello.trees.retain(|t| !names.contains(t.path.as_str()));
                hello.trees.extend(given.iter().cloned());
                // Each node library as it was loaded, under its own name.
                let mut by_library: BTreeMap<&str, Vec<arbor::model::KindSpec>> = BTreeMap::new();
                for k in &opened.kinds {
                    if let Origin::Library { library, .. } = &k.origin {
                        by_library.entry(library).or_default().push(k.clone());
                    }
                }
                let libraries = by_library.into_iter().map(|(name, kinds)| Library {
                    name: name.to_owned(),
                    kinds,
                });
                for library in libraries {
                    hello = hello.with_library(&library).map_err(|e| Failure {
                        code: ARBOR_ERR_ARGUMENT,
                        message: format!("the node library {} cannot be sent: {e}", library.name),
                    })?;
                }
                let link = match address {
                    Some(a) => GameLink::connect_to(&hello, a),
                    None => GameLink::connect(&hello),
                };
                let link = Arc::new(Link {
                    link,
                    waiting: Mutex::new(Vec::new()),
                });
                for a in claimed.iter_mut() {
                    a.link = Some(Arc::downgrade(&link));
                }
                Ok(link)
            })
        }?;
        // SAFETY: the caller's contract (`out` checked not null above).
        unsafe { handles::give(Object::Link(link), out) }
    })
}

/// Writes 1 to `out` while an editor is connected, else 0.
///
/// # Safety
/// `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_link_connected(link: ArborLink, out: *mut i32) -> i32 {
    guard(|| {
        outside("arbor_link_connected")?;
        if out.is_null() {
            return fail(ARBOR_ERR_NULL, "out is null");
        }
        let l = handles::link(link)?;
        // SAFETY: the caller's contract.
        unsafe { out.write(i32::from(l.link.connected())) };
        Ok(ARBOR_OK)
    })
}

/// Reads into `out` why the link is not connected when something is wrong (the editor
/// refused the game's token or version, `ARBOR_LIVE` does not read), as `ARBOR_TEXT`;
/// `ARBOR_NONE` when nothing is.
///
/// # Safety
/// `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_link_problem(link: ArborLink, out: *mut ArborValue) -> i32 {
    guard(|| {
        outside("arbor_link_problem")?;
        let l = handles::link(link)?;
        let v = match l.link.problem() {
            Some(p) => ArborValue::of(&CtxValue::Text(p.into()), false),
            None => ArborValue::NONE,
        };
        // SAFETY: the caller's contract.
        unsafe { put(out, v) }?;
        Ok(ARBOR_OK)
    })
}

/// Ends the link: the editor is told the game is gone. Its agents step on unshown.
#[unsafe(no_mangle)]
pub extern "C" fn arbor_link_free(link: ArborLink) -> i32 {
    guard(|| {
        outside("arbor_link_free")?;
        handles::remove(link, Type::Link)?;
        Ok(ARBOR_OK)
    })
}

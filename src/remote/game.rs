//! The game's side of live attach: [`GameLink`], a background thread that finds the editor,
//! connects (and reconnects), says the game's [`Hello`] and sends what the game's
//! [`LinkObserver`]s gather; and does what the editor asks, only of the agents the hello
//! names.
//!
//! The game's frame never waits for the editor and never does work the editor chose the
//! size of: what it asks is parsed in the link's thread, and what the frame reads of it
//! (whether an agent is streamed, paused, has breakpoints) is one flag an agent, read
//! without a lock. A lock is taken only for a paused agent's steps, the breakpoints of an
//! agent that has some, and the triggers; the link's thread holds it for a constant
//! amount of work a message, and frees what it replaces after letting it go.

use std::borrow::Cow;
use std::io::{BufWriter, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use foldhash::HashMap;

use super::protocol::{EditorSays, GameSays, Hello, LinkSays, MAX_MESSAGE, line_of};
use super::{EditorAddress, RELEASE_AFTER, lock};
use crate::debug::{BreakOn, GameCommand, GameTrigger};
use crate::runtime::{Event, Observer};

/// Steps of watched agents a game queues for the editor before it drops their events.
pub const QUEUE_STEPS: usize = 4_096;

/// Triggers the editor may have queued for the game to take, at most.
pub const MAX_TRIGGERS: usize = 1_024;

/// How long the game waits for the editor's answer to its hello.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// How often the link tries to connect while no editor is found, and how long it waits
/// after an editor ended the connection or refused the game.
const RETRY: Duration = Duration::from_millis(500);
const AFTER_REFUSAL: Duration = Duration::from_secs(2);

/// An agent's flags, read by the game's frame without a lock.
const GAME_STREAMS: u8 = 1;
const ASKED: u8 = 2;
const PAUSED: u8 = 4;
const TOLD: u8 = 8;
const BREAKS: u8 = 16;

/// Where the link looks for the editor.
#[derive(Clone, Debug)]
enum Target {
    /// `ARBOR_LIVE`, else the editors' cards in this folder (the user's live folder when
    /// none is given), looked at again before each try.
    Find(Option<std::path::PathBuf>),
    /// This editor only.
    At(EditorAddress),
}

/// A game's link to the editor: see the module's documentation. Dropping it stops the
/// thread.
pub struct GameLink {
    tx: SyncSender<String>,
    shared: Arc<LinkState>,
    thread: Option<JoinHandle<()>>,
}

/// The agents the hello names: fixed for the link's life.
struct Agents {
    /// Each name's place.
    places: HashMap<String, usize>,
    /// Each name, and as JSON (for the trace lines).
    names: Vec<String>,
    json: Vec<String>,
    /// Each agent's flags ([`GAME_STREAMS`], [`PAUSED`], …).
    flags: Vec<AtomicU8>,
    /// The game streams every agent it watches, the hello's and any other.
    stream_all: bool,
}

impl Agents {
    fn of(hello: &Hello) -> Self {
        let names: Vec<String> = hello.agent_names().map(str::to_owned).collect();
        let mut places = HashMap::default();
        for (i, n) in names.iter().enumerate() {
            places.entry(n.clone()).or_insert(i);
        }
        let streams = |n: &str| {
            hello
                .streamed
                .as_ref()
                .is_none_or(|s| s.iter().any(|x| x == n))
        };
        Self {
            places,
            json: names
                .iter()
                .map(|n| serde_json::to_string(n).unwrap_or_default())
                .collect(),
            flags: names
                .iter()
                .map(|n| AtomicU8::new(if streams(n) { GAME_STREAMS } else { 0 }))
                .collect(),
            names,
            stream_all: hello.streamed.is_none(),
        }
    }

    fn flags(&self, place: usize) -> u8 {
        self.flags
            .get(place)
            .map_or(0, |f| f.load(Ordering::Relaxed))
    }

    /// Sets or clears `flag` of agent `place`, writing only when it changes (the frame
    /// reads these flags: a write it need not see costs it nothing).
    fn set(&self, place: usize, flag: u8, on: bool) {
        let Some(f) = self.flags.get(place) else {
            return;
        };
        let now = f.load(Ordering::Relaxed);
        if on && now & flag != flag {
            f.fetch_or(flag, Ordering::Relaxed);
        } else if !on && now & flag != 0 {
            f.fetch_and(!flag, Ordering::Relaxed);
        }
    }

    /// Marks agent `place` as told of its hold, when it is still held and not yet told:
    /// whether it was marked.
    fn tell(&self, place: usize) -> bool {
        let Some(f) = self.flags.get(place) else {
            return false;
        };
        f.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
            (v & PAUSED != 0 && v & TOLD == 0).then_some(v | TOLD)
        })
        .is_ok()
    }
}

/// What the game's frame and the link's thread share.
struct LinkState {
    stop: AtomicBool,
    connected: AtomicBool,
    dropped: AtomicU64,
    /// Whether any agent is paused (so asking costs one load while none is), and whether
    /// breakpoints are set for every agent.
    pausing: AtomicBool,
    breaking_all: AtomicBool,
    agents: Agents,
    /// When the editor last said anything, in milliseconds since `epoch` (0: never), and
    /// how many commands it gave.
    heard: AtomicU64,
    told: AtomicU64,
    epoch: Instant,
    control: Mutex<Control>,
    /// Why the link is not connected, when something is wrong (the editor refused it).
    problem: Mutex<Option<String>>,
}

/// One agent's breakpoints: node (trace id) → the conditions, one bit each in
/// [`BreakOn::ALL`]'s order.
type AgentBreaks = Arc<HashMap<Box<str>, u8>>;

/// What the editor asked that the frame reads under the lock.
#[derive(Default)]
struct Control {
    /// The breakpoints of every agent, and each hello agent's own.
    all: Option<AgentBreaks>,
    breakpoints: Vec<Option<AgentBreaks>>,
    /// Each paused agent's steps allowed.
    steps: Vec<u32>,
    triggers: Vec<GameTrigger>,
}

/// The longest Interrupt id and payload a trigger may have; a longer one is not kept.
const MAX_TRIGGER_TEXT: usize = 4096;

impl LinkState {
    fn heard_now(&self) {
        let ms = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.heard.store(ms.max(1), Ordering::Relaxed);
    }

    fn silent_for_long(&self) -> bool {
        let heard = self.heard.load(Ordering::Relaxed);
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        heard == 0 || now.saturating_sub(heard) > RELEASE_AFTER.as_millis() as u64
    }

    /// Lets every paused agent go and forgets the steps allowed (the link's thread only:
    /// the frame never changes what the editor asked).
    fn release_all(&self) {
        self.pausing.store(false, Ordering::Relaxed);
        for p in 0..self.agents.names.len() {
            self.agents.set(p, PAUSED | TOLD, false);
        }
        let steps = std::mem::take(&mut lock(&self.control).steps);
        drop(steps);
    }

    /// The editor went away: nothing it asked holds any more.
    fn forget_editor(&self) {
        self.release_all();
        self.breaking_all.store(false, Ordering::Relaxed);
        for p in 0..self.agents.names.len() {
            self.agents.set(p, ASKED | BREAKS, false);
        }
        let old = {
            let mut c = lock(&self.control);
            let triggers = std::mem::take(&mut c.triggers);
            (triggers, c.all.take(), std::mem::take(&mut c.breakpoints))
        };
        drop(old);
    }

    /// Does what the editor said in one poll, in order, except that a command that
    /// replaces what every agent has (the breakpoints, the agents streamed, a pause or go
    /// on of every agent) is done only when no other like it comes later in the poll: a
    /// peer that floods such commands costs the link one of each a poll.
    fn obey_all(&self, commands: Vec<GameCommand>) {
        self.told
            .fetch_add(commands.len() as u64, Ordering::Relaxed);
        let class = |c: &GameCommand| match c {
            GameCommand::Breakpoints(_) => 1,
            GameCommand::Stream(_) => 2,
            GameCommand::Pause(None) | GameCommand::Continue(None) => 3,
            _ => 0,
        };
        let mut last = [usize::MAX; 4];
        for (i, c) in commands.iter().enumerate() {
            last[class(c)] = i;
        }
        for (i, c) in commands.into_iter().enumerate() {
            let k = class(&c);
            if k == 0 || last[k] == i {
                self.obey(c);
            }
        }
    }

    /// Does one command of the editor's, for the agents the hello names only.
    fn obey(&self, command: GameCommand) {
        let place = |agent: &str| self.agents.places.get(agent).copied();
        let n = self.agents.names.len();
        match command {
            GameCommand::Breakpoints(list) => {
                // Built here, outside the lock; the old lists are freed after it.
                let mut all: Option<HashMap<Box<str>, u8>> = None;
                let mut by_agent: Vec<Option<HashMap<Box<str>, u8>>> = vec![None; n];
                for b in list {
                    let bit = 1u8 << BreakOn::ALL.iter().position(|o| *o == b.on).unwrap_or(0);
                    let add = |map: &mut Option<HashMap<Box<str>, u8>>| {
                        *map.get_or_insert_with(HashMap::default)
                            .entry(b.node.as_str().into())
                            .or_insert(0) |= bit;
                    };
                    match &b.agents {
                        None => add(&mut all),
                        Some(agents) => {
                            for p in agents.iter().filter_map(|a| place(a)) {
                                add(&mut by_agent[p]);
                            }
                        }
                    }
                }
                for (p, list) in by_agent.iter().enumerate() {
                    self.agents.set(p, BREAKS, list.is_some());
                }
                self.breaking_all.store(all.is_some(), Ordering::Relaxed);
                let new: Vec<_> = by_agent.into_iter().map(|l| l.map(Arc::new)).collect();
                let old = {
                    let mut c = lock(&self.control);
                    (
                        std::mem::replace(&mut c.all, all.map(Arc::new)),
                        std::mem::replace(&mut c.breakpoints, new),
                    )
                };
                drop(old);
            }
            GameCommand::Step(agent) => {
                if let Some(p) = place(&agent).filter(|p| self.agents.flags(*p) & PAUSED != 0) {
                    let grown = {
                        let mut c = lock(&self.control);
                        // (Grown outside the lock when it must be.)
                        if c.steps.len() < n {
                            Some(std::mem::take(&mut c.steps))
                        } else {
                            c.steps[p] = c.steps[p].saturating_add(1);
                            None
                        }
                    };
                    if let Some(mut steps) = grown {
                        steps.resize(n, 0);
                        steps[p] = steps[p].saturating_add(1);
                        lock(&self.control).steps = steps;
                    }
                }
            }
            GameCommand::Pause(agent) => {
                let places: Box<dyn Iterator<Item = usize>> = match agent {
                    None => Box::new(0..n),
                    Some(a) => Box::new(place(&a).into_iter()),
                };
                let mut any = false;
                for p in places {
                    self.agents.set(p, PAUSED, true);
                    any = true;
                }
                if any {
                    self.pausing.store(true, Ordering::Relaxed);
                }
            }
            GameCommand::Continue(None) => self.release_all(),
            GameCommand::Continue(Some(agent)) => {
                if let Some(p) = place(&agent) {
                    self.agents.set(p, PAUSED | TOLD, false);
                    if let Some(s) = lock(&self.control).steps.get_mut(p) {
                        *s = 0;
                    }
                }
            }
            GameCommand::Trigger(t) => {
                let fits = t.id.len() <= MAX_TRIGGER_TEXT
                    && t.payload
                        .as_ref()
                        .is_none_or(|p| p.len() <= MAX_TRIGGER_TEXT);
                if fits && place(&t.agent).is_some() {
                    let mut c = lock(&self.control);
                    if c.triggers.len() < MAX_TRIGGERS {
                        c.triggers.push(t);
                    }
                }
            }
            // (A Rust game's hello does not say it forces: the editor never asks.)
            GameCommand::Force(_) => {}
            GameCommand::Stream(agents) => {
                let mut asked = vec![false; n];
                for p in agents.iter().filter_map(|a| place(a)) {
                    asked[p] = true;
                }
                for (p, on) in asked.into_iter().enumerate() {
                    self.agents.set(p, ASKED, on);
                }
            }
        }
    }
}

impl GameLink {
    /// Starts looking for the editor and connecting to it in the background: the one
    /// `ARBOR_LIVE` names (`[HOST:]PORT/TOKEN`, or `off`), else the editor whose project
    /// holds the hello's files, else the one started last, by the cards editors leave in
    /// the user's live folder (docs/DEBUGGER.md, "Which editor a game finds"); looked for
    /// again every half second while none answers. `hello` is sent on each connection.
    pub fn connect(hello: &Hello) -> Self {
        Self::start(hello, Target::Find(None))
    }

    /// As [`GameLink::connect`], with the editors' cards looked for in `cards` instead of
    /// the user's live folder (a game that keeps its own, or a test).
    pub fn connect_via(hello: &Hello, cards: &std::path::Path) -> Self {
        Self::start(hello, Target::Find(Some(cards.to_owned())))
    }

    /// Starts connecting to the editor at `editor` only (retrying every half second while
    /// none listens).
    pub fn connect_to(hello: &Hello, editor: EditorAddress) -> Self {
        Self::start(hello, Target::At(editor))
    }

    fn start(hello: &Hello, target: Target) -> Self {
        let (tx, rx) = sync_channel(QUEUE_STEPS);
        let shared = Arc::new(LinkState {
            stop: AtomicBool::new(false),
            connected: AtomicBool::new(false),
            dropped: AtomicU64::new(0),
            pausing: AtomicBool::new(false),
            breaking_all: AtomicBool::new(false),
            agents: Agents::of(hello),
            heard: AtomicU64::new(0),
            told: AtomicU64::new(0),
            epoch: Instant::now(),
            control: Mutex::new(Control::default()),
            problem: Mutex::new(None),
        });
        let thread = {
            let shared = shared.clone();
            let hello = hello.clone();
            std::thread::Builder::new()
                .name("arbor-link".into())
                .spawn(move || send_loop(&hello, &target, &rx, &shared))
                .ok()
        };
        Self { tx, shared, thread }
    }

    /// An observer that sends the events of the agent named `agent` (pass it to that
    /// agent's `Instance::step`) when the agent is streamed (see [`Hello::streamed`]). While
    /// no editor is connected, or the agent is not streamed, it costs an atomic load (and
    /// a look-up of the name) and gathers nothing.
    #[inline]
    pub fn watch(&self, agent: &str) -> LinkObserver<'_> {
        let mut o = LinkObserver {
            link: self,
            live: false,
            place: None,
            agent: Cow::Borrowed(""),
            breaks: [None, None],
            hit: false,
            lines: String::new(),
            count: 0,
        };
        if self.connected() {
            o.aim(agent);
        }
        o
    }

    /// Whether an editor is connected now.
    pub fn connected(&self) -> bool {
        self.shared.connected.load(Ordering::Relaxed)
    }

    /// Why the link is not connected, when something is wrong: the editor refused the
    /// game (its token, its version), or `ARBOR_LIVE` does not read.
    pub fn problem(&self) -> Option<String> {
        lock(&self.shared.problem).clone()
    }

    /// How many commands the editors it connected to gave it so far (breakpoints, steps,
    /// pauses, triggers, …), whether or not they named its agents.
    pub fn told(&self) -> u64 {
        self.shared.told.load(Ordering::Relaxed)
    }

    /// Events dropped so far because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Whether the game may step agent `agent` now: not while the editor holds it paused
    /// (at the end of the step that hit a breakpoint, or by its Pause), except for a step
    /// the editor allows; every pause ends when the editor goes away or says nothing for
    /// [`RELEASE_AFTER`]. A game asks before each step of an agent the hello names.
    #[inline]
    pub fn may_step(&self, agent: &str) -> bool {
        !self.shared.pausing.load(Ordering::Relaxed) || self.may_step_paused(agent)
    }

    /// [`GameLink::may_step`] while some agent is paused.
    #[inline(never)]
    fn may_step_paused(&self, agent: &str) -> bool {
        let s = &self.shared;
        let Some(&p) = s.agents.places.get(agent) else {
            return true;
        };
        let flags = s.agents.flags(p);
        if flags & PAUSED == 0 {
            return true;
        }
        if !self.connected() || s.silent_for_long() {
            // (The link's thread lets every hold go: the frame only steps.)
            return true;
        }
        let allowed = {
            let mut c = lock(&s.control);
            match c.steps.get_mut(p) {
                Some(n) if *n > 0 => {
                    *n -= 1;
                    true
                }
                _ => false,
            }
        };
        if !allowed && flags & TOLD == 0 {
            // The editor learns of a hold when the game first holds the agent (again at
            // the next ask while the queue is full).
            let said = String::from_utf8(line_of(&GameSays::Paused(agent.to_owned())));
            if self.queue(said.unwrap_or_default(), 1) {
                s.agents.tell(p);
            }
        }
        allowed
    }

    /// The agents held paused now.
    pub fn paused(&self) -> Vec<String> {
        let a = &self.shared.agents;
        (0..a.names.len())
            .filter(|p| a.flags(*p) & PAUSED != 0)
            .map(|p| a.names[p].clone())
            .collect()
    }

    /// The triggers the editor asked for since the last call, to give the agents they
    /// name (`Instance::trigger`).
    pub fn take_triggers(&self) -> Vec<GameTrigger> {
        std::mem::take(&mut lock(&self.shared.control).triggers)
    }

    /// Queues `lines` (`count` messages) for the editor; dropped and counted when the
    /// queue is full. Whether they were queued.
    fn queue(&self, lines: String, count: u64) -> bool {
        match self.tx.try_send(lines) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                self.shared.dropped.fetch_add(count, Ordering::Relaxed);
                false
            }
            Err(TrySendError::Disconnected(_)) => false,
        }
    }
}

impl Drop for GameLink {
    /// Tells the thread to stop, without waiting for it (it may be in a write the
    /// editor is slow to take): the game never waits for the editor.
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        drop(self.thread.take());
    }
}

/// Sends one agent's events to the editor (see [`GameLink::watch`]): the events of a
/// step are gathered and queued together when it is dropped, one message a step. A
/// breakpoint the editor set that the step hits pauses the agent when it ends.
pub struct LinkObserver<'l> {
    link: &'l GameLink,
    /// The agent is streamed and an editor was connected: it gathers the step's events.
    live: bool,
    /// The agent's place in the hello, if it has one.
    place: Option<usize>,
    /// The agent's name as JSON.
    agent: Cow<'l, str>,
    /// Its breakpoints, when it has some: those of every agent, and its own.
    breaks: [Option<AgentBreaks>; 2],
    hit: bool,
    /// The lines gathered, and how many.
    lines: String,
    count: u64,
}

impl<'l> LinkObserver<'l> {
    /// Takes aim at agent `agent`: whether it is streamed, its name, its breakpoints.
    fn aim(&mut self, agent: &str) {
        let s = &self.link.shared;
        self.place = s.agents.places.get(agent).copied();
        self.live = match self.place {
            Some(p) => s.agents.flags(p) & (GAME_STREAMS | ASKED) != 0,
            None => s.agents.stream_all,
        };
        if !self.live {
            return;
        }
        self.agent = match self.place {
            Some(p) => Cow::Borrowed(self.link.shared.agents.json[p].as_str()),
            None => Cow::Owned(serde_json::to_string(agent).unwrap_or_default()),
        };
        let own = self.place.filter(|p| s.agents.flags(*p) & BREAKS != 0);
        if own.is_some() || s.breaking_all.load(Ordering::Relaxed) {
            let c = lock(&s.control);
            self.breaks = [
                c.all.clone(),
                own.and_then(|p| c.breakpoints.get(p).cloned().flatten()),
            ];
        }
    }

    /// Queues what was gathered (dropped and counted when the queue is full); a
    /// breakpoint's hit pauses the agent, and the editor is told.
    fn flush(&mut self) {
        if std::mem::take(&mut self.hit)
            && let Some(p) = self.place
        {
            let s = &self.link.shared;
            s.agents.set(p, PAUSED, true);
            s.pausing.store(true, Ordering::Relaxed);
            let told = line_of(&GameSays::Paused(s.agents.names[p].clone()));
            self.lines.push_str(&String::from_utf8_lossy(&told));
            self.count += 1;
            // Told with the step's events; when they do not fit, at the next ask.
            let queued = self.link.queue(
                std::mem::take(&mut self.lines),
                std::mem::take(&mut self.count),
            );
            if queued {
                s.agents.tell(p);
            }
            return;
        }
        if self.count == 0 {
            return;
        }
        self.link.queue(
            std::mem::take(&mut self.lines),
            std::mem::take(&mut self.count),
        );
    }
}

impl Observer for LinkObserver<'_> {
    fn agent(&mut self, name: &str) {
        self.flush();
        self.live = false;
        self.breaks = [None, None];
        if self.link.connected() {
            self.aim(name);
        }
    }

    fn event(&mut self, e: &Event<'_>) {
        if !self.live {
            return;
        }
        crate::runtime::format_event(&mut self.lines, &self.agent, e);
        self.lines.push('\n');
        self.count += 1;
        if !self.hit {
            let bits = self
                .breaks
                .iter()
                .flatten()
                .filter_map(|b| b.get(e.node_id))
                .fold(0u8, |all, b| all | b);
            self.hit = bits != 0
                && BreakOn::ALL
                    .iter()
                    .enumerate()
                    .any(|(i, on)| bits & (1 << i) != 0 && on.matches(&e.kind));
        }
    }
}

impl Drop for LinkObserver<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The editors to try, in order, with the token each wants.
fn editors(target: &Target, hello: &Hello) -> Result<Vec<EditorAddress>, String> {
    match target {
        Target::At(a) => Ok(vec![a.clone()]),
        Target::Find(dir) => match std::env::var("ARBOR_LIVE") {
            Ok(v) if v.trim() == "off" => Ok(Vec::new()),
            Ok(v) if !v.trim().is_empty() => v
                .trim()
                .parse::<EditorAddress>()
                .map(|a| vec![a])
                .map_err(|e| format!("ARBOR_LIVE: {e}")),
            _ => {
                let files: Vec<std::path::PathBuf> = hello
                    .run
                    .files
                    .iter()
                    .map(|f| std::path::PathBuf::from(&f.path))
                    .collect();
                let cards = match dir {
                    Some(d) => crate::io::LiveCard::find_in(d, &files),
                    None => crate::io::LiveCard::find(&files),
                };
                Ok(cards
                    .into_iter()
                    .map(|c| EditorAddress {
                        addr: c.address(),
                        token: c.token,
                    })
                    .collect())
            }
        },
    }
}

/// The game's thread: find an editor, connect, say hello, send what is queued; again
/// after a failure.
fn send_loop(hello: &Hello, target: &Target, rx: &Receiver<String>, shared: &LinkState) {
    let said_problem = |p: Option<String>| *lock(&shared.problem) = p;
    while !shared.stop.load(Ordering::Relaxed) {
        let candidates = match editors(target, hello) {
            Ok(c) => c,
            Err(e) => {
                said_problem(Some(e));
                Vec::new()
            }
        };
        let mut met = None;
        for editor in candidates.iter().take(8) {
            match meet(hello, editor) {
                Ok(stream) => {
                    met = Some(stream);
                    break;
                }
                Err(Some(refusal)) => said_problem(Some(refusal)),
                Err(None) => {}
            }
        }
        let Some((stream, inbox)) = met else {
            // Nobody listens (or every editor refused): what was queued is nobody's.
            while rx.try_recv().is_ok() {}
            std::thread::sleep(if lock(&shared.problem).is_some() {
                AFTER_REFUSAL
            } else {
                RETRY
            });
            continue;
        };
        said_problem(None);
        let ended = talk(stream, inbox, rx, shared);
        shared.connected.store(false, Ordering::Relaxed);
        shared.forget_editor();
        match ended {
            Talk::Stopped => return,
            Talk::Refused(why) => said_problem(Some(why)),
            Talk::Ended => {}
        }
        // The editor ended the connection: a moment before trying again.
        std::thread::sleep(AFTER_REFUSAL);
    }
}

/// Connects to `editor` and says hello: the stream and what came after the editor's
/// welcome; `Err(Some(why))` when it refused the game, `Err(None)` when nobody answered.
fn meet(hello: &Hello, editor: &EditorAddress) -> Result<(TcpStream, Vec<u8>), Option<String>> {
    let mut stream = TcpStream::connect_timeout(&editor.addr, RETRY).map_err(|_| None)?;
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(ANSWER_WITHIN));
    let hello = Hello {
        token: editor.token.clone(),
        ..hello.clone()
    };
    stream.write_all(&line_of(&hello)).map_err(|_| None)?;
    // The answer: a welcome, or why not.
    let deadline = Instant::now() + ANSWER_WITHIN;
    let mut inbox = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(end) = inbox.iter().position(|&b| b == b'\n') {
            break end;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || inbox.len() > MAX_MESSAGE {
            return Err(None);
        }
        let _ = stream.set_read_timeout(Some(left));
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return Err(None),
            Ok(n) => inbox.extend_from_slice(&chunk[..n]),
        }
    };
    let answer: Result<EditorSays, _> = serde_json::from_slice(&inbox[..=end]);
    inbox.drain(..=end);
    match answer {
        Ok(EditorSays::Link(LinkSays::Welcome {})) => Ok((stream, inbox)),
        Ok(EditorSays::Link(LinkSays::Refused(why))) => Err(Some(format!(
            "the editor at {} refused this game: {why}",
            editor.addr
        ))),
        _ => Err(None),
    }
}

/// How a connection ended.
enum Talk {
    /// The link was dropped.
    Stopped,
    /// The editor went away or said something unreadable.
    Ended,
    /// The editor refused the game.
    Refused(String),
}

/// One connection, after the welcome: sends what is queued, does what the editor says.
fn talk(stream: TcpStream, mut inbox: Vec<u8>, rx: &Receiver<String>, shared: &LinkState) -> Talk {
    // What the editor says is read without waiting (a read times out at once).
    let Ok(mut from_editor) = stream.try_clone() else {
        return Talk::Ended;
    };
    let _ = from_editor.set_read_timeout(Some(Duration::from_millis(1)));
    let mut out = BufWriter::new(stream);
    shared.heard_now();
    shared.connected.store(true, Ordering::Relaxed);
    let mut told = shared.dropped.load(Ordering::Relaxed);
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            return Talk::Stopped;
        }
        // Polled, not waited on: a game's queueing never has a thread to wake.
        std::thread::sleep(Duration::from_millis(5));
        let mut sent = true;
        loop {
            match rx.try_recv() {
                Ok(lines) => sent = sent && out.write_all(lines.as_bytes()).is_ok(),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return Talk::Stopped,
            }
        }
        let dropped = shared.dropped.load(Ordering::Relaxed);
        let said = dropped == told || out.write_all(&line_of(&GameSays::Dropped(dropped))).is_ok();
        told = dropped;
        if !(sent && said && out.flush().is_ok()) {
            return Talk::Ended;
        }
        if let Some(ended) = hear(&mut from_editor, &mut inbox, shared) {
            return ended;
        }
        // An editor silent for long lets every hold go.
        if shared.pausing.load(Ordering::Relaxed) && shared.silent_for_long() {
            shared.release_all();
        }
    }
}

/// Reads what the editor said since the last call (without waiting, at most a message's
/// bound a call) and does it; `Some` when the connection ended.
fn hear(from: &mut TcpStream, inbox: &mut Vec<u8>, shared: &LinkState) -> Option<Talk> {
    let mut chunk = [0u8; 4096];
    while inbox.len() <= MAX_MESSAGE {
        match from.read(&mut chunk) {
            Ok(0) => return Some(Talk::Ended),
            Ok(n) => inbox.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                break;
            }
            Err(_) => return Some(Talk::Ended),
        }
    }
    let mut start = 0;
    let mut commands = Vec::new();
    while let Some(len) = inbox[start..].iter().position(|&b| b == b'\n') {
        let line = &inbox[start..start + len];
        start += len + 1;
        shared.heard_now();
        match serde_json::from_slice::<EditorSays>(line) {
            Ok(EditorSays::Command(c)) => commands.push(c),
            Ok(EditorSays::Link(LinkSays::Alive {} | LinkSays::Welcome {})) => {}
            Ok(EditorSays::Link(LinkSays::Refused(why))) => return Some(Talk::Refused(why)),
            Err(_) => return Some(Talk::Ended),
        }
    }
    inbox.drain(..start);
    shared.obey_all(commands);
    (inbox.len() > MAX_MESSAGE).then_some(Talk::Ended)
}
